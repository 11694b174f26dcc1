// The limits of an upload's import child and of the upload itself: each refusal names the limit
// it hit and the `serve` option that raises it (CPU time, wall time, address space, body size),
// and the defaults let a 2 GB dSYM through.

import Foundation
import TestSupport
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

    /// A child that cannot run its executable says why, where the failure summary reads it: an
    /// exit status of 127 alone cannot tell a missing file from one still open for writing.
    @Test func anImportThatCannotStartSaysWhy() throws {
        let notExecutable = NSTemporaryDirectory() + "not-executable-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: notExecutable, contents: Data("#!/bin/sh\n".utf8)))
        defer { unlink(notExecutable) }
        let runner = ImportRunner(executable: notExecutable, cpuSeconds: 10, memoryBytes: 256 << 20, wallSeconds: 30)
        let result = try runner.run([])
        #expect(result.exitStatus == 127)
        #expect(result.limitHit == nil)
        #expect(
            result.failureSummary
                == "the import could not start: execve(\(notExecutable)) failed: errno \(EACCES), EACCES")
    }

    /// A script that some process still holds open for writing cannot be run (ETXTBSY), as
    /// happens when a child forked elsewhere inherits the descriptor it was written through.
    @Test func aScriptStillOpenForWritingCannotStartAndSaysSo() throws {
        let script = try ExecutableScript.write("#!/bin/sh\nexit 0\n", named: "busy-import")
        defer { unlink(script) }
        let writer = open(script, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        let busy = try ImportRunner(executable: script, cpuSeconds: 10, memoryBytes: 256 << 20, wallSeconds: 30).run([])
        close(writer)
        #expect(busy.failureSummary.hasSuffix("failed: errno \(ETXTBSY), ETXTBSY"), "\(busy.failureSummary)")
        let idle = try ImportRunner(executable: script, cpuSeconds: 10, memoryBytes: 256 << 20, wallSeconds: 30).run([])
        #expect(idle.succeeded, "\(idle.failureSummary)")
    }

    @Test func anUploadWhoseImportRunsOutOfMemoryIsAnsweredWithTheOption() throws {
        let script = try ExecutableScript.write(
            "#!/bin/sh\nexec /usr/bin/awk '\(Self.hungry[0])'\n", named: "hungry-import")
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

    /// The limit is said once: in bytes, and in the shorter form only where there is one.
    @Test(arguments: [
        (10 << 10, "limit of 10240 bytes; "),
        (1 << 20, "limit of 1048576 bytes (1M); "),
    ])
    func aBodyOverMaxBodyNamesTheLimitOnce(_ limit: Int, _ said: String) throws {
        let server = try TestServer { $0.maxBody = limit }
        // The declared length is refused before any of the body is read: only the head is sent.
        let connection = try TestConnection(port: server.port)
        try connection.send(TestHTTP.head("POST", "/v1/symbols", headers: server.auth, bodyLength: limit + 1))
        let response = try connection.response()
        #expect(response.status == 413)
        let message = (response.json()["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains(said), "\(message)")
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
