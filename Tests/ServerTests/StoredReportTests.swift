// Stored reports in a store folder (`reports.sqlite`, through the store's SQLite wrapper): an
// Idempotency-Key gives one report however often it is posted, the listing and its `missing=`
// filter, DELETE, retention (the storage, and `symbolicate gc`), the compare-and-swap that keeps
// two writers from losing an update, errors that name SQLite's code, a database written before
// the revision column, and a build imported beside a running server re-symbolicating the
// reports waiting for it.

import BuildFiles
import Foundation
import Store
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

@Suite("Stored reports in a folder")
struct StoredReportTests {
    static let variant = "ios-arm64-dwarf5"
    static var reportPresent: Bool { Fixtures.report("HoldApp-\(variant).crash") != nil }
    static let noReport = "needs Samples/reports/HoldApp-ios-arm64-dwarf5.crash"
    static var samplesPresent: Bool { reportPresent && Fixtures.build("\(variant)/HoldKit.framework.dSYM") != nil }
    static let noSamples = "needs Samples/build and Samples/reports"

    static func report() throws -> [UInt8] { try #require(Fixtures.report("HoldApp-\(variant).crash")) }

    @Test(.enabled(if: reportPresent, "\(noReport)"))
    func anIdempotencyKeyStoresOneReport() throws {
        let server = try TestServer()
        let report = try Self.report()
        let keyed = server.auth + [("Idempotency-Key", "retry-me-0001")]
        let first = try server.post("/v1/reports", report, headers: keyed)
        #expect(first.status == 201)
        let id = try #require(first.json()["id"] as? String)
        let again = try server.post("/v1/reports", report, headers: keyed)
        #expect(again.status == 200)
        #expect(again.json()["id"] as? String == id)
        #expect(again.headers["location"] == "/v1/reports/\(id)")
        #expect(again.headers["idempotent-replayed"] == "true")
        // Another report under the same key is refused rather than answered with the first one.
        var other = report
        other.append(contentsOf: Array("\n".utf8))
        let reused = try server.post("/v1/reports", other, headers: keyed)
        #expect(reused.status == 422)
        #expect(reused.errorCode == "idempotency_key_reused")
        // Without a key every POST is a new report; a malformed key is a 400.
        let plain = try server.post("/v1/reports", report, headers: server.auth)
        #expect(plain.status == 201 && plain.json()["id"] as? String != id)
        let bad = try server.post("/v1/reports", report, headers: server.auth + [("Idempotency-Key", "two words")])
        #expect(bad.status == 400)
        let listed = try server.get("/v1/reports").json()["reports"] as? [[String: Any]] ?? []
        #expect(
            listed.compactMap { $0["id"] as? String }.sorted() == [id, plain.json()["id"] as? String ?? ""].sorted())
    }

    @Test func theAPIDescriptionHasEveryReportRoute() throws {
        let server = try TestServer()
        let paths = try server.get("/openapi.json").json()["paths"] as? [String: [String: Any]] ?? [:]
        let routes = server.server.router.routes.filter {
            $0.pattern.hasPrefix("/v1/reports") || $0.pattern == "/v1/missing"
        }
        #expect(routes.count == 5)
        for route in routes {
            #expect(paths[route.pattern]?[route.method.lowercased()] != nil, "\(route.method) \(route.pattern)")
        }
        let post = paths["/v1/reports"]?["post"] as? [String: Any]
        let parameters = post?["parameters"] as? [[String: Any]] ?? []
        #expect(parameters.contains { $0["name"] as? String == "Idempotency-Key" && $0["in"] as? String == "header" })
    }

    @Test func theIdempotentIdDependsOnKeyAndToken() {
        let id = StoredReports.reportID(idempotencyKey: "k", token: "ci")
        #expect(id == StoredReports.reportID(idempotencyKey: "k", token: "ci"))
        #expect(id != StoredReports.reportID(idempotencyKey: "k", token: "other"))
        #expect(id != StoredReports.reportID(idempotencyKey: "k2", token: "ci"))
        #expect(id.count == 36 && Array(id)[14] == "8")
    }

