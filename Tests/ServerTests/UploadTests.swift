// Uploads and stored reports against a real server whose imports run in a child process (the
// built `symbolicate import`): archives and single files import, the listing pages, deletes
// work, hostile uploads (zip-slip, zip bomb, corrupt Mach-O, a child that crashes or spins) end in
// a 422 with the server still up, two identical concurrent uploads leave one build, and a stored
// report missing a dSYM is re-symbolicated when that dSYM is uploaded, without counting in the
// request metrics again.

import Foundation
import Store
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@testable import Server

@Suite("Uploads and stored reports", .tags(.server))
struct UploadTests {
    static let variant = "ios-arm64-dwarf5"

    /// Uploads are imported by the built executable, from the Samples dSYMs.
    static var ready: Bool {
        Fixtures.hasImportCommand && Fixtures.build("\(variant)/HoldApp.app.dSYM") != nil
            && Fixtures.report("HoldApp-\(variant).crash") != nil
    }
    static let notReady = "needs the symbolicate executable built beside the tests and Samples/build, Samples/reports"

    static func zip(_ bundles: [String]) throws -> [UInt8] {
        var zip = ZipFixture()
        for bundle in bundles {
            let path = try #require(Fixtures.build("\(variant)/\(bundle)"))
            try zip.addTree(path, as: bundle)
        }
        return zip.bytes
    }

    @Test func importLimitsStopHostileChildren() throws {
        let runner = ImportRunnerProbe(cpuSeconds: 1, memoryBytes: 256 << 20, wallSeconds: 3)
        let spin = try runner.run("/bin/sh", ["-c", "while :; do :; done"])
        #expect(spin.signal == SIGXCPU || spin.signal == SIGKILL)
        let sleepy = try runner.run("/bin/sh", ["-c", "sleep 30"])
        #expect(sleepy.timedOut)
        let hungry = try runner.run("/usr/bin/awk", ["BEGIN { s = \"xxxxxxxx\"; while (1) s = s s }"])
        #expect(!hungry.succeeded && !hungry.timedOut, "memory limit ends the child")
        let fine = try runner.run("/bin/sh", ["-c", "echo out; echo err >&2"])
        #expect(fine.succeeded && fine.stdout == "out\n" && fine.stderr == "err\n")
    }

