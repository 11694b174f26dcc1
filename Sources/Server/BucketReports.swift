// Stored reports in a bucket (`--store s3://BUCKET/PREFIX`), shared by every replica, so a report
// posted to one is read, listed, deleted and re-symbolicated through any other. Layout under the
// prefix:
//
//   reports/items/<id>.json            the report: JSON with its metadata, the original bytes
//                                      and the latest output (base64); one PUT writes it whole
//   reports/waiting/<UUID>/<id>        a mark: report <id> misses the image <UUID>; the body is
//                                      the image's name, and for a system image a second line
//                                      with the dyld shared cache that holds it (`21F79 arm64e`)
//   reports/recent/<T>-<id>[~<facts>]  an index entry, empty: T is 9999999999999 minus the report's
//                                      updatedAt in milliseconds, 13 digits, so a listing in key
//                                      order is newest first and `list` reads one page, not every key;
//                                      <facts> is what the listing shows of the report (app, version,
//                                      OS, exception type, crashed function, group, missing count) as
//                                      base64url JSON, cut to fit S3's 1,024-byte keys, so a listing
//                                      and its app= and version= filters read keys, not reports
//
// A bucket has no transactions, so the order of writes is what keeps things consistent:
// - create: the marks and the index entry first, then the report with a create-only PUT
//   (If-None-Match: *). A process killed in between leaves marks and an entry without a report
//   (harmless: they are skipped, and the sweep removes them after an hour); never a report that
//   misses an image without its mark, which would never be re-symbolicated. The PUT completes
//   before the caller answers 201.
// - replace: the new index entry, a compare-and-swap PUT (If-Match: the ETag read), then the old
//   entry and the marks of the images no longer missing are deleted. The caller only replaces a
//   report with one that misses a subset of what it missed, so a mark deleted here can never be
//   needed again (see StoredReports). A replace that loses the swap deletes its new entry.
// - delete: the report, then its index entry and its marks.
// The index is a cache of the reports' times and facts: a killed write can leave a second entry for
// a report (the listing keeps the newest per id) or lose one. The retention sweep rebuilds it from
// the reports (giving facts to entries written before entries carried them), and a listing that runs
// out of entries before its limit reads the reports themselves, so reports stored before the index
// existed are listed too (without facts).

import Foundation
import ObjectStorage
import SymbolicateModel

final class BucketReports: ReportStorage {
    /// Layout version written into every report object.
    static let recordVersion = 1
    /// Marks without a report younger than this may belong to a create still in flight.
    static let orphanGracePeriod: Double = 3600

    let location: S3Location
    let client: S3Client
    /// Keys a listing asks for at once (nil: the server's default, 1,000 on S3); tests make it small.
    let pageSize: Int?
    private let names = Locked<[String: String]>([:])
    /// Reads the facts of a report stored without them (by a release before they were kept), for
    /// the retention sweep's rebuild of the index; set by the server, which can parse reports.
    let factsSource = Locked<(@Sendable (StoredReport) -> ListingFacts?)?>(nil)

    init(location: S3Location, configuration: S3Configuration, pageSize: Int? = nil) throws {
        self.location = location
        self.pageSize = pageSize
        do {
            client = try S3Client(configuration: configuration)
        } catch {
            throw SymbolicateError(storage: error)
        }
    }

    var description: String { location.description + "/reports/" }

    // MARK: Keys

    private var itemsPrefix: String { location.key("reports/items/") }
    private var waitingPrefix: String { location.key("reports/waiting/") }
    private func itemKey(_ id: String) -> String { itemsPrefix + id + ".json" }
    private func markKey(uuid: String, id: String) -> String { waitingPrefix + uuid + "/" + id }
    private var recentPrefix: String { location.key("reports/recent/") }

    /// The latest time an index entry can hold, in milliseconds since 1970 (the year 2286).
    static let recentClock: Int64 = 9_999_999_999_999

