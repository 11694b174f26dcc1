// A build file the server's store cannot read is a failure over HTTP, never a missing symbol:
// with HoldApp's build file damaged (its last page, the ranges table), `POST /v1/symbolicate`,
// the Sentry-shaped `/symbolicate` and Mozilla's `/symbolicate/v5` answer 503
// symbols_unavailable with Retry-After naming the build file; with `?partial=1` they answer, the
// frames of HoldApp `failed` (Sentry's words: `malformed`, module `debug_status` `malformed`),
// and HoldKit's frames symbolicated as before. A stored report posted meanwhile waits on
// HoldApp and is symbolicated again by the report watcher once the build file reads again. The
// builds are imported from copies removed afterwards: with its source still there, a build file
// that fails its checksum is rebuilt from it instead (SymbolStore.rebuild).

import Foundation
import Testing

@Suite struct DamagedBuildServerTests {
    static let variant = SymbolicateEndpointTests.variant
    static let appUUID = "4C4C4421-5555-3144-A186-2F41CD93DD95"

    /// Overwrites the b-tree header of the file's last page.
    static func damageLastPage(_ path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let size = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = size == 1 ? 65536 : size
        try #require(bytes.count >= 2 * pageSize && bytes.count % pageSize == 0)
        for i in (bytes.count - pageSize)..<(bytes.count - pageSize + 16) { bytes[i] = 0xff }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Imports copies of `paths` into the server's store and removes the copies, so the builds
    /// have no source to be rebuilt from.
    static func importWithoutSources(_ server: TestServer, _ paths: [String]) throws {
        let folder = NSTemporaryDirectory() + "damaged-sources-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var copies: [String] = []
        for path in paths {
            let copy = folder + "/" + URL(fileURLWithPath: path).lastPathComponent
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            copies.append(copy)
        }
        try server.importDirectly(copies)
    }

    @Test(.enabled(if: SymbolicateEndpointTests.samplesPresent, "\(SymbolicateEndpointTests.samplesAbsent)"))
    func aDamagedBuildIs503UnlessPartial() throws {
        let server = try TestServer()
        try Self.importWithoutSources(
            server,
            [
                try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM")),
                try #require(Fixtures.build("\(Self.variant)/HoldKit.framework.dSYM")),
            ])
        let builds = server.server.configuration.storeDirectory + "/builds"
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: builds).first { $0.hasPrefix(Self.appUUID) })
        let buildFile = builds + "/" + name
        try Self.damageLastPage(buildFile)
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))

        let refused = try server.post("/v1/symbolicate", report)
        #expect(refused.status == 503 && refused.errorCode == "symbols_unavailable", "\(refused.text)")
        #expect(refused.headers["retry-after"] != nil)
        let message = (refused.json()["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains(buildFile) && message.contains("partial=1"), "\(refused.text)")
        let partial = try server.post("/v1/symbolicate?partial=1&format=json", report)
        #expect(partial.status == 200, "\(partial.text)")
        let statuses = ((partial.json()["backtraces"] as? [[String: Any]]) ?? [])
            .flatMap { $0["frames"] as? [[String: Any]] ?? [] }
            .filter { $0["image"] as? String == "HoldApp" }.compactMap { $0["status"] as? String }
        #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == "failed" }, "\(statuses)")

        // Sentry's shape, from the report's own images and crashed thread.
        let parsed = try SymbolicateEndpointTests.expected(server, report, format: .json).report
        let thread = try #require(parsed.backtraces.first { $0.kind == .thread && $0.crashed })
        let used = parsed.images.filter { image in thread.frames.contains { parsed.image(for: $0) == image } }
        let modules: [[String: Any]] = used.map {
            [
                "type": "macho", "debug_id": $0.uuid?.uuidString.lowercased() ?? "", "code_file": $0.path ?? $0.name,
                "image_addr": "0x" + String($0.loadAddress, radix: 16), "image_size": $0.size ?? 0,
            ]
        }
        let frames = thread.frames.map { ["instruction_addr": "0x" + String($0.address, radix: 16)] }
        let body = [UInt8](
            try JSONSerialization.data(withJSONObject: ["modules": modules, "stacktraces": [["frames": frames]]]))
        let json = [("Content-Type", "application/json")]
        #expect(try server.post("/symbolicate", body, headers: json).status == 503)
        let sentry = try server.post("/symbolicate?partial=1", body, headers: json)
        #expect(sentry.status == 200, "\(sentry.text)")
        let module = (sentry.json()["modules"] as? [[String: Any]])?.first {
            ($0["debug_id"] as? String) == Self.appUUID.lowercased()
        }
        #expect(module?["debug_status"] as? String == "malformed", "\(String(describing: module))")
        let traces = sentry.json()["stacktraces"] as? [[String: Any]]
        let sentryFrames = (traces?.first?["frames"] as? [[String: Any]]) ?? []
        let appIndex = try #require(used.firstIndex { $0.name == "HoldApp" })
        let appFrames = thread.frames.indices.filter { parsed.image(for: thread.frames[$0]) == used[appIndex] }
        #expect(!appFrames.isEmpty)
        for f in appFrames {
            let out = sentryFrames.filter { $0["original_index"] as? Int == f }
            #expect(out.count == 1 && out.first?["status"] as? String == "malformed", "\(out)")
        }
        #expect(sentryFrames.contains { $0["status"] as? String == "symbolicated" })
    }

    @Test(.enabled(if: SymbolicateEndpointTests.samplesPresent, "\(SymbolicateEndpointTests.samplesAbsent)"))
    func aStoredReportWaitingOnAFailedBuildIsSymbolicatedOnceItReads() throws {
        let app = try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM"))
        let kit = try #require(Fixtures.build("\(Self.variant)/HoldKit.framework.dSYM"))
        let server = try TestServer { $0.reportWatchInterval = 0.2 }
        try Self.importWithoutSources(server, [app, kit])
        let builds = server.server.configuration.storeDirectory + "/builds"
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: builds).first { $0.hasPrefix(Self.appUUID) })
        let buildFile = builds + "/" + name
        let intact = try Data(contentsOf: URL(fileURLWithPath: buildFile))
        try Self.damageLastPage(buildFile)
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))

        let posted = try server.post("/v1/reports", report, headers: server.auth)
        #expect(posted.status == 201, "\(posted.text)")
        let id = try #require(posted.json()["id"] as? String)
        #expect((posted.json()["missing"] as? [String])?.contains(Self.appUUID) == true, "\(posted.text)")

        // Let the watcher look (and fail) a few times while the file is damaged, so that what
        // follows is its retry of a failure, not its first look.
        usleep(1_000_000)
        // The same bytes again, in place: the build reads now.
        try intact.write(to: URL(fileURLWithPath: buildFile))
        var stored: [String: Any] = [:]
        for _ in 0..<300 {
            stored = try server.get("/v1/reports/\(id)", headers: server.auth + [("Accept", "application/json")]).json()
            if (stored["missing"] as? [String])?.contains(Self.appUUID) == false { break }
            usleep(50_000)
        }
        #expect((stored["missing"] as? [String])?.contains(Self.appUUID) == false, "\(stored)")
    }
}
