// The limits of an upload's import child and of the upload itself: each refusal names the limit
// it hit and the `serve` option that raises it (CPU time, wall time, address space, body size),
// and the defaults let a 2 GB dSYM through.

import Foundation
import Testing

@testable import Server

@Suite("Import and upload limits")
struct ImportLimitTests {
    static let hungry = ["BEGIN { s = \"xxxxxxxx\"; while (1) s = s s }"]

    @Test func cpuTimeIsNamedWithItsOption() throws {
        let result = try ImportRunner(executable: "/bin/sh", cpuSeconds: 1, memoryBytes: 256 << 20, wallSeconds: 30)
            .run(["-c", "while :; do :; done"])
        #expect(result.limitHit == .cpuTime)
        #expect(result.failureSummary.contains("limit of 1 seconds"), "\(result.failureSummary)")
        #expect(result.failureSummary.contains("`symbolicate serve --import-cpu SECONDS`"))
    }

    @Test func wallTimeIsNamedWithItsOption() throws {
        let result = try ImportRunner(executable: "/bin/sh", cpuSeconds: 10, memoryBytes: 256 << 20, wallSeconds: 1)
            .run(["-c", "sleep 30"])
        #expect(result.limitHit == .wallTime)
        #expect(result.failureSummary.contains("limit of 1 seconds"), "\(result.failureSummary)")
        #expect(result.failureSummary.contains("`symbolicate serve --import-timeout SECONDS`"))
    }

    @Test func addressSpaceIsNamedWithItsOption() throws {
        let result = try ImportRunner(
            executable: "/usr/bin/awk", cpuSeconds: 10, memoryBytes: 256 << 20, wallSeconds: 30
        )
        .run(Self.hungry)
        #expect(result.limitHit == .memory, "\(result.stderr)")
        #expect(result.failureSummary.contains("address-space limit of 256M (RLIMIT_AS"), "\(result.failureSummary)")
        #expect(result.failureSummary.contains("`symbolicate serve --import-memory SIZE`"))
    }

    @Test func aCrashIsNotCalledALimit() throws {
        let result = try ImportRunner(executable: "/bin/sh", cpuSeconds: 10, memoryBytes: 256 << 20, wallSeconds: 30)
            .run(["-c", "kill -SEGV $$"])
        #expect(result.limitHit == nil)
        #expect(result.failureSummary == "the import crashed on this file (signal 11)")
    }

    @Test func anUploadWhoseImportRunsOutOfMemoryIsAnsweredWithTheOption() throws {
        let script = NSTemporaryDirectory() + "hungry-import-\(UUID().uuidString).sh"
        try "#!/bin/sh\nexec /usr/bin/awk '\(Self.hungry[0])'\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        defer { unlink(script) }
        let server = try TestServer {
            $0.importExecutable = script
            $0.importMemoryBytes = 256 << 20
        }
        let macho: [UInt8] = [0xCF, 0xFA, 0xED, 0xFE] + [UInt8](repeating: 7, count: 4000)
        let response = try server.post("/v1/symbols", macho, headers: server.auth)
        #expect(response.status == 422)
        let message = (response.json()["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("--import-memory"), "\(message)")
        #expect(try server.get("/healthz").status == 200)
    }

    @Test func aBodyOverMaxBodyIsAnsweredWithTheOption() throws {
        let server = try TestServer { $0.maxBody = 4096 }
        let response = try server.post("/v1/symbols", [UInt8](repeating: 1, count: 8192), headers: server.auth)
        #expect(response.status == 413)
        let message = (response.json()["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("limit of 4096 bytes"), "\(message)")
        #expect(message.contains("`symbolicate serve --max-body SIZE`"), "\(message)")
    }

    /// A 2 GB dSYM: the upload fits the body limit, and the child's address space holds the mapped
    /// file plus today's working memory of the import (about 2.4 bytes per byte of DWARF).
    @Test func theDefaultsLetATwoGigabyteDSYMThrough() {
        let configuration = ServerConfiguration(storeDirectory: "/nonexistent")
        let dsym = 2 << 30
        #expect(configuration.maxBody > dsym)
        #expect(configuration.importMemoryBytes >= dsym + dsym * 24 / 10 + (1 << 30))
        #expect(configuration.importWallSeconds >= configuration.importCPUSeconds)
    }
}
