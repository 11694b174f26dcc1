// The routing table and the small endpoints: `POST /v1/symbolicate` (the hot path: parse,
// symbolicate, render, on the network thread; on a worker for a large or compressed body), `GET /healthz`, `GET /readyz` (the store answers),
// `GET /metrics`, `GET /openapi.json` and the web page at `/`. Uploads, stored reports and the compatibility endpoints live in their
// own files.

import Foundation
import SymbolicateModel
import Symbolication

extension SymbolicationServer {
    func makeRoutes() -> [Route] {
        let context = self.context
        let reportLimit = min(configuration.maxReportBody, configuration.maxBody)
        let uploadLimit = configuration.maxBody
        return [
            Route("GET", "/", access: .open) { _ in
                HTTPResponse(
                    contentType: "text/html; charset=utf-8", body: Array(WebPage.html.utf8),
                    headers: [("Content-Security-Policy", WebPage.contentSecurityPolicy)])
            }
        ] + adminRoutes() + [
            Route("GET", "/openapi.json", access: .open) { _ in
                HTTPResponse(contentType: "application/json", body: Array(OpenAPI.document.utf8))
            },
            Route(
                "POST", "/v1/symbolicate", body: .memory(limit: reportLimit), offloadedAbove: Self.inlineReportLimit
            ) { request in
                try SymbolicationServer.symbolicate(request, context: context, limit: reportLimit)
            },
            Route("POST", "/v1/symbols", access: .write, body: .file(limit: uploadLimit), offloaded: true) {
                request in try SymbolUploads.upload(request, context: context)
            },
            Route("GET", "/v1/symbols") { request in try SymbolUploads.list(request, context: context) },
            Route("GET", "/v1/symbols/{uuid}") { request in try SymbolUploads.show(request, context: context) },
            Route("GET", "/v1/symbols/{uuid}/file", offloaded: true) { request in
                try OriginalDownloads.file(request, context: context)
            },
            Route("DELETE", "/v1/symbols/{uuid}", access: .write, offloaded: true) { request in
                try SymbolUploads.delete(request, context: context)
            },
            Route("POST", "/v1/reports", access: .write, body: .memory(limit: reportLimit), offloaded: true) {
                request in try StoredReports.post(request, context: context, limit: reportLimit)
            },
            Route("GET", "/v1/reports", offloaded: true) { request in try StoredReports.list(request, context: context)
            },
            Route("GET", "/v1/reports/{id}", offloaded: true) { request in
                try StoredReports.get(request, context: context)
            },
            Route("DELETE", "/v1/reports/{id}", access: .write, offloaded: true) { request in
                try StoredReports.delete(request, context: context)
            },
            Route("GET", "/v1/missing", offloaded: true) { request in
                try StoredReports.missing(request, context: context)
            },
            Route("POST", "/symbolicate", body: .memory(limit: reportLimit), offloadedAbove: Self.inlineReportLimit) {
                request in
                try SentryCompatibility.symbolicate(request, context: context, limit: reportLimit)
            },
            Route("POST", "/symbolicate/v5", body: .memory(limit: reportLimit), offloadedAbove: Self.inlineReportLimit)
            {
                request in
                try MozillaCompatibility.symbolicate(request, context: context, limit: reportLimit)
            },
        ] + ((try? ChunkUploads(context: context))?.routes() ?? []) + Debuginfod.routes(context: context)
    }

    /// The largest report body symbolicated on the network thread: a crash report is tens of
    /// kilobytes, done in about a millisecond; a larger or compressed one goes to a worker.
    static let inlineReportLimit = 256 << 10

    /// What the admin listener serves (and the main port too): liveness, readiness, metrics.
    func adminRoutes() -> [Route] {
        let context = self.context
        let metrics = self.metrics
        return [
            Route("GET", "/healthz", access: .open) { _ in .json(["status": "ok"]) },
            Route("GET", "/readyz", access: .open) { [weak self] _ in
                if self?.isStopping ?? true {
                    throw HTTPError(503, "not_ready", "the server is stopping", headers: [("Retry-After", "1")])
                }
                if let full = context.diskFull.problem {
                    throw HTTPError(
                        503, "not_ready", "the store cannot be written: \(full)",
                        headers: [("Retry-After", String(StorageStatus.diskFullRetryAfter))])
                }
                do {
                    try context.checkStore()
                    try context.reports.checkReachable()
                } catch {
                    throw HTTPError(
                        503, "not_ready", "the store does not answer: \(HTTPError.from(error).message)",
                        headers: [("Retry-After", "5")])
                }
                return .json(["status": "ready"])
            },
            Route("GET", "/metrics", access: .open) { _ in
                HTTPResponse(
                    contentType: "text/plain; version=0.0.4; charset=utf-8",
                    body: Array((metrics.render(gauges: context.gauges()) + context.bucketMetrics()).utf8))
            },
        ]
    }

