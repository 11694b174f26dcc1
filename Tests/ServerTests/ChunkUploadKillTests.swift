// A server killed with SIGKILL as soon as it has started to assemble a chunked upload: the next
// try, answered by a new server on the same store, assembles the file from the chunks the first
// one kept (none is sent again; once the killed server's claim on it is stale, if it left one)
// and the store lists its build once.

import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("Chunked uploads, server killed", .tags(.server, .slow), .needsSamples, .needsExecutable)
struct ChunkUploadKillTests {
    struct NotAnswered: Error, CustomStringConvertible { var description: String }

    static func assemble(_ port: Int, _ files: [String: [String: Any]]) throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: files)
        let response = try TestHTTP.request(
            port: UInt16(port), "POST", ChunkProtocolTests.assemblePath,
            headers: [("Authorization", "Bearer \(TestServer.token)"), ("Content-Type", "application/json")],
            body: [UInt8](body))
        guard response.status == 200 else { throw NotAnswered(description: "\(response.status) \(response.text)") }
        return response.json()
    }

    static func serve(_ executable: String, _ folder: String) throws -> (process: Process, port: Int) {
        try ServeProcess.start(
            executable, ["--store", folder + "/store", "--token-file", folder + "/tokens.txt"])
    }

    @Test(.enabled(if: !Fixtures.sanitized, "serve's import child cannot run under a sanitizer with its memory limit"))
    func aServerKilledWhileAssemblingIsFinishedByTheNextTry() throws {
        let executable = try #require(Fixtures.executable)
        let folder = try Repository.scratchFolder("chunks-server-killed")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "ci:\(TestServer.token)\n".write(toFile: folder + "/tokens.txt", atomically: true, encoding: .utf8)
        let (chunks, checksum, file) = ChunkProtocolTests.chunked(
            try ChunkProtocolTests.sampleDSYM(), size: 1 << 16, name: "HoldKit")

        let first = try Self.serve(executable, folder)
        let (body, type) = ChunkProtocolTests.form(chunks.map { ("file", $0.0, $0.1) })
        let posted = try TestHTTP.request(
            port: UInt16(first.port), "POST", ChunkProtocolTests.chunkPath,
            headers: [("Authorization", "Bearer \(TestServer.token)"), ("Content-Type", type)], body: body)
        #expect(posted.status == 200, "\(posted.text)")
        let started = try Self.assemble(first.port, [checksum: file])[checksum] as? [String: Any]
        #expect(started?["state"] as? String == "created", "\(String(describing: started))")
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()

        let second = try Self.serve(executable, folder)
        defer {
            kill(second.process.processIdentifier, SIGKILL)
            second.process.waitUntilExit()
        }
        var state = ""
        // A claim the killed server left holds the file back until it goes stale, then it is assembled.
        // A poll that gets no answer (the client's own timeout on a loaded machine) is polled again.
        let settled = Eventually.waitFor(seconds: AssemblyClaim.staleAfter + Eventually.patience) {
            let answer = try? Self.assemble(second.port, [checksum: file])
            let entry = answer?[checksum] as? [String: Any]
            state = entry?["state"] as? String ?? ""
            return state == "ok" || state == "error"
        }
        #expect(settled && state == "ok", "\(state)")
        let listed = try TestHTTP.request(
            port: UInt16(second.port), "GET", "/v1/symbols?per_page=1000",
            headers: [("Authorization", "Bearer \(TestServer.token)")])
        let builds = listed.json()["builds"] as? [[String: Any]] ?? []
        #expect(builds.compactMap { $0["uuid"] as? String } == ["4C4C44AA-5555-3144-A1C9-3105F2834F44"])
    }
}
