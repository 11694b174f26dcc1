// Stored reports in a bucket, against moto's server on loopback (PyPI moto[server], an in-memory
// stand-in for S3; the stand-in script is the object-storage tests' Fixtures/moto-stand-in.py):
// two server instances over one bucket, each with its own symbol store, share reports (a report
// stored on one is read, listed, deleted and re-symbolicated by an upload on the other), an
// Idempotency-Key gives one report across instances, the compare-and-swap refuses a stale
// writer and a deleted report, and retention removes reports and orphaned marks.

import Foundation
import Import
import ObjectStorage
import Store
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

enum MotoStandIn {
    /// A fresh bucket; answers its configuration and `s3://BUCKET/PREFIX`.
    static func bucket() throws -> (configuration: S3Configuration, location: String) {
        let retry = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05)
        let (_, bucket, endpoint) = try MotoServer.freshBucket(prefix: "reports-", retry: retry)
        return (MotoServer.configuration(endpoint, retry: retry), "s3://\(bucket)/team/a")
    }
}

@Suite(
    "Stored reports in a bucket",
    .needsMoto)
struct BucketReportTests {
    static let variant = StoredReportTests.variant

    static func server(_ bucket: (configuration: S3Configuration, location: String)) throws -> TestServer {
        try TestServer {
            $0.reportStore = bucket.location
            $0.objectStorage = bucket.configuration
            $0.reportWatchInterval = 0
        }
    }

    /// HoldApp's symbols imported into both instances (each has its own symbol store here; in a
    /// deployment they share one), and the sample report posted to `one`: the report, the answer,
    /// and HoldKit's UUID, which the report still misses.
    static func postWithoutHoldKit(
        _ one: TestServer, _ two: TestServer
    ) throws -> (report: [UInt8], posted: TestResponse, holdKit: String) {
        let app = try #require(Fixtures.build("\(variant)/HoldApp.app.dSYM"))
        try one.importDirectly([app])
        try two.importDirectly([app])
        let holdKit = try #require(Fixtures.uuids(variant: variant)["HoldKit"])
        let report = try StoredReportTests.report()
        return (report, try one.post("/v1/reports", report, headers: one.auth), holdKit)
    }

