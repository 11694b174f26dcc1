// Listing the stored reports of a bucket, against moto's server on loopback: the newest reports
// come from the first page of the time-ordered index (one ListObjectsV2 call however many reports
// the bucket holds), in the order the folder backend (reports.sqlite) gives for the same reports,
// through creates, re-symbolications and deletes; reports stored before the index existed are
// still listed, and the retention sweep indexes them and drops entries no report owns. The entries
// carry each report's listing facts (app, version, ...), so app= and version= filter keys too;
// facts too long for a key are cut, and entries written before they carried facts get them from
// the sweep.

import Foundation
import ObjectStorage
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

@Suite(
    "Listing stored reports in a bucket",
    .needsMoto)
struct BucketReportListingTests {
    static let waiting = "0A0B0C0D-0000-4000-8000-000000000001"

    /// A bucket's reports listing 10 keys a page, and a folder's, holding the same 30 reports
    /// (`r0` oldest); every other one waits for `waiting`.
    static func twoBackends() throws -> (bucket: BucketReports, folder: ReportDatabase, cleanup: () -> Void) {
        let (configuration, location) = try MotoStandIn.bucket()
        let bucket = try BucketReports(
            location: try S3Location(parsing: location), configuration: configuration, pageSize: 10)
        let directory = NSTemporaryDirectory() + "symbolicate-listing-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let folder = try ReportDatabase(path: directory + "/reports.sqlite")
        for i in 0..<30 {
            let report = StoredReportTests.stored(
                "r\(i)", updatedAt: 1_000 + Double(i), missing: i.isMultiple(of: 2) ? [waiting] : [])
            _ = try bucket.create(report)
            _ = try folder.create(report)
        }
        return (bucket, folder, { try? FileManager.default.removeItem(atPath: directory) })
    }

    static func listCalls(_ storage: BucketReports) -> UInt64 {
        storage.client.metrics.snapshot()["ListObjectsV2"]?.requests ?? 0
    }

    @Test func theNewestReportsComeFromOnePageOfTheIndex() throws {
        let (bucket, folder, cleanup) = try Self.twoBackends()
        defer { cleanup() }

        let before = Self.listCalls(bucket)
        let newest = try bucket.list(limit: 5, missing: nil)
        #expect(Self.listCalls(bucket) - before == 1)
        #expect(newest.map(\.id) == ["r29", "r28", "r27", "r26", "r25"])
        #expect(newest == (try folder.list(limit: 5, missing: nil)))
        #expect(try bucket.list(limit: 3, missing: Self.waiting) == (try folder.list(limit: 3, missing: Self.waiting)))

        // Re-symbolicated: r0 becomes the newest, listed once.
        for storage in [bucket, folder] as [any ReportStorage] {
            let old = try #require(try storage.report(id: "r0"))
            var new = old
            new.updatedAt = 2_000
            new.missing = []
            #expect(try storage.replace(old, with: new) == .replaced)
        }
        #expect(try bucket.list(limit: 2, missing: nil).map(\.id) == ["r0", "r29"])
        #expect(try bucket.list(limit: 100, missing: nil) == (try folder.list(limit: 100, missing: nil)))
        #expect(try bucket.list(limit: 3, missing: Self.waiting) == (try folder.list(limit: 3, missing: Self.waiting)))

        // Deleted: gone from the listing.
        #expect(try bucket.delete(id: "r29"))
        #expect(try folder.delete(id: "r29"))
        #expect(try bucket.list(limit: 3, missing: nil).map(\.id) == ["r0", "r28", "r27"])
        #expect(try bucket.list(limit: 100, missing: nil) == (try folder.list(limit: 100, missing: nil)))
    }