    /// The index entry's key without facts (as entries were before they carried them).
    private func recentKey(id: String, updatedAt: Double) -> String {
        let milliseconds = updatedAt.isFinite ? (updatedAt * 1000).rounded(.down) : 0
        let inverted = String(Self.recentClock - Int64(max(0, min(Double(Self.recentClock), milliseconds))))
        return recentPrefix + String(repeating: "0", count: max(0, 13 - inverted.count)) + inverted + "-" + id
    }

    /// The index entry's key for `report`: with its facts when it has them.
    private func recentKey(_ report: StoredReport) -> String {
        let base = recentKey(id: report.id, updatedAt: report.updatedAt)
        guard let facts = report.facts,
            let suffix = IndexFacts.encoded(facts, missing: report.missing.count, within: 1024 - base.utf8.count - 1)
        else { return base }
        return base + "~" + suffix
    }

    /// Both keys an entry of `report` may have: with facts, and without (written by a release
    /// before entries carried them).
    private func recentKeys(_ report: StoredReport) -> [String] {
        let keys = [recentKey(report), recentKey(id: report.id, updatedAt: report.updatedAt)]
        return keys[0] == keys[1] ? [keys[0]] : keys
    }

    /// The report, time and facts an index entry stands for.
    private func recentEntry(_ key: String) -> ReportListing? {
        guard let name = S3Location.relativeKey(key, under: recentPrefix), name.count > 14,
            let dash = name.firstIndex(of: "-"),
            name.distance(from: name.startIndex, to: dash) == 13,
            let inverted = Int64(name[..<dash]), (0...Self.recentClock).contains(inverted)
        else { return nil }
        let rest = name[name.index(after: dash)...]
        let id = rest.split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard !id.isEmpty, !id.contains("/") else { return nil }
        var listing = ReportListing(id: String(id), updatedAt: Double(Self.recentClock - inverted) / 1000)
        if id.endIndex < rest.endIndex, let facts = IndexFacts.decoded(rest[rest.index(after: id.endIndex)...]) {
            listing.facts = facts.facts
            listing.missingCount = facts.missing
        }
        return listing
    }

    private func putRecent(_ report: StoredReport) throws {
        try s3 { () throws(ObjectStorageError) in
            try client.putObject(bucket: location.bucket, key: recentKey(report), bytes: [])
        }
    }

    /// Deletes an index entry where the write it belonged to did not happen; the sweep would too.
    private func dropRecent(_ report: StoredReport) {
        try? client.deleteObject(bucket: location.bucket, key: recentKey(report))
    }

    // MARK: ReportStorage

    func create(_ report: StoredReport) throws -> (stored: StoredReport, created: Bool) {
        for uuid in report.missing {
            try s3 { () throws(ObjectStorageError) in
                try client.putObject(
                    bucket: location.bucket, key: markKey(uuid: uuid, id: report.id),
                    bytes: Array(
                        ((report.missingNames[uuid] ?? "") + (report.missingCaches[uuid].map { "\n" + $0 } ?? "")).utf8),
                    contentType: "text/plain; charset=utf-8")
            }
        }
        let bytes = try encode(report)
        try putRecent(report)
        do {
            let etag = try client.putObject(
                bucket: location.bucket, key: itemKey(report.id), bytes: bytes,
                contentType: "application/json", createOnly: true)
            var stored = report
            stored.revision = etag
            return (stored, true)
        } catch  where error.code == .preconditionFailed {
            // Created meanwhile (the same Idempotency-Key on another replica, or our own PUT whose
            // answer was lost and retried): the stored one is the answer.
            guard let stored = try self.report(id: report.id) else { throw SymbolicateError(storage: error) }
            if recentKey(report) != recentKey(stored) { dropRecent(report) }
            return (stored, false)
        } catch {
            dropRecent(report)
            throw SymbolicateError(storage: error)
        }
    }

    func report(id: String) throws -> StoredReport? {
        let object: (body: [UInt8], info: ObjectInfo)
        do throws(ObjectStorageError) {
            object = try client.getObject(bucket: location.bucket, key: itemKey(id))
        } catch  where error.code == .noSuchKey {
            return nil
        } catch {
            throw SymbolicateError(storage: error)
        }
        var report = try decode(object.body, key: itemKey(id))
        report.revision = object.info.etag
        return report
    }