    /// `POST /v1/symbolicate`: the report in, the symbolicated report (or its JSON outcome) out.
    static func symbolicate(_ request: HTTPRequest, context: ServiceContext, limit: Int) throws -> HTTPResponse {
        let format = try requestedFormat(request)
        let bytes = try reportBody(request, limit: limit)
        let processed = try context.process(bytes, format: format)
        try FailedLookups.check(processed.outcome, request)
        var headers: [(String, String)] = [
            ("X-Symbolicate-Frames", "\(processed.outcome.symbolicatedFrames)/\(processed.outcome.totalFrames)")
        ]
        let missing = missingUUIDs(processed.outcome)
        if !missing.isEmpty { headers.append(("X-Symbolicate-Missing", missing.joined(separator: ","))) }
        headers += StrictAnswer.warnings(processed)
        if StrictAnswer.isStrict(request), let refusal = StrictAnswer.refusal(processed, headers: headers) {
            return refusal
        }
        return HTTPResponse(contentType: processed.contentType, body: processed.output, headers: headers)
    }

    /// `format=crash|ips|json`, else `Accept: application/json` means json, else the input's own format.
    static func requestedFormat(_ request: HTTPRequest) throws -> OutputFormat? {
        if let name = request.query["format"], !name.isEmpty {
            guard let format = OutputFormat(rawValue: name.lowercased()) else {
                let names = OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw HTTPError.badRequest("unknown format '\(name)'; use one of \(names)")
            }
            return format
        }
        if let accept = request.header("accept"), HeaderBlock.holds(accept, "application/json") { return .json }
        return nil
    }

    /// The request body decoded (gzip) and checked not to be empty nor a report whose line breaks
    /// were stripped on the way.
    static func reportBody(_ request: HTTPRequest, limit: Int) throws -> [UInt8] {
        let encoding = request.isForm ? nil : request.header("content-encoding")
        let bytes = try ContentDecoding.decode(request.body, encoding: encoding, limit: limit)
        guard !bytes.isEmpty else {
            throw HTTPError.badRequest(
                "the body is empty; send a report (.crash, .ips, MetricKit, spindump, sample): "
                    + "curl --data-binary @FILE or -F file=@FILE")
        }
        if lostItsLineBreaks(bytes) {
            throw HTTPError.badRequest(
                "the report has no line breaks: `curl -d @FILE` removes them; send the file with "
                    + "`curl --data-binary @FILE` (or `curl -F file=@FILE`)")
        }
        return bytes
    }

    /// True for a report sent with `curl -d @FILE`, which drops every CR and LF (and labels the body
    /// form-urlencoded like --data-binary does, so the header cannot tell): a text report's fields
    /// run into one line, and an .ips's two JSON documents run into one another. Real reports
    /// always have line breaks.
    static func lostItsLineBreaks(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 64, !bytes.contains(0x0A), !bytes.contains(0x0D) else { return false }
        let head = String(decoding: bytes.prefix(256 << 10), as: UTF8.self)
        let textFields = [
            "Incident Identifier:", "Exception Type:", "Binary Images:", "Hardware Model:", "Crashed Thread:",
        ]
        if textFields.contains(where: { head.contains($0) }) { return true }
        return head.contains("\"bug_type\"") && head.contains("}{")
    }

    /// UUIDs of images with no symbols, uppercase with dashes, in report order.
    static func missingUUIDs(_ outcome: SymbolicationOutcome) -> [String] {
        var seen = Set<String>()
        return outcome.missing.compactMap { $0.uuid?.uuidString }.filter { seen.insert($0).inserted }
    }
}
