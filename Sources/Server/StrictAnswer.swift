// What `POST /v1/symbolicate` adds for a report that yielded less than it should: the
// `X-Symbolicate-Warning` headers (the report looks line-wrapped, nothing was symbolicated) and,
// with `?strict=1`, the 422 answer naming the images that are not system images and lack
// symbols (SymbolicationOutcome.strictFailures, as `symbolicate --strict` judges).

import SymbolicateModel
import Symbolication

enum StrictAnswer {
    /// One `X-Symbolicate-Warning` header per line the CLI would say on stderr.
    static func warnings(_ processed: ProcessedReport) -> [(String, String)] {
        processed.warnings.map { ("X-Symbolicate-Warning", $0) }
    }

    /// True for `?strict=1` (or `true`).
    static func isStrict(_ request: HTTPRequest) -> Bool {
        guard let value = request.query["strict"]?.lowercased() else { return false }
        return value == "1" || value == "true"
    }

    /// The 422 answer for `?strict=1`, or nil when no image fails it.
    static func refusal(_ processed: ProcessedReport, headers: [(String, String)]) -> HTTPResponse? {
        let failures = processed.outcome.strictFailures
        guard !failures.isEmpty else { return nil }
        let images: [[String: Any]] = failures.map { outcome in
            var item: [String: Any] = ["name": outcome.image.name, "status": status(outcome.status)]
            if let uuid = outcome.image.uuid { item["uuid"] = "\(uuid)" }
            if let arch = outcome.image.arch { item["arch"] = "\(arch)" }
            if let path = outcome.image.path { item["path"] = path }
            return item
        }
        let names = failures.map(\.image.name).joined(separator: ", ")
        return HTTPResponse.json(
            [
                "error": [
                    "code": "missing_symbols",
                    "message": "strict: no symbols for \(names); upload them to /v1/symbols, or ask without strict=1",
                ],
                "images": images,
            ], status: 422, headers: headers)
    }

    static func status(_ status: ImageStatus) -> String {
        switch status {
        case .symbolicated: return "symbolicated"
        case .symbolTableOnly: return "symbol_table_only"
        case .missing: return "missing"
        case .uuidMismatch: return "uuid_mismatch"
        case .failed: return "failed"
        case .noUUID: return "no_uuid"
        }
    }
}