    @Test func reportsStoredBeforeTheIndexAreListedAndTheSweepIndexesThem() throws {
        let (bucket, folder, cleanup) = try Self.twoBackends()
        defer { cleanup() }
        // A bucket written before the index: no entries, but r5's (kept for the next case).
        let recent = bucket.location.key("reports/recent/")
        let entries = try bucket.client.listAllObjects(bucket: bucket.location.bucket, prefix: recent).objects
        #expect(entries.count == 30)
        for entry in entries where !entry.key.hasSuffix("-r5") {
            try bucket.client.deleteObject(bucket: bucket.location.bucket, key: entry.key)
        }
        // An entry no report owns, and an older second entry for r5: a re-symbolication killed
        // between its write and removing the entry it replaced.
        for key in ["9999999000000-ghost", "9999999000000-r5"] {
            _ = try bucket.client.putObject(bucket: bucket.location.bucket, key: recent + key, bytes: [])
        }

        let all = try bucket.list(limit: 100, missing: nil)
        #expect(Set(all.map(\.id)) == Set((0..<30).map { "r\($0)" }))
        #expect(try bucket.list(limit: 100, missing: Self.waiting).count == 15)

        // The sweep (nothing is old enough to expire) rebuilds the index from the reports.
        #expect(try bucket.removeExpired(before: 0, dryRun: false) == [])
        let after = try bucket.client.listAllObjects(bucket: bucket.location.bucket, prefix: recent).objects
        #expect(after.count == 30)
        let before = Self.listCalls(bucket)
        #expect(try bucket.list(limit: 5, missing: nil) == (try folder.list(limit: 5, missing: nil)))
        #expect(Self.listCalls(bucket) - before == 1)
        #expect(try bucket.list(limit: 100, missing: nil) == (try folder.list(limit: 100, missing: nil)))
    }

    static func facts(_ app: String, version: String?, function: String? = "main") -> ListingFacts {
        ListingFacts(
            app: app, version: version, os: "iPhone OS 17.2 (21C62)", exceptionType: "EXC_CRASH (SIGABRT)",
            crashedFunction: function, groupID: "g-" + app)
    }

    @Test func entriesCarryFactsAndFilterAsTheFolderDoes() throws {
        let (configuration, location) = try MotoStandIn.bucket()
        let bucket = try BucketReports(
            location: try S3Location(parsing: location), configuration: configuration, pageSize: 10)
        let directory = NSTemporaryDirectory() + "symbolicate-facts-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = try ReportDatabase(path: directory + "/reports.sqlite")
        for i in 0..<12 {
            var report = StoredReportTests.stored(
                "r\(i)", updatedAt: 1_000 + Double(i), missing: i.isMultiple(of: 3) ? [Self.waiting] : [])
            report.facts = Self.facts(i.isMultiple(of: 2) ? "com.example.A" : "com.example.B", version: "1.\(i % 4)")
            _ = try bucket.create(report)
            _ = try folder.create(report)
        }
        for filter in [
            ReportFilter(), ReportFilter(app: "com.example.A"), ReportFilter(version: "1.1"),
            ReportFilter(missing: Self.waiting, app: "com.example.A"),
            ReportFilter(app: "com.example.B", version: "1.3"),
            ReportFilter(app: "com.example.C"),
        ] {
            for limit in [2, 100] {
                let before = bucket.client.metrics.snapshot()["GetObject"]?.requests ?? 0
                let fromBucket = try bucket.list(limit: limit, filter: filter)
                #expect(fromBucket == (try folder.list(limit: limit, filter: filter)), "\(filter), limit \(limit)")
                // Keys only: never a read of a report.
                #expect((bucket.client.metrics.snapshot()["GetObject"]?.requests ?? 0) == before)
            }
        }
        let newest = try #require(try bucket.list(limit: 1, filter: ReportFilter()).first)
        #expect(newest.facts == Self.facts("com.example.B", version: "1.3") && newest.missingCount == 0)
    }