    func replace(_ old: StoredReport, with new: StoredReport) throws -> ReplaceOutcome {
        guard Set(new.missing).isSubset(of: old.missing), let etag = old.revision else {
            throw SymbolicateError(.internal, "a stored report may only be replaced by one that misses less")
        }
        let bytes = try encode(new)
        let moves = recentKey(new) != recentKey(old)
        if moves { try putRecent(new) }
        do throws(ObjectStorageError) {
            try client.putObject(
                bucket: location.bucket, key: itemKey(new.id), bytes: bytes, contentType: "application/json",
                ifMatch: etag)
        } catch {
            if moves { dropRecent(new) }
            if error.code == .preconditionFailed || error.httpStatus == 409 { return .conflict }
            if error.code == .noSuchKey { return .gone }
            throw SymbolicateError(storage: error)
        }
        if moves {
            try s3 { () throws(ObjectStorageError) in
                for key in recentKeys(old) where key != recentKey(new) {
                    try client.deleteObject(bucket: location.bucket, key: key)
                }
            }
        }
        for uuid in Set(old.missing).subtracting(new.missing) {
            try s3 { () throws(ObjectStorageError) in
                try client.deleteObject(bucket: location.bucket, key: markKey(uuid: uuid, id: new.id))
            }
        }
        return .replaced
    }

    /// Deletes report `id` only while it is the object listed with `etag` (the retention sweep):
    /// false when it changed since (re-symbolicated: no longer expired) or is gone. A server
    /// without conditional deletes (501) deletes it as `delete(id:)` does.
    func delete(id: String, ifListedAs etag: String?) throws -> Bool {
        guard let etag else { return try delete(id: id) }
        // The report as it is now: when the delete below succeeds, this was the version listed
        // (a newer one would have failed the If-Match), so its index entries and marks are the ones to remove.
        guard let report = try report(id: id) else { return false }
        do throws(ObjectStorageError) {
            try client.deleteObject(bucket: location.bucket, key: itemKey(id), ifMatch: etag)
        } catch  where error.code == .preconditionFailed || error.httpStatus == 409 {
            return false
        } catch  where error.code == .noSuchKey {
            return false
        } catch  where error.httpStatus == 501 {
            try s3 { () throws(ObjectStorageError) in try client.deleteObject(bucket: location.bucket, key: itemKey(id))
            }
        } catch {
            throw SymbolicateError(storage: error)
        }
        try removeLeftovers(of: report)
        return true
    }

    func delete(id: String) throws -> Bool {
        guard let report = try report(id: id) else { return false }
        try s3 { () throws(ObjectStorageError) in try client.deleteObject(bucket: location.bucket, key: itemKey(id)) }
        try removeLeftovers(of: report)
        return true
    }

    /// What a deleted report leaves: its index entries and its marks.
    private func removeLeftovers(of report: StoredReport) throws {
        try s3 { () throws(ObjectStorageError) in
            for key in recentKeys(report) { try client.deleteObject(bucket: location.bucket, key: key) }
            for uuid in report.missing {
                try client.deleteObject(bucket: location.bucket, key: markKey(uuid: uuid, id: report.id))
            }
        }
    }

    func list(limit: Int, missing: String?) throws -> [ReportListing] {
        try list(limit: limit, filter: ReportFilter(missing: missing))
    }

