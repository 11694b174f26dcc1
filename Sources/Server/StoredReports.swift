// Stored reports: `POST /v1/reports` symbolicates a report and keeps it (original bytes and
// symbolicated output) in the report storage (a folder's `reports.sqlite` or a bucket);
// `GET /v1/reports/{id}` reads it back, `GET /v1/reports` lists them, `DELETE /v1/reports/{id}`
// removes one, `GET /v1/missing` lists the UUIDs stored reports are waiting for. When a build
// arrives (an upload here, or one ReportWatcher sees in the store), `resymbolicate(uuids:)` runs
// every waiting report again from its original bytes.
//
// `Idempotency-Key` on a POST makes the report id a function of the key (and the token that
// posted it), so a load balancer that retries a POST on another replica gets the same report:
// the first to store it answers 201, every later one 200 with the stored report.

import Digest
import Foundation
import Reports
import Store
import SymbolicateModel
import Symbolication

enum StoredReports {
    /// `?view=` of `GET /v1/reports/{id}`: the JSON record (default) or the symbolicated report alone.
    static let views = ["json", "raw"]
    /// Longest `Idempotency-Key` accepted (Stripe's limit).
    static let maxIdempotencyKey = 255
    /// Times a re-symbolication re-reads a report that another writer changed under it.
    static let maxReplaceAttempts = 8

    static func post(_ request: HTTPRequest, context: ServiceContext, limit: Int) throws -> HTTPResponse {
        let format = try SymbolicationServer.requestedFormat(request)
        let bytes = try SymbolicationServer.reportBody(request, limit: limit)
        let key = try idempotencyKey(request)
        let id =
            key.map { reportID(idempotencyKey: $0, token: request.tokenName ?? "") } ?? UUID().uuidString.lowercased()
        if key != nil, let existing = try context.reports.report(id: id),
            let answer = try replayUnexpired(existing, bytes: bytes, format: format, context: context)
        {
            return answer
        }
        let processed = try context.process(bytes, format: format)
        let now = Date().timeIntervalSince1970
        let report = record(id: id, createdAt: now, format: format?.rawValue, original: bytes, processed: processed)
        let (stored, created) = try context.reports.create(report)
        guard created else { return try replay(stored, bytes: bytes, format: format) }
        return .json(json(stored), status: 201, headers: [("Location", "/v1/reports/\(stored.id)")])
    }

    /// The replay of a report past its retention, which the sweep may remove at any moment: it is
    /// written afresh first (the sweep removes only reports still older than its cutoff), so the 200
    /// never names a report about to go. Nil when the sweep removed it meanwhile: the caller stores
    /// it again and answers 201, as for a first POST.
    private static func replayUnexpired(
        _ existing: StoredReport, bytes: [UInt8], format: OutputFormat?, context: ServiceContext
    ) throws -> HTTPResponse? {
        let days = context.configuration.reportRetentionDays
        var current = existing
        for _ in 0..<maxReplaceAttempts {
            let now = Date().timeIntervalSince1970
            guard days > 0, current.updatedAt < StoredReportRetention.cutoff(days: days, now: now) else {
                return try replay(current, bytes: bytes, format: format)
            }
            // Another report under this key is refused before anything is written.
            _ = try replay(current, bytes: bytes, format: format)
            var fresh = current
            fresh.updatedAt = now
            switch try context.reports.replace(current, with: fresh) {
            case .replaced:
                return try replay(fresh, bytes: bytes, format: format)
            case .gone:
                return nil
            case .conflict:
                guard let reread = try context.reports.report(id: current.id) else { return nil }
                current = reread
            }
        }
        throw HTTPError(
            503, "busy", "the report \(existing.id) kept changing while it was replayed; retry the request",
            headers: [("Retry-After", "1")])
    }