    @Test(.enabled(if: reportPresent, "\(noReport)"))
    func listingFilterAndDelete() throws {
        let server = try TestServer()
        let report = try Self.report()
        var ids: [String] = []
        for _ in 0..<3 {
            let posted = try server.post("/v1/reports", report, headers: server.auth)
            #expect(posted.status == 201)
            ids.append(try #require(posted.json()["id"] as? String))
        }
        let missing = try #require(try server.get("/v1/reports/\(ids[0])").json()["missing"] as? [String])
        let uuid = try #require(missing.first)

        let two = try server.get("/v1/reports?limit=2")
        #expect(two.status == 200)
        #expect((two.json()["reports"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[2], ids[1]])
        let waiting = try server.get("/v1/reports?missing=\(uuid.lowercased())").json()["reports"] as? [[String: Any]]
        #expect(Set(waiting?.compactMap { $0["id"] as? String } ?? []) == Set(ids))
        #expect(try server.get("/v1/reports?limit=0").status == 400)
        #expect(try server.get("/v1/reports?missing=nope").status == 400)

        #expect(try TestHTTP.request(port: server.port, "DELETE", "/v1/reports/\(ids[0])").status == 401)
        let deleted = try TestHTTP.request(port: server.port, "DELETE", "/v1/reports/\(ids[0])", headers: server.auth)
        #expect(deleted.status == 200)
        #expect(deleted.json()["deleted"] as? String == ids[0])
        #expect(try server.get("/v1/reports/\(ids[0])").status == 404)
        #expect(
            try TestHTTP.request(port: server.port, "DELETE", "/v1/reports/\(ids[0])", headers: server.auth).status
                == 404)
        let counts = try server.get("/v1/missing").json()["missing"] as? [[String: Any]] ?? []
        #expect(counts.first { $0["uuid"] as? String == uuid }?["reports"] as? Int == 2)
    }

    static func stored(_ id: String, updatedAt: Double, missing: [String] = ["0A0B0C0D-0000-4000-8000-000000000001"])
        -> StoredReport
    {
        StoredReport(
            id: id, createdAt: updatedAt, updatedAt: updatedAt, format: nil, original: Array("report \(id)".utf8),
            output: Array("output \(id)".utf8), contentType: "text/plain", framesSymbolicated: 0, framesTotal: 1,
            missing: missing, missingNames: Dictionary(uniqueKeysWithValues: missing.map { ($0, "Image") }))
    }

    @Test func retentionRemovesReportsNotWrittenForDays() throws {
        let directory = NSTemporaryDirectory() + "symbolicate-retention-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A folder without reports.sqlite has nothing to expire, and gets no database.
        #expect(try StoredReportRetention.removeExpired(at: .folder(directory), days: 1, dryRun: false) == [])
        #expect(!FileManager.default.fileExists(atPath: directory + "/reports.sqlite"))

        let database = try ReportDatabase(path: directory + "/reports.sqlite")
        let now = Date().timeIntervalSince1970
        _ = try database.create(Self.stored("old", updatedAt: now - 3 * 86_400))
        _ = try database.create(Self.stored("new", updatedAt: now - 3600))
        #expect(try StoredReportRetention.removeExpired(at: .folder(directory), days: 2, dryRun: true) == ["old"])
        #expect(try database.count() == 2)
        #expect(try StoredReportRetention.removeExpired(at: .folder(directory), days: 2, dryRun: false) == ["old"])
        #expect(try database.report(id: "old") == nil)
        #expect(try database.report(id: "new") != nil)
        #expect(try database.reportsMissing("0A0B0C0D-0000-4000-8000-000000000001") == ["new"])
        // 0 days keeps everything.
        #expect(try StoredReportRetention.removeExpired(at: .folder(directory), days: 0, dryRun: false) == [])
    }

    @Test(.needsExecutable)
    func gcRemovesExpiredReports() throws {
        let directory = NSTemporaryDirectory() + "symbolicate-gc-reports-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SymbolStore(directory: directory)
        _ = store
        let database = try ReportDatabase(path: directory + "/reports.sqlite")
        let now = Date().timeIntervalSince1970
        _ = try database.create(Self.stored("aged", updatedAt: now - 10 * 86_400))
        _ = try database.create(Self.stored("kept", updatedAt: now))
        let result = try ProcessRunner.run(
            try #require(Fixtures.executable),
            ["gc", "--store", directory, "--older-than", "365", "--report-retention", "7"])
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(text.contains("removed 1 stored report not written for 7 days"), "gc answers on stdout: \(text)")
        #expect(try database.report(id: "aged") == nil)
        #expect(try database.report(id: "kept") != nil)
    }