    /// The index's entries, newest first; app= and version= match the facts entries carry, so a
    /// report whose entry has none (stored by a release before entries carried them, until the
    /// retention sweep rebuilds the index) is not listed under a filter by app or version.
    func list(limit: Int, filter: ReportFilter) throws -> [ReportListing] {
        guard limit > 0 else { return [] }
        let byFacts = filter.app != nil || filter.version != nil
        func selected(_ entry: ReportListing) -> Bool {
            if let app = filter.app, entry.facts?.app != app { return false }
            if let version = filter.version, entry.facts?.version != version { return false }
            return true
        }
        let wanted = try filter.missing.map { Set(try reportsMissing($0)) }
        if let wanted, wanted.isEmpty { return [] }
        // The index, newest first, one entry per report, until `limit` (or every waiting report).
        var listed: [ReportListing] = []
        var seen = Set<String>()
        var token: String? = nil
        index: repeat {
            let page = try s3 { () throws(ObjectStorageError) in
                try client.listObjects(
                    bucket: location.bucket, prefix: recentPrefix, continuationToken: token,
                    maxKeys: pageSize ?? min(1000, limit + 16))
            }
            for object in page.objects {
                guard let entry = recentEntry(object.key), seen.insert(entry.id).inserted else { continue }
                if let wanted, !wanted.contains(entry.id) { continue }
                if !selected(entry) { continue }
                listed.append(entry)
                if listed.count == limit || listed.count == wanted?.count { break index }
            }
            token = page.isTruncated ? page.nextContinuationToken : nil
        } while token != nil
        guard listed.count < limit, listed.count != wanted?.count, !byFacts else { return listed }
        // Fewer entries than asked for: the bucket may hold reports without one (stored before the
        // index, or a write that died); the reports themselves say which exist.
        var items = try listItems()
        if let wanted { items = items.filter { wanted.contains($0.id) } }
        let indexed = Dictionary(listed.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        items = items.map { indexed[$0.id] ?? $0 }
        return Array(items.sorted { ($0.updatedAt, $1.id) > ($1.updatedAt, $0.id) }.prefix(limit))
    }

    func waitingUUIDs() throws -> [String] {
        let page = try s3 { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: waitingPrefix, delimiter: "/")
        }
        return page.commonPrefixes.compactMap { prefix in
            guard let folder = S3Location.relativeKey(prefix, under: waitingPrefix), folder.hasSuffix("/") else {
                return nil
            }
            let uuid = folder.dropLast()
            return uuid.isEmpty ? nil : String(uuid)
        }
        .sorted()
    }