    @Test func factsTooLongForAKeyAreCut() throws {
        let (configuration, location) = try MotoStandIn.bucket()
        let bucket = try BucketReports(location: try S3Location(parsing: location), configuration: configuration)
        var report = StoredReportTests.stored("long", updatedAt: 1_000)
        let function = "$s" + String(repeating: "VeryLongGenericSpecialization", count: 80) + "yyF"
        let app = "com.example." + String(repeating: "é", count: 200)
        report.facts = Self.facts(app, version: "1.0", function: function)
        _ = try bucket.create(report)
        let keys = try bucket.client.listAllObjects(bucket: bucket.location.bucket, prefix: "").objects.map(\.key)
        #expect(keys.allSatisfy { $0.utf8.count <= 1024 }, "\(keys.map(\.utf8.count))")
        let listed = try #require(try bucket.list(limit: 1, missing: nil).first)
        let facts = try #require(listed.facts)
        #expect(app.hasPrefix(facts.app) && facts.app.utf8.count <= 96 && facts.app.utf8.count > 80)
        #expect(facts.crashedFunction.map { function.hasPrefix($0) } ?? true)
        #expect(facts.version == "1.0" && listed.missingCount == 1)
        // The report itself keeps them whole.
        #expect(try bucket.report(id: "long")?.facts == report.facts)
    }

    /// Entries written before entries carried facts: the sweep gives them the facts the report
    /// records, or, for a report stored without any, those the server reads from it.
    @Test func theSweepGivesOldEntriesTheirFacts() throws {
        let (configuration, location) = try MotoStandIn.bucket()
        let bucket = try BucketReports(location: try S3Location(parsing: location), configuration: configuration)
        var recorded = StoredReportTests.stored("recorded", updatedAt: 1_000, missing: [])
        recorded.facts = Self.facts("com.example.Recorded", version: "3.0")
        _ = try bucket.create(recorded)
        _ = try bucket.create(StoredReportTests.stored("bare", updatedAt: 1_001, missing: []))
        // Make `recorded`'s entry one without facts, as an older replica wrote it.
        let recent = bucket.location.key("reports/recent/")
        let entries = try bucket.client.listAllObjects(bucket: bucket.location.bucket, prefix: recent).objects
        let withFacts = try #require(entries.first { $0.key.contains("-recorded~") }).key
        try bucket.client.deleteObject(bucket: bucket.location.bucket, key: withFacts)
        _ = try bucket.client.putObject(
            bucket: bucket.location.bucket, key: String(withFacts[..<withFacts.firstIndex(of: "~")!]), bytes: [])
        #expect(try bucket.list(limit: 10, filter: ReportFilter(app: "com.example.Recorded")).isEmpty)

        bucket.factsSource.withLock {
            $0 = { report in Self.facts("read from " + report.id, version: nil) }
        }
        #expect(try bucket.removeExpired(before: 0, dryRun: false) == [])
        let listed = try bucket.list(limit: 10, missing: nil)
        #expect(listed.map(\.id) == ["bare", "recorded"])
        #expect(listed.map { $0.facts?.app } == ["read from bare", "com.example.Recorded"])
        #expect(try bucket.list(limit: 10, filter: ReportFilter(app: "com.example.Recorded")).map(\.id) == ["recorded"])
        let after = try bucket.client.listAllObjects(bucket: bucket.location.bucket, prefix: recent).objects
        #expect(after.count == 2, "\(after.map(\.key))")
    }
}

/// The retention sweep deletes a report only while it is the object it listed: one
/// re-symbolicated since (a new ETag) is not expired any more and stays.
@Suite(.needsMoto)
struct BucketRetentionRaceTests {
    @Test func aReportReplacedSinceTheListingStays() throws {
        let (configuration, location) = try MotoStandIn.bucket()
        let bucket = try BucketReports(location: try S3Location(parsing: location), configuration: configuration)
        _ = try bucket.create(StoredReportTests.stored("old", updatedAt: 1_000))
        let listed = try #require(try bucket.report(id: "old")?.revision)
        // Re-symbolicated after the sweep listed it.
        let before = try #require(try bucket.report(id: "old"))
        var after = before
        after.updatedAt = 2_000
        after.missing = []
        #expect(try bucket.replace(before, with: after) == .replaced)

        #expect(try bucket.delete(id: "old", ifListedAs: listed) == false)
        #expect(try bucket.report(id: "old")?.updatedAt == 2_000)
        // Listed as it is now, it goes, with its index entry.
        let now = try #require(try bucket.report(id: "old")?.revision)
        #expect(try bucket.delete(id: "old", ifListedAs: now))
        #expect(try bucket.report(id: "old") == nil)
        #expect(try bucket.list(limit: 10, missing: nil).isEmpty)
    }
}
