// Stored reports: `POST /v1/reports` symbolicates a report and keeps it (original bytes and
// symbolicated output) in `reports.sqlite`; `GET /v1/reports/{id}` reads it back; `GET /v1/missing`
// lists the UUIDs that stored reports are waiting for. When an upload brings one of those UUIDs,
// `resymbolicate(uuids:)` runs every waiting report again from its original bytes.

import Foundation
import Symbolication
import SymbolicateModel

enum StoredReports {
    /// `?view=` of `GET /v1/reports/{id}`: the JSON record (default) or the symbolicated report alone.
    static let views = ["json", "raw"]

    static func post(_ request: HTTPRequest, context: ServiceContext, limit: Int) throws -> HTTPResponse {
        let format = try SymbolicationServer.requestedFormat(request)
        let bytes = try SymbolicationServer.reportBody(request, limit: limit)
        let processed = try context.process(bytes, format: format)
        let now = Date().timeIntervalSince1970
        let stored = record(
            id: UUID().uuidString.lowercased(), createdAt: now, format: format?.rawValue, original: bytes,
            processed: processed)
        try context.reports.save(stored, missingNames: names(processed.outcome))
        return .json(json(stored), status: 201, headers: [("Location", "/v1/reports/\(stored.id)")])
    }

    static func get(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        guard let id = request.parameters["id"], id.count <= 64,
            id.allSatisfy({ $0.isHexDigit || $0 == "-" })
        else { throw HTTPError.badRequest("a report id is a UUID as POST /v1/reports answered it") }
        let view = request.query["view"].flatMap { $0.isEmpty ? nil : $0.lowercased() } ?? "json"
        guard StoredReports.views.contains(view) else {
            let allowed = StoredReports.views.joined(separator: ", ")
            throw HTTPError.badRequest("unknown view '\(request.query["view"] ?? "")'; use one of \(allowed)")
        }
        guard let stored = try context.reports.report(id: id.lowercased()) else {
            throw HTTPError.notFound("no stored report with id \(id)")
        }
        if view == "raw" {
            var headers: [(String, String)] = []
            if !stored.missing.isEmpty { headers.append(("X-Symbolicate-Missing", stored.missing.joined(separator: ","))) }
            return HTTPResponse(contentType: stored.contentType, body: stored.output, headers: headers)
        }
        return .json(json(stored))
    }

    static func missing(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let limit = Int(request.query["limit"] ?? "") ?? 1000
        guard limit >= 1, limit <= 10_000 else { throw HTTPError.badRequest("limit must be from 1 to 10000") }
        let entries = try context.reports.missingSummary(limit: limit)
        return .json(["missing": entries.map { ["uuid": $0.uuid, "name": $0.name, "reports": $0.reports] as [String: Any] }])
    }

    /// Symbolicates again every stored report that was missing one of these UUIDs; returns how many.
    static func resymbolicate(uuids: [String], context: ServiceContext) throws -> Int {
        guard !uuids.isEmpty else { return 0 }
        var count = 0
        for id in try context.reports.reportsMissing(uuids) {
            guard let old = try context.reports.report(id: id) else { continue }
            let format = old.format.flatMap { OutputFormat(rawValue: $0) }
            let processed: ProcessedReport
            do {
                processed = try context.process(old.original, format: format)
            } catch {
                context.log.event("resymbolicate_failed", ["report": id, "error": "\(error)"])
                continue
            }
            let updated = record(
                id: id, createdAt: old.createdAt, format: old.format, original: old.original, processed: processed)
            try context.reports.save(updated, missingNames: names(processed.outcome))
            count += 1
        }
        context.metrics.recordResymbolicated(count)
        if count > 0 { context.log.event("resymbolicated", ["reports": String(count)]) }
        return count
    }

    private static func record(
        id: String, createdAt: Double, format: String?, original: [UInt8], processed: ProcessedReport
    ) -> ReportDatabase.StoredReport {
        ReportDatabase.StoredReport(
            id: id, createdAt: createdAt, updatedAt: Date().timeIntervalSince1970, format: format, original: original,
            output: processed.output, contentType: processed.contentType,
            framesSymbolicated: processed.outcome.symbolicatedFrames, framesTotal: processed.outcome.totalFrames,
            missing: SymbolicationServer.missingUUIDs(processed.outcome))
    }

    private static func names(_ outcome: SymbolicationOutcome) -> [String: String] {
        var names: [String: String] = [:]
        for image in outcome.missing {
            if let uuid = image.uuid?.uuidString { names[uuid] = image.name }
        }
        return names
    }

    private static func json(_ stored: ReportDatabase.StoredReport) -> [String: Any] {
        [
            "id": stored.id, "url": "/v1/reports/\(stored.id)",
            "created_at": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: stored.createdAt)),
            "updated_at": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: stored.updatedAt)),
            "complete": stored.missing.isEmpty, "frames_symbolicated": stored.framesSymbolicated,
            "frames_total": stored.framesTotal, "missing": stored.missing, "content_type": stored.contentType,
            "report": String(decoding: stored.output, as: UTF8.self),
        ]
    }
}