    @Test func aReplaceComparesTheRevision() throws {
        let directory = NSTemporaryDirectory() + "symbolicate-cas-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try ReportDatabase(path: directory + "/reports.sqlite")
        // A second connection stands for another server process on the same store.
        let second = try ReportDatabase(path: directory + "/reports.sqlite")
        let created = try first.create(Self.stored("r1", updatedAt: 1000))
        #expect(created.created)
        #expect(try second.create(Self.stored("r1", updatedAt: 2000)).created == false)
        let old = try #require(try first.report(id: "r1"))
        var better = old
        better.missing = []
        better.missingNames = [:]
        better.output = Array("better".utf8)
        #expect(try first.replace(old, with: better) == .replaced)
        #expect(try second.replace(old, with: better) == .conflict)
        #expect(try second.report(id: "r1")?.output == Array("better".utf8))
        #expect(try second.waitingUUIDs() == [])
        #expect(try first.delete(id: "r1"))
        let stale = try #require(created.stored.revision)
        var gone = old
        gone.revision = stale
        #expect(try second.replace(gone, with: better) == .gone)
    }

    @Test func sqliteErrorsNameTheirCodeAndStatement() throws {
        let path = NSTemporaryDirectory() + "symbolicate-notadb-" + UUID().uuidString + ".sqlite"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try ReportDatabase(path: path)
        } throws: { error in
            guard let error = error as? SymbolicateError else { return false }
            // SQLITE_NOTADB is 26; the wrapper names it and the statement that met it.
            return error.code == .io && error.message.hasPrefix("SQLite error 26 (file is not a database)")
                && error.message.contains("-- in: PRAGMA") && error.path == path
        }
    }

    @Test func aDatabaseFromBeforeRevisionsIsUpgraded() throws {
        let directory = NSTemporaryDirectory() + "symbolicate-oldreports-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/reports.sqlite"
        do {
            // The layout the server wrote before revisions, with one report waiting for one UUID.
            let old = try Database(path: path, mode: .readWrite)
            try old.exec(
                """
                CREATE TABLE reports(
                    id TEXT PRIMARY KEY, created_at REAL NOT NULL, updated_at REAL NOT NULL, format TEXT,
                    original BLOB NOT NULL, output BLOB NOT NULL, content_type TEXT NOT NULL,
                    frames_symbolicated INTEGER NOT NULL, frames_total INTEGER NOT NULL);
                CREATE TABLE missing(
                    uuid TEXT NOT NULL, report_id TEXT NOT NULL, name TEXT NOT NULL,
                    PRIMARY KEY(uuid, report_id)) WITHOUT ROWID;
                INSERT INTO reports VALUES('r0', 1, 2, NULL, x'41', x'42', 'text/plain', 0, 3);
                INSERT INTO missing VALUES('0A0B0C0D-0000-4000-8000-000000000001', 'r0', 'Lib');
                """)
        }
        let database = try ReportDatabase(path: path)
        let report = try #require(try database.report(id: "r0"))
        #expect(report.original == [0x41] && report.output == [0x42] && report.framesTotal == 3)
        #expect(report.missing == ["0A0B0C0D-0000-4000-8000-000000000001"] && report.missingNames.values.first == "Lib")
        var fixed = report
        fixed.missing = []
        #expect(try database.replace(report, with: fixed) == .replaced)
        #expect(try database.missingSummary(limit: 10) == [])
    }

    @Test(.enabled(if: samplesPresent && UploadTests.ready, "\(noSamples)"))
    func aBuildImportedBesideTheServerResymbolicatesWaitingReports() throws {
        let server = try TestServer { $0.reportWatchInterval = 0.2 }
        try server.importDirectly([try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM"))])
        let holdKit = try #require(Fixtures.uuids(variant: Self.variant)["HoldKit"])
        let posted = try server.post("/v1/reports", try Self.report(), headers: server.auth)
        let id = try #require(posted.json()["id"] as? String)
        #expect((posted.json()["missing"] as? [String] ?? []).contains(holdKit))

        // As `symbolicate import` run beside the server would: straight into the store.
        try server.importDirectly([try #require(Fixtures.build("\(Self.variant)/HoldKit.framework.dSYM"))])
        #expect(
            try Eventually.waitFor {
                let missing = try server.get("/v1/reports/\(id)").json()["missing"] as? [String] ?? [holdKit]
                return !missing.contains(holdKit)
            }, "the report still waits for HoldKit")
        let raw = try server.get("/v1/reports/\(id)?view=raw")
        #expect(raw.body == (try SymbolicateEndpointTests.expected(server, try Self.report(), format: nil)).output)
    }
}