    @Test(.enabled(if: UploadTests.ready, "\(UploadTests.notReady)"))
    func aReportStoredOnOneInstanceIsResymbolicatedByAnUploadOnAnother() throws {
        let bucket = try MotoStandIn.bucket()
        let one = try Self.server(bucket)
        let two = try Self.server(bucket)
        let (report, posted, holdKit) = try Self.postWithoutHoldKit(one, two)
        #expect(posted.status == 201)
        let id = try #require(posted.json()["id"] as? String)
        #expect((posted.json()["missing"] as? [String] ?? []).contains(holdKit))
        let before = posted.json()["frames_symbolicated"] as? Int ?? -1

        let read = try two.get("/v1/reports/\(id)")
        #expect(read.status == 200)
        #expect(read.json()["report"] as? String == posted.json()["report"] as? String)
        let waiting = try two.get("/v1/missing").json()["missing"] as? [[String: Any]] ?? []
        #expect(
            waiting.contains {
                $0["uuid"] as? String == holdKit && $0["reports"] as? Int == 1 && $0["name"] as? String == "HoldKit"
            })
        let listed = try two.get("/v1/reports?missing=\(holdKit)").json()["reports"] as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["id"] as? String } == [id])

        let upload = try two.post("/v1/symbols", try UploadTests.zip(["HoldKit.framework.dSYM"]), headers: two.auth)
        #expect(upload.status == 201)
        #expect(upload.json()["resymbolicated_reports"] as? Int == 1)

        let after = try one.get("/v1/reports/\(id)")
        #expect(!(after.json()["missing"] as? [String] ?? [holdKit]).contains(holdKit))
        #expect((after.json()["frames_symbolicated"] as? Int ?? 0) > before)
        let raw = try one.get("/v1/reports/\(id)?view=raw")
        #expect(raw.body == (try SymbolicateEndpointTests.expected(two, report, format: nil)).output)
        let stillWaiting = try one.get("/v1/missing").json()["missing"] as? [[String: Any]] ?? []
        #expect(!stillWaiting.contains { $0["uuid"] as? String == holdKit })

        // Deleted through one instance, gone on the other.
        let deleted = try TestHTTP.request(port: two.port, "DELETE", "/v1/reports/\(id)", headers: two.auth)
        #expect(deleted.status == 200)
        #expect(try one.get("/v1/reports/\(id)").status == 404)
    }

    @Test(.enabled(if: StoredReportTests.reportPresent, "\(StoredReportTests.noReport)"))
    func anIdempotencyKeyGivesOneReportAcrossInstances() throws {
        let bucket = try MotoStandIn.bucket()
        let one = try Self.server(bucket)
        let two = try Self.server(bucket)
        let report = try StoredReportTests.report()
        let key = [("Idempotency-Key", "lb-retry-" + UUID().uuidString)]
        let first = try one.post("/v1/reports", report, headers: one.auth + key)
        #expect(first.status == 201)
        let retried = try two.post("/v1/reports", report, headers: two.auth + key)
        #expect(retried.status == 200)
        #expect(retried.json()["id"] as? String == first.json()["id"] as? String)
        let all = try one.get("/v1/reports").json()["reports"] as? [[String: Any]] ?? []
        #expect(all.count == 1)
        #expect(try two.get("/readyz").status == 200)
    }

    @Test func aStaleWriterLosesAndADeletedReportStaysDeleted() throws {
        let bucket = try MotoStandIn.bucket()
        let storage = try #require(
            try ReportStorageLocation(parsing: bucket.location).open(s3: bucket.configuration) as? BucketReports)
        let uuids = ["0A0B0C0D-0000-4000-8000-000000000001", "0A0B0C0D-0000-4000-8000-000000000002"]
        let created = try storage.create(StoredReportTests.stored("r1", updatedAt: 1, missing: uuids))
        #expect(created.created)
        #expect(try storage.create(StoredReportTests.stored("r1", updatedAt: 2, missing: uuids)).created == false)
        #expect(try storage.waitingUUIDs() == uuids)

        let old = try #require(try storage.report(id: "r1"))
        #expect(old.missing == uuids && old.missingNames[uuids[0]] == "Image")
        var better = old
        better.missing = [uuids[1]]
        better.output = Array("better".utf8)
        #expect(try storage.replace(old, with: better) == .replaced)
        // A second writer that read the same version loses and must read again.
        var other = old
        other.missing = [uuids[0]]
        #expect(try storage.replace(old, with: other) == .conflict)
        #expect(try storage.report(id: "r1")?.output == Array("better".utf8))
        #expect(try storage.waitingUUIDs() == [uuids[1]])
        #expect(try storage.missingSummary(limit: 10) == [MissingEntry(uuid: uuids[1], name: "Image", reports: 1)])

        let current = try #require(try storage.report(id: "r1"))
        #expect(try storage.delete(id: "r1"))
        var done = current
        done.missing = []
        #expect(try storage.replace(current, with: done) == .gone)
        #expect(try storage.report(id: "r1") == nil)
        #expect(try storage.waitingUUIDs() == [])
        #expect(try storage.delete(id: "r1") == false)
    }

    @Test func retentionRemovesReportsAndTheirMarks() throws {
        let bucket = try MotoStandIn.bucket()
        let location = try ReportStorageLocation(parsing: bucket.location)
        let storage = try #require(try location.open(s3: bucket.configuration))
        _ = try storage.create(StoredReportTests.stored("x1", updatedAt: 1))
        _ = try storage.create(StoredReportTests.stored("x2", updatedAt: 1))
        // Written just now: a 1-day retention keeps them; a cutoff in the future expires them.
        #expect(
            try StoredReportRetention.removeExpired(at: location, days: 1, dryRun: false, s3: bucket.configuration)
                == [])
        let future = Date().timeIntervalSince1970 + 60
        #expect(try storage.removeExpired(before: future, dryRun: true).sorted() == ["x1", "x2"])
        #expect(try storage.list(limit: 10, missing: nil).count == 2)
        #expect(try storage.removeExpired(before: future, dryRun: false).sorted() == ["x1", "x2"])
        #expect(try storage.list(limit: 10, missing: nil).isEmpty)
        #expect(try storage.waitingUUIDs().isEmpty)
    }

    @Test func aFolderStoresReportsCopyIntoABucketResumably() throws {
        let bucket = try MotoStandIn.bucket()
        let directory = NSTemporaryDirectory() + "symbolicate-copy-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try ReportDatabase(path: directory + "/reports.sqlite")
        _ = try database.create(StoredReportTests.stored("c1", updatedAt: 10))
        _ = try database.create(StoredReportTests.stored("c2", updatedAt: 20, missing: []))
        let destination = try ReportStorageLocation(parsing: bucket.location)
        let storage = try #require(try destination.open(s3: bucket.configuration))
        // As if an earlier run was interrupted after the first report.
        _ = try storage.create(try #require(try database.report(id: "c1")))

        let summary = try StoredReportCopy.copy(from: .folder(directory), to: destination, s3: bucket.configuration)
        #expect(summary == StoredReportCopy.Summary(copied: 1, present: 1))
        let copied = try #require(try storage.report(id: "c2"))
        #expect(copied.original == Array("report c2".utf8) && copied.createdAt == 20 && copied.missing.isEmpty)
        #expect(try storage.reportsMissing("0A0B0C0D-0000-4000-8000-000000000001") == ["c1"])
        let again = try StoredReportCopy.copy(from: .folder(directory), to: destination, s3: bucket.configuration)
        #expect(again == StoredReportCopy.Summary(copied: 0, present: 2))
    }

    @Test(.enabled(if: UploadTests.ready, "\(UploadTests.notReady)"))
    func twoInstancesThatSeeTheBuildAtOnceAgree() throws {
        let bucket = try MotoStandIn.bucket()
        func watching() throws -> TestServer {
            try TestServer {
                $0.reportStore = bucket.location
                $0.objectStorage = bucket.configuration
                $0.reportWatchInterval = 0.1
            }
        }
        let one = try watching()
        let two = try watching()
        let (report, posted, holdKit) = try Self.postWithoutHoldKit(one, two)
        let id = try #require(posted.json()["id"] as? String)

        // The build arrives in both stores at once (as one shared store would show it to both):
        // both watchers re-symbolicate the same report concurrently.
        let kit = try #require(Fixtures.build("\(Self.variant)/HoldKit.framework.dSYM"))
        let stores = [one.server.configuration.storeDirectory, two.server.configuration.storeDirectory]
        let watchers = [one, two].map(\.server.context.watcher)
        let passesBefore = watchers.map(\.passesTaken)
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            _ = try? SymbolStore(directory: stores[index]).importPaths([kit], progress: nil)
        }
        #expect(
            try Eventually.waitFor {
                let missing = try two.get("/v1/reports/\(id)").json()["missing"] as? [String] ?? [holdKit]
                return !missing.contains(holdKit)
            }, "the report still waits for HoldKit")
        // Both watchers have had a whole look since the build arrived (the one running as it
        // arrived may have begun before).
        #expect(
            Eventually.waitFor { zip(watchers, passesBefore).allSatisfy { $0.passesTaken >= $1 + 2 } },
            "a watcher stopped looking")
        let expected = try SymbolicateEndpointTests.expected(one, report, format: nil).output
        #expect(try one.get("/v1/reports/\(id)?view=raw").body == expected)
        #expect(try two.get("/v1/reports/\(id)?view=raw").body == expected)
        let waiting = try one.get("/v1/reports?missing=\(holdKit)").json()["reports"] as? [[String: Any]]
        #expect(waiting?.isEmpty == true)
        let rewrites = (one.accessLog + two.accessLog).components(separatedBy: "\"event\":\"resymbolicated\"").count - 1
        #expect(rewrites >= 1)
    }
}
