// Chunked uploads on a bucket store whose bucket does not answer (its endpoint a loopback port
// nothing listens on): a chunk POST and an assemble are answered 503 with Retry-After, so clients
// try again later, and `symbolicate upload` retries, then exits 1 saying the server is unavailable.
// The server runs as its own process, so the endpoint is set in its environment only.

import Digest
import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("Chunked uploads, bucket down", .tags(.server, .slow), .needsSamples, .needsExecutable)
struct ChunkUploadOutageTests {
    @Test func aBucketThatDoesNotAnswerIsRetriedLaterNeverHalfTaken() throws {
        let executable = try #require(Fixtures.executable)
        let closed = try #require(Loopback.freePort())
        let folder = try Repository.scratchFolder("chunks-bucket-down")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "ci:\(TestServer.token)\n".write(toFile: folder + "/tokens.txt", atomically: true, encoding: .utf8)
        let (server, port) = try ServeProcess.start(
            executable,
            ["--store", "s3://symbols/team", "--cache", folder + "/cache", "--token-file", folder + "/tokens.txt"],
            environment: [
                "AWS_ENDPOINT_URL": "http://127.0.0.1:\(closed)", "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
                "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1",
            ])
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let auth = [("Authorization", "Bearer \(TestServer.token)")]
        let bytes = Array("one chunk of a file".utf8)
        let name = SHA1.hex(bytes)

        let (body, type) = ChunkProtocolTests.form([("file", name, bytes)])
        let chunk = try TestHTTP.request(
            port: UInt16(port), "POST", ChunkProtocolTests.chunkPath, headers: auth + [("Content-Type", type)],
            body: body)
        #expect(chunk.status == 503, "\(chunk.text)")
        #expect(chunk.headers["retry-after"] != nil)

        let files = try JSONSerialization.data(withJSONObject: [name: ["name": "HoldKit", "chunks": [name]]])
        let assemble = try TestHTTP.request(
            port: UInt16(port), "POST", ChunkProtocolTests.assemblePath,
            headers: auth + [("Content-Type", "application/json")], body: [UInt8](files))
        #expect(assemble.status == 503, "\(assemble.text)")
        #expect(assemble.headers["retry-after"] != nil)

        let upload = try ProcessRunner.run(
            executable,
            [
                "upload", "--server", "http://127.0.0.1:\(port)",
                Repository.samplesBuild + "/ios-arm64-dwarf4/HoldKit.framework.dSYM",
            ],
            environment: ["SYMBOLICATE_TOKEN": TestServer.token])
        #expect(upload.status == 1, "\(upload.stderrText)")
        #expect(upload.stderrText.contains("503"), "\(upload.stderrText)")
        #expect(upload.stderrText.contains("run the upload again"), "\(upload.stderrText)")
    }
}