    @Test func aCrashingImportLeavesTheServerUp() throws {
        let script = try ExecutableScript.write(
            "#!/bin/sh\nkill -SEGV $$\n", named: "crashing-import")
        defer { unlink(script) }
        let server = try TestServer { $0.importExecutable = script }
        let macho: [UInt8] = [0xCF, 0xFA, 0xED, 0xFE] + [UInt8](repeating: 7, count: 4000)
        let response = try server.post("/v1/symbols", macho, headers: server.auth)
        #expect(response.status == 422)
        #expect(response.errorCode == "import_failed")
        #expect(
            (response.json()["error"] as? [String: Any])?["message"] as? String
                == "the import crashed on this file (signal 11)")
        #expect(try server.get("/healthz").status == 200)
        #expect(try server.get("/metrics").text.contains(#"symbolicate_imports_total{outcome="failed"} 1"#))
    }

    @Test(.enabled(if: ready, "\(notReady)"))
    func uploadListShowDelete() throws {
        let server = try TestServer()
        let uuids = Fixtures.uuids(variant: Self.variant)
        let upload = try server.post(
            "/v1/symbols", try Self.zip(["HoldApp.app.dSYM", "HoldKit.framework.dSYM"]), headers: server.auth)
        #expect(upload.status == 201, "\(upload.text)")
        let imported = (upload.json()["imported"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
        #expect(Set(imported) == Set(uuids.values))

        let page1 = try server.get("/v1/symbols?per_page=1")
        #expect(page1.json()["total"] as? Int == 2)
        #expect(page1.json()["next_page"] as? Int == 2)
        #expect((page1.json()["builds"] as? [Any])?.count == 1)
        let page2 = try server.get("/v1/symbols?per_page=1&page=2")
        #expect(page2.json()["next_page"] == nil)
        #expect(try server.get("/v1/symbols?page=0").status == 400)

        let holdApp = try #require(uuids["HoldApp"])
        let show = try server.get("/v1/symbols/\(holdApp)")
        #expect(show.status == 200)
        #expect((show.json()["builds"] as? [[String: Any]])?.first?["name"] as? String == "HoldApp")
        #expect(try server.get("/v1/symbols/not-a-uuid").status == 400)

        let again = try server.post("/v1/symbols", try Self.zip(["HoldApp.app.dSYM"]), headers: server.auth)
        #expect(again.status == 200)
        #expect((again.json()["already_present"] as? [Any])?.count == 1)

        let delete = try TestHTTP.request(port: server.port, "DELETE", "/v1/symbols/\(holdApp)", headers: server.auth)
        #expect(delete.status == 200)
        #expect(try server.get("/v1/symbols/\(holdApp)").status == 404)
        #expect(
            try TestHTTP.request(port: server.port, "DELETE", "/v1/symbols/\(holdApp)", headers: server.auth).status
                == 404)
        #expect(try server.get("/metrics").text.contains("symbolicate_store_builds 1"))
    }

    @Test(.enabled(if: ready, "\(notReady)"))
    func singleMachOUpload() throws {
        let server = try TestServer()
        let path = try #require(
            Fixtures.build("\(Self.variant)/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let response = try server.post("/v1/symbols?filename=HoldKit", bytes, headers: server.auth)
        #expect(response.status == 201)
        let names = (response.json()["imported"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == ["HoldKit"])
        // The file name may also come from Content-Disposition; path parts are dropped.
        let named = try server.post(
            "/v1/symbols", bytes,
            headers: server.auth + [("Content-Disposition", "attachment; filename=\"../x/HoldKit\"")])
        #expect(named.status == 200)
        #expect((named.json()["already_present"] as? [[String: Any]])?.first?["name"] as? String == "HoldKit")
    }

    @Test(.enabled(if: ready, "\(notReady)"))
    func hostileUploadsAreRefused() throws {
        let server = try TestServer()
        let dwarf = try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"))
        let machO = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dwarf)))

        var slip = ZipFixture()
        slip.add("../../escaped/HoldApp", contents: machO)
        let slipResponse = try server.post("/v1/symbols", slip.bytes, headers: server.auth)
        #expect(slipResponse.status == 422, "\(slipResponse.text)")
        #expect(slipResponse.text.contains("unsafe path"))
        #expect(!FileManager.default.fileExists(atPath: server.directory + "/escaped"))

        var bomb = ZipFixture()
        bomb.addZeros("HoldApp.dSYM/Contents/Resources/DWARF/HoldApp", zeros: (1 << 30) + (64 << 20))
        let bombBytes = bomb.bytes
        #expect(bombBytes.count < 8 << 20)
        let bombResponse = try server.post("/v1/symbols", bombBytes, headers: server.auth)
        #expect(bombResponse.status == 422, "\(bombResponse.text)")
        #expect(bombResponse.text.contains("expansion bomb"))

        var corrupt = machO
        for i in stride(from: 32, to: corrupt.count, by: 7) { corrupt[i] = 0xFF }
        let corruptResponse = try server.post("/v1/symbols", corrupt, headers: server.auth)
        #expect([201, 422].contains(corruptResponse.status), "a damaged dSYM is refused or imported, never fatal")
        let notSymbols = try server.post("/v1/symbols", Array("plain text".utf8), headers: server.auth)
        #expect(notSymbols.status == 415)
        let empty = try server.post("/v1/symbols", [], headers: server.auth)
        #expect(empty.status == 400)

        #expect(try server.get("/healthz").status == 200)
        #expect(
            (try server.get("/v1/symbols").json()["builds"] as? [[String: Any]] ?? []).allSatisfy {
                $0["status"] as? String == "ready"
            })
    }

    @Test(.enabled(if: ready, "\(notReady)"))
    func concurrentIdenticalUploadsMakeOneBuild() throws {
        let server = try TestServer()
        let body = try Self.zip(["HoldApp.app.dSYM"])
        let port = server.port
        let headers = server.auth
        let statuses = Statuses()
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let status =
                (try? TestHTTP.request(port: port, "POST", "/v1/symbols", headers: headers, body: body).status) ?? -1
            statuses.append(status)
        }
        #expect(statuses.values.allSatisfy { $0 == 200 || $0 == 201 }, "\(statuses.values)")
        let listing = try server.get("/v1/symbols").json()
        #expect(listing["total"] as? Int == 1)
        #expect((listing["builds"] as? [[String: Any]])?.first?["status"] as? String == "ready")
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))
        #expect(try server.post("/v1/symbolicate", report).status == 200)
    }

    @Test(.enabled(if: ready, "\(notReady)"))
    func storedReportsAreResymbolicatedWhenTheirDSYMArrives() throws {
        let server = try TestServer()
        let uuids = Fixtures.uuids(variant: Self.variant)
        let holdKit = try #require(uuids["HoldKit"])
        try server.importDirectly([try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM"))])
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))

        let posted = try server.post("/v1/reports", report, headers: server.auth)
        #expect(posted.status == 201)
        let id = try #require(posted.json()["id"] as? String)
        #expect(posted.headers["location"] == "/v1/reports/\(id)")
        #expect((posted.json()["missing"] as? [String] ?? []).contains(holdKit))
        let before = posted.json()["frames_symbolicated"] as? Int ?? -1

        let waiting = try server.get("/v1/missing").json()["missing"] as? [[String: Any]] ?? []
        #expect(
            waiting.contains {
                $0["uuid"] as? String == holdKit && $0["reports"] as? Int == 1 && $0["name"] as? String == "HoldKit"
            })

        let upload = try server.post("/v1/symbols", try Self.zip(["HoldKit.framework.dSYM"]), headers: server.auth)
        #expect(upload.status == 201)
        #expect(upload.json()["resymbolicated_reports"] as? Int == 1)

        let after = try server.get("/v1/reports/\(id)")
        #expect(after.status == 200)
        #expect(!(after.json()["missing"] as? [String] ?? [holdKit]).contains(holdKit))
        #expect((after.json()["frames_symbolicated"] as? Int ?? 0) > before)
        let raw = try server.get("/v1/reports/\(id)?view=raw")
        #expect(raw.body == (try SymbolicateEndpointTests.expected(server, report, format: nil)).output)
        let stillWaiting = try server.get("/v1/missing").json()["missing"] as? [[String: Any]] ?? []
        #expect(!stillWaiting.contains { $0["uuid"] as? String == holdKit })

        #expect(try server.get("/v1/reports/00000000-0000-0000-0000-000000000000").status == 404)
        #expect([400, 404].contains(try server.get("/v1/reports/..%2F..%2Fetc").status))
        #expect(try server.get("/v1/reports/not%20an%20id").status == 400)
        // Fullwidth hex digits are hex digits to Character.isHexDigit, not to a report id.
        #expect(try server.get("/v1/reports/%EF%BC%A1%EF%BC%A2").status == 400)
        #expect(try server.post("/v1/reports", Array("garbage".utf8), headers: server.auth).status >= 400)
    }

    /// The report and frame counters of /metrics count symbolication requests, each once: a stored
    /// report re-symbolicated when its dSYM arrives is counted in
    /// symbolicate_reports_resymbolicated_total, not a second time in them.
    @Test(.enabled(if: ready, "\(notReady)"))
    func resymbolicationIsNotCountedAsAnotherRequest() throws {
        let server = try TestServer { $0.reportWatchInterval = 0 }
        try server.importDirectly([try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM"))])
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))
        #expect(try server.post("/v1/reports", report, headers: server.auth).status == 201)
        let stored = try Self.counters(server)
        #expect(stored["symbolicate_reports_symbolicated_total"] == 1)
        #expect(stored["symbolicate_reports_resymbolicated_total"] == 0)
        #expect((stored["symbolicate_frames_missing_total"] ?? 0) > 0)

        let upload = try server.post("/v1/symbols", try Self.zip(["HoldKit.framework.dSYM"]), headers: server.auth)
        #expect(upload.status == 201)
        #expect(upload.json()["resymbolicated_reports"] as? Int == 1)
        let resymbolicated = try Self.counters(server)
        #expect(resymbolicated["symbolicate_reports_resymbolicated_total"] == 1)
        for name in Self.requestCounters {
            #expect(resymbolicated[name] == stored[name], "\(name)")
        }

        // A request after the upload is counted as before: once, with its frames.
        #expect(try server.post("/v1/symbolicate", report).status == 200)
        let requested = try Self.counters(server)
        #expect(requested["symbolicate_reports_symbolicated_total"] == 2)
        #expect(
            (requested["symbolicate_frames_symbolicated_total"] ?? 0)
                > (stored["symbolicate_frames_symbolicated_total"] ?? 0))
        #expect(requested["symbolicate_frames_missing_total"] == stored["symbolicate_frames_missing_total"])
        #expect(requested["symbolicate_reports_resymbolicated_total"] == 1)
    }

    static let requestCounters = [
        "symbolicate_reports_symbolicated_total", "symbolicate_frames_symbolicated_total",
        "symbolicate_frames_missing_total",
    ]

    /// The unlabelled counters of /metrics, by name.
    static func counters(_ server: TestServer) throws -> [String: Int] {
        var counters: [String: Int] = [:]
        for line in try server.get("/metrics").text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            if fields.count == 2, !fields[0].contains("{"), let value = Int(fields[1]) {
                counters[String(fields[0])] = value
            }
        }
        return counters
    }
}

/// Runs a program under the import limits (the runner the server uses for uploads).
struct ImportRunnerProbe {
    var cpuSeconds: Int
    var memoryBytes: Int
    var wallSeconds: Int

    func run(_ executable: String, _ arguments: [String]) throws -> ImportRunner.Result {
        try ImportRunner(
            executable: executable, cpuSeconds: cpuSeconds, memoryBytes: memoryBytes, wallSeconds: wallSeconds
        )
        .run(arguments)
    }
}

/// Thread-safe status collector for concurrent requests.
final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ status: Int) {
        lock.lock()
        list.append(status)
        lock.unlock()
    }
    var values: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