    func reportsMissing(_ uuid: String) throws -> [String] {
        let prefix = waitingPrefix + uuid + "/"
        let page = try s3 { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: prefix)
        }
        return page.objects.compactMap { S3Location.relativeKey($0.key, under: prefix) }.filter { !$0.isEmpty }.sorted()
    }

    func missingSummary(limit: Int) throws -> [MissingEntry] {
        var counts: [String: (reports: Int, firstKey: String)] = [:]
        for mark in try listMarks() {
            counts[mark.uuid, default: (0, mark.key)].reports += 1
        }
        let top = counts.sorted { ($1.value.reports, $0.key) < ($0.value.reports, $1.key) }.prefix(limit)
        return try top.map { uuid, entry in
            let mark = try name(of: uuid, markKey: entry.firstKey)
            let lines = mark.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            return MissingEntry(
                uuid: uuid, name: String(lines[0]), reports: entry.reports,
                cache: lines.count > 1 && !lines[1].isEmpty ? String(lines[1]) : nil)
        }
    }

    func count() throws -> Int? { nil }

    func checkReachable() throws {
        _ = try s3 { () throws(ObjectStorageError) in
            try client.listObjects(bucket: location.bucket, prefix: location.key("reports/"), maxKeys: 1)
        }
    }

    func removeExpired(before cutoff: Double, dryRun: Bool) throws -> [String] {
        let listed = try listItemObjects()
        let items = listed.map(\.listing)
        let candidates = listed.filter { $0.listing.updatedAt < cutoff }
        guard !dryRun else { return candidates.map(\.listing.id) }
        // Each only while it is the object listed (If-Match): a report re-symbolicated since the
        // listing is not expired any more, and stays.
        var expired: [String] = []
        for item in candidates where try delete(id: item.listing.id, ifListedAs: item.etag) {
            expired.append(item.listing.id)
        }
        // Marks whose report is gone: a create killed between its marks and its report, or a
        // delete killed between the report and its marks. Young ones may be a create in flight.
        let remaining = Set(items.map(\.id)).subtracting(expired)
        let graceCutoff = Date().timeIntervalSince1970 - BucketReports.orphanGracePeriod
        for mark in try listMarks() where !remaining.contains(mark.id) && mark.modified < graceCutoff {
            try s3 { () throws(ObjectStorageError) in try client.deleteObject(bucket: location.bucket, key: mark.key) }
        }
        try rebuildIndex(reports: remaining, graceCutoff: graceCutoff)
        return expired
    }

    /// Makes the index say what the reports do: an entry for every report (read from the report,
    /// for one stored before the index or whose entry a killed write lost), and none for a report
    /// that is gone or a second one for the same report, unless it is young enough to belong to a
    /// write in flight.
    private func rebuildIndex(reports: Set<String>, graceCutoff: Double) throws {
        let page = try s3 { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: recentPrefix, pageSize: pageSize)
        }
        var indexed = Set<String>()
        for object in page.objects {
            let entry = recentEntry(object.key)
            if let entry, reports.contains(entry.id), indexed.insert(entry.id).inserted {
                if entry.facts == nil { try giveFacts(id: entry.id, entryKey: object.key) }
                continue
            }
            if let entry, entry.updatedAt >= graceCutoff { continue }
            try s3 { () throws(ObjectStorageError) in
                try client.deleteObject(bucket: location.bucket, key: object.key)
            }
        }
        for id in reports.subtracting(indexed).sorted() {
            guard var report = try report(id: id) else { continue }
            if report.facts == nil { report.facts = factsSource.withLock { $0 }?(report) }
            try putRecent(report)
        }
    }

    /// Rewrites the fact-less index entry `entryKey` of report `id` with the report's facts (those
    /// its record holds, else those `factsSource` reads from it); kept as it is when there are none.
    private func giveFacts(id: String, entryKey: String) throws {
        guard var report = try report(id: id) else { return }
        if report.facts == nil { report.facts = factsSource.withLock { $0 }?(report) }
        let key = recentKey(report)
        guard report.facts != nil, key != entryKey else { return }
        try s3 { () throws(ObjectStorageError) in
            try client.putObject(bucket: location.bucket, key: key, bytes: [])
            try client.deleteObject(bucket: location.bucket, key: entryKey)
        }
    }

    // MARK: Helpers

    private func listItems() throws -> [ReportListing] {
        try listItemObjects().map(\.listing)
    }

    /// The report objects, each with the ETag it was listed with.
    private func listItemObjects() throws -> [(listing: ReportListing, etag: String?)] {
        let page = try s3 { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: itemsPrefix, pageSize: pageSize)
        }
        return page.objects.compactMap { object in
            guard let name = S3Location.relativeKey(object.key, under: itemsPrefix), name.hasSuffix(".json"),
                !name.contains("/")
            else { return nil }
            let listing = ReportListing(
                id: String(name.dropLast(5)), updatedAt: BucketReports.seconds(object.lastModified) ?? 0)
            return (listing, object.etag)
        }
    }

    private struct Mark {
        var key: String
        var uuid: String
        var id: String
        var modified: Double
    }

    private func listMarks() throws -> [Mark] {
        let page = try s3 { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: waitingPrefix, pageSize: pageSize)
        }
        return page.objects.compactMap { object in
            guard let parts = S3Location.relativeKey(object.key, under: waitingPrefix).map({ PathParts.split($0) }),
                parts.count == 2
            else { return nil }
            return Mark(
                key: object.key, uuid: String(parts[0]), id: String(parts[1]),
                modified: BucketReports.seconds(object.lastModified) ?? 0)
        }
    }

    /// An image's name as a mark holds it, read once per UUID.
    private func name(of uuid: String, markKey: String) throws -> String {
        if let known = names.withLock({ $0[uuid] }) { return known }
        let name: String
        do throws(ObjectStorageError) {
            name = String(
                decoding: try client.getObject(bucket: location.bucket, key: markKey, maxBytes: 4096).body,
                as: UTF8.self)
        } catch  where error.code == .noSuchKey {
            return ""
        } catch {
            throw SymbolicateError(storage: error)
        }
        names.withLock { cache in
            if cache.count > 10_000 { cache.removeAll() }
            cache[uuid] = name
        }
        return name
    }

    /// ListObjectsV2's `LastModified` (`2026-12-01T01:02:03.000Z`) in seconds since 1970.
    static func seconds(_ text: String?) -> Double? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSince1970
    }

    @discardableResult
    private func s3<T>(_ body: () throws(ObjectStorageError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw SymbolicateError(storage: error)
        }
    }

    // MARK: The report object

    private struct Record: Codable {
        var version: Int
        var id: String
        var createdAt: Double
        var updatedAt: Double
        var format: String?
        var contentType: String
        var framesSymbolicated: Int
        var framesTotal: Int
        /// Missing UUID -> image name.
        var missing: [String: String]
        var original: Data
        var output: Data
        /// What a listing shows, as JSON of ListingFacts with its own keys (as reports.sqlite keeps
        /// it: the record's snake_case key strategy would not bring `groupID` back); absent in
        /// reports stored before it was kept.
        var facts: String?
    }

    private func encode(_ report: StoredReport) throws -> [UInt8] {
        var missing: [String: String] = [:]
        for uuid in report.missing { missing[uuid] = report.missingNames[uuid] ?? "" }
        let record = Record(
            version: BucketReports.recordVersion, id: report.id, createdAt: report.createdAt,
            updatedAt: report.updatedAt, format: report.format, contentType: report.contentType,
            framesSymbolicated: report.framesSymbolicated, framesTotal: report.framesTotal, missing: missing,
            original: Data(report.original), output: Data(report.output),
            facts: report.facts.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) })
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(record))
    }

    private func decode(_ bytes: [UInt8], key: String) throws -> StoredReport {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let record: Record
        do {
            record = try decoder.decode(Record.self, from: Data(bytes))
        } catch {
            throw SymbolicateError(
                .io, "s3://\(location.bucket)/\(key) is not a stored report this version can read (damaged?)")
        }
        guard record.version <= BucketReports.recordVersion else {
            throw SymbolicateError(
                .io, "s3://\(location.bucket)/\(key) was written by a newer version (layout \(record.version))")
        }
        return StoredReport(
            id: record.id, createdAt: record.createdAt, updatedAt: record.updatedAt, format: record.format,
            original: Array(record.original), output: Array(record.output), contentType: record.contentType,
            framesSymbolicated: record.framesSymbolicated, framesTotal: record.framesTotal,
            missing: record.missing.keys.sorted(), missingNames: record.missing,
            facts: record.facts.flatMap { try? JSONDecoder().decode(ListingFacts.self, from: Data($0.utf8)) })
    }
}