    /// The answer to a POST whose Idempotency-Key already stored a report: that report, if the
    /// request is the same one again.
    private static func replay(_ stored: StoredReport, bytes: [UInt8], format: OutputFormat?) throws -> HTTPResponse {
        guard stored.original == bytes, stored.format == format?.rawValue else {
            throw HTTPError(
                422, "idempotency_key_reused",
                "this Idempotency-Key already stored another report (\(stored.id)): use a new key for a new report")
        }
        return .json(
            json(stored), status: 200,
            headers: [("Location", "/v1/reports/\(stored.id)"), ("Idempotent-Replayed", "true")])
    }

    /// The request's `Idempotency-Key`, checked: 1-255 visible ASCII characters.
    static func idempotencyKey(_ request: HTTPRequest) throws -> String? {
        guard let key = request.header("idempotency-key") else { return nil }
        guard !key.isEmpty, key.utf8.count <= maxIdempotencyKey, key.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw HTTPError.badRequest(
                "Idempotency-Key must be 1-\(maxIdempotencyKey) visible ASCII characters (a UUID is a good key)")
        }
        return key
    }

    /// A report id (UUID-shaped, lowercase) derived from the key and the token's name, so every
    /// replica derives the same id and two clients with different tokens never share one.
    static func reportID(idempotencyKey key: String, token: String) -> String {
        var digest = SHA256.hash(Array("symbolicate-report\u{0}\(token)\u{0}\(key)".utf8))
        digest[6] = (digest[6] & 0x0F) | 0x80  // RFC 9562 version 8: a name-based id of our own
        digest[8] = (digest[8] & 0x3F) | 0x80  // the RFC's variant
        let hex = hexString(Array(digest.prefix(16)))
        var id = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { id.append("-") }
            id.append(character)
        }
        return id
    }

    static func get(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let id = try reportID(request)
        let view = request.query["view"].flatMap { $0.isEmpty ? nil : $0.lowercased() } ?? "json"
        guard StoredReports.views.contains(view) else {
            let allowed = StoredReports.views.joined(separator: ", ")
            throw HTTPError.badRequest("unknown view '\(request.query["view"] ?? "")'; use one of \(allowed)")
        }
        guard let stored = try context.reports.report(id: id) else {
            throw HTTPError.notFound("no stored report with id \(id)")
        }
        if view == "raw" {
            var headers: [(String, String)] = []
            if !stored.missing.isEmpty {
                headers.append(("X-Symbolicate-Missing", stored.missing.joined(separator: ",")))
            }
            return HTTPResponse(contentType: stored.contentType, body: stored.output, headers: headers)
        }
        return .json(json(stored))
    }

    /// `GET /v1/reports?limit=N&missing=UUID&app=APP&version=VERSION`: the most recently written
    /// reports first, each with what tells it apart (app, version, OS, exception type, crashed
    /// function, missing builds, crash group) where the report storage keeps it.
    static func list(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let limit = try request.wholeNumber("limit", default: 100, in: 1...1000)
        var missing: String? = nil
        if let text = request.query["missing"], !text.isEmpty {
            guard let uuid = BuildID(string: text) else {
                throw HTTPError.badRequest("missing=\(text) is not a UUID (hex digits, dashes optional)")
            }
            missing = uuid.uuidString
        }
        let app = request.query["app"].flatMap { $0.isEmpty ? nil : $0 }
        let version = request.query["version"].flatMap { $0.isEmpty ? nil : $0 }
        let filter = ReportFilter(missing: missing, app: app, version: version)
        let listings = try context.reports.list(limit: limit, filter: filter)
        let formatter = ISO8601DateFormatter()
        var body: [String: Any] = [
            "reports": listings.map { listing -> [String: Any] in
                var item: [String: Any] = [
                    "id": listing.id, "url": "/v1/reports/\(listing.id)",
                    "updated_at": formatter.string(from: Date(timeIntervalSince1970: listing.updatedAt)),
                ]
                if let facts = listing.facts {
                    item["app"] = facts.app
                    item["version"] = facts.version ?? CrashSignature.unknownVersion
                    if let os = facts.os { item["os"] = os }
                    item["exception_type"] = facts.exceptionType
                    if let function = facts.crashedFunction { item["crashed_function"] = function }
                    if let group = facts.groupID { item["group_id"] = group }
                }
                if let count = listing.missingCount { item["missing_count"] = count }
                return item
            },
            "limit": limit,
        ]
        if let missing { body["missing"] = missing }
        if let app { body["app"] = app }
        if let version { body["version"] = version }
        return .json(body)
    }

    static func delete(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let id = try reportID(request)
        guard try context.reports.delete(id: id) else { throw HTTPError.notFound("no stored report with id \(id)") }
        context.log.event("report_deleted", ["report": id, "token": request.tokenName ?? ""])
        return .json(["deleted": id])
    }

    static func missing(_ request: HTTPRequest, context: ServiceContext) throws -> HTTPResponse {
        let limit = try request.wholeNumber("limit", default: 1000, in: 1...10_000)
        let entries = try context.reports.missingSummary(limit: limit)
        // System images grouped by the dyld shared cache that holds them: one import for them all.
        var caches: [(cache: String, images: [String])] = []
        for entry in entries {
            guard let cache = entry.cache else { continue }
            if let i = caches.firstIndex(where: { $0.cache == cache }) {
                if !caches[i].images.contains(entry.name) { caches[i].images.append(entry.name) }
            } else {
                caches.append((cache, [entry.name]))
            }
        }
        var body: [String: Any] = [
            "missing": entries.map { entry -> [String: Any] in
                var item: [String: Any] = ["uuid": entry.uuid, "name": entry.name, "reports": entry.reports]
                if let cache = entry.cache { item["dyld_cache"] = cache }
                return item
            }
        ]
        if !caches.isEmpty {
            body["dyld_caches"] = caches.map { cache -> [String: Any] in
                [
                    "cache": cache.cache, "images": cache.images,
                    "advice": "import the dyld shared cache of \(cache.cache): \(cache.images.joined(separator: ", "))",
                ]
            }
        }
        return .json(body)
    }

    /// The `{id}` of the path: a report id as POST answered it, lowercased.
    private static func reportID(_ request: HTTPRequest) throws -> String {
        guard let id = request.parameters["id"], !id.isEmpty, id.count <= 64,
            id.allSatisfy({ ($0.isASCII && $0.isHexDigit) || $0 == "-" })
        else { throw HTTPError.badRequest("a report id is a UUID as POST /v1/reports answered it") }
        return id.lowercased()
    }

    /// What one re-symbolication pass did.
    struct Resymbolication: Sendable, Equatable {
        /// Reports rewritten.
        var rewritten = 0
        /// True when the storage failed for some report (logged): the pass should be tried again.
        var failed = false
    }

    /// The UUIDs stored reports wait for that the store has builds for, with those builds: what
    /// ReportWatcher looks at every few seconds, and what an upload whose import's report was lost
    /// re-symbolicates (it cannot tell which builds it brought).
    static func waitingBuilds(context: ServiceContext) throws -> [(uuid: String, builds: [StoredBuild])] {
        var found: [(uuid: String, builds: [StoredBuild])] = []
        for uuid in try context.reports.waitingUUIDs() {
            guard let buildID = BuildID(string: uuid) else { continue }
            let builds = try context.store.builds(matching: buildID)
            if !builds.isEmpty { found.append((uuid, builds)) }
        }
        return found
    }

    /// Symbolicates again every stored report waiting for one of these UUIDs. Never throws: the
    /// build has arrived whatever happens here, so a storage failure is logged and reported in
    /// the result (ReportWatcher then tries again), and one report that fails never stops the rest.
    ///
    /// Replicas (and the upload and the watcher of one replica) may do this for the same report at
    /// once. Each rewrite is a compare-and-swap on the revision it read, and happens only when the
    /// new result misses strictly fewer images than the stored one. So:
    /// - two writers with the same builds compute the same result (re-symbolication is a pure
    ///   function of the report and the builds): one swap wins, the other re-reads, finds nothing
    ///   to improve and stops; the stored report is that result;
    /// - a writer whose view of the store is older (it has not seen a build yet) never overwrites
    ///   a better result, so no update is lost and the set of missing images only shrinks;
    /// - hence a mark deleted for an image no longer missing is never needed again, and every image
    ///   a stored report misses keeps its mark, so a later build still finds the report;
    /// - a report deleted meanwhile is not written back (the swap finds it gone).
    static func resymbolicate(uuids: [String], context: ServiceContext) -> Resymbolication {
        var result = Resymbolication()
        var ids = Set<String>()
        for uuid in Set(uuids) {
            do {
                ids.formUnion(try context.reports.reportsMissing(uuid))
            } catch {
                context.log.event("resymbolicate_failed", ["uuid": uuid, "error": "\(error)"])
                result.failed = true
            }
        }
        for id in ids.sorted() {
            do {
                if try resymbolicate(id: id, context: context) { result.rewritten += 1 }
            } catch {
                context.log.event("resymbolicate_failed", ["report": id, "error": "\(error)"])
                result.failed = true
            }
        }
        context.metrics.recordResymbolicated(result.rewritten)
        if result.rewritten > 0 { context.log.event("resymbolicated", ["reports": String(result.rewritten)]) }
        return result
    }

    /// One report's compare-and-swap loop; true when this call rewrote it.
    private static func resymbolicate(id: String, context: ServiceContext) throws -> Bool {
        for _ in 0..<maxReplaceAttempts {
            guard let old = try context.reports.report(id: id) else { return false }
            let format = old.format.flatMap { OutputFormat(rawValue: $0) }
            let processed: ProcessedReport
            do {
                processed = try context.process(old.original, format: format, counted: false)
            } catch {
                context.log.event("resymbolicate_failed", ["report": id, "error": "\(error)"])
                return false
            }
            let new = record(
                id: id, createdAt: old.createdAt, format: old.format, original: old.original, processed: processed)
            guard Set(new.missing).isStrictSubset(of: old.missing) else { return false }
            switch try context.reports.replace(old, with: new) {
            case .replaced: return true
            case .gone: return false
            case .conflict: continue
            }
        }
        context.log.event("resymbolicate_contended", ["report": id])
        return false
    }

    private static func record(
        id: String, createdAt: Double, format: String?, original: [UInt8], processed: ProcessedReport
    ) -> StoredReport {
        var names: [String: String] = [:]
        var caches: [String: String] = [:]
        let advice = DyldCacheAdvice.advise(processed.report, missing: processed.outcome.missing)
        for image in processed.outcome.missing {
            guard let uuid = image.uuid?.uuidString else { continue }
            names[uuid] = image.name
            let arch = image.arch ?? processed.report.arch
            if SystemImage.isSystem(image),
                let cache = advice.first(where: { $0.arch == arch && $0.images.contains(image.name) })
            {
                caches[uuid] = cache.cache
            }
        }
        return StoredReport(
            id: id, createdAt: createdAt, updatedAt: Date().timeIntervalSince1970, format: format, original: original,
            output: processed.output, contentType: processed.contentType,
            framesSymbolicated: processed.outcome.symbolicatedFrames, framesTotal: processed.outcome.totalFrames,
            missing: SymbolicationServer.missingUUIDs(processed.outcome).sorted(), missingNames: names,
            missingCaches: caches, facts: listingFacts(processed))
    }

    /// What a listing shows of a processed report.
    static func listingFacts(_ processed: ProcessedReport) -> ListingFacts {
        let summary = ReportSummary(processed.report)
        let crash = CrashSignature(processed.report, processed.outcome, summary: summary)
        return ListingFacts(
            app: crash.app, version: crash.appVersion, os: summary.os, exceptionType: crash.exceptionType,
            crashedFunction: crash.crashedFunction, groupID: crash.groupID)
    }

    private static func json(_ stored: StoredReport) -> [String: Any] {
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