/// An index entry's facts, as the key carries them: compact JSON, base64url without padding.
enum IndexFacts {
    private struct Payload: Codable {
        var facts: ListingFacts
        var missing: Int
    }

    /// The facts and missing count in at most `budget` bytes; long text is cut (the crashed
    /// function first, down to nothing), and nil when even that does not fit.
    static func encoded(_ facts: ListingFacts, missing: Int, within budget: Int) -> String? {
        var clipped = facts
        clipped.app = clip(facts.app, 96)
        clipped.version = facts.version.map { clip($0, 48) }
        clipped.os = facts.os.map { clip($0, 64) }
        clipped.exceptionType = clip(facts.exceptionType, 64)
        clipped.groupID = facts.groupID.map { clip($0, 64) }
        for functionBytes in [256, 96, 0] {
            clipped.crashedFunction = functionBytes == 0 ? nil : facts.crashedFunction.map { clip($0, functionBytes) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard let json = try? encoder.encode(Payload(facts: clipped, missing: missing)) else { return nil }
            let text = json.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            if text.utf8.count <= budget { return text }
        }
        return nil
    }

    static func decoded(_ text: Substring) -> (facts: ListingFacts, missing: Int)? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let payload = try? JSONDecoder().decode(Payload.self, from: data)
        else { return nil }
        return (payload.facts, payload.missing)
    }

    /// `text` cut to at most `bytes` UTF-8 bytes, on a character boundary.
    private static func clip(_ text: String, _ bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var result = ""
        for character in text {
            if result.utf8.count + character.utf8.count > bytes { break }
            result.append(character)
        }
        return result
    }
}
