// A 300 MB dSYM through a live server: `symbolicate upload` killed with SIGKILL once some of its
// chunks are in the store resumes on the next run without sending any of those again (the server
// logs how many chunks of each request it held already), and sentry-cli uploads the same file in
// chunks and sends nothing on a second run. The file is a Samples dSYM's DWARF Mach-O with bytes
// appended after its end, which the importer reads as the dSYM it is.

import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("Large uploads", .tags(.server, .slow), .needsSamples, .needsExecutable)
struct LargeUploadTests {
    static let uuid = "4C4C44FE-5555-3144-A178-3C5E567A9565"
    static let appended = 300 << 20

    /// A folder holding `HoldKit`: the dSYM's Mach-O followed by `appended` bytes in which every
    /// 8 MiB differs (a random block, numbered), so no two chunks are alike.
    static func largeDSYM(_ prefix: String) throws -> (folder: String, path: String) {
        let dsym = Repository.samplesBuild + "/ios-arm64-dwarf4/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        let folder = try Repository.scratchFolder(prefix)
        let path = folder + "/HoldKit"
        try #require(
            FileManager.default.createFile(atPath: path, contents: try Data(contentsOf: URL(fileURLWithPath: dsym))))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        var generator = SplitMix64(seed: 300)
        var block = generator.bytes(ChunkUploads.chunkSize)
        for index in 0..<(appended / ChunkUploads.chunkSize) {
            withUnsafeBytes(of: UInt64(index).littleEndian) { block.replaceSubrange(0..<8, with: $0) }
            try handle.write(contentsOf: block)
        }
        return (folder, path)
    }

    /// Chunks the server's folder store holds.
    static func storedChunks(_ server: TestServer) -> Int {
        let root = server.server.configuration.storeDirectory + "/blobs/sha1"
        let fans = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return fans.reduce(0) { count, fan in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + fan)) ?? []
            return count + names.filter { $0.utf8.count == 38 }.count
        }
    }

    /// The server's `chunks_received` events: chunks received, and of them the ones it held already.
    static func chunksReceived(_ server: TestServer) -> (count: Int, held: Int) {
        server.accessLog.split(separator: "\n").reduce((0, 0)) { sum, line in
            guard line.contains(#""event":"chunks_received""#),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { return sum }
            let count = Int(object["count"] as? String ?? "") ?? 0
            let held = Int(object["already_held"] as? String ?? "") ?? 0
            return (sum.0 + count, sum.1 + held)
        }
    }

    @Test func aKilledUploadResumesWithoutResendingFinishedChunks() throws {
        let executable = try #require(Fixtures.executable)
        let (folder, path) = try Self.largeDSYM("upload-killed")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestServer { $0.maxBody = 400 << 20 }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let total = (size + ChunkUploads.chunkSize - 1) / ChunkUploads.chunkSize

        let upload = Process()
        upload.executableURL = URL(fileURLWithPath: executable)
        upload.arguments = ["upload", "--server", "http://127.0.0.1:\(server.port)", path]
        upload.environment = ProcessInfo.processInfo.environment.merging(["SYMBOLICATE_TOKEN": TestServer.token]) { $1 }
        upload.standardOutput = FileHandle.nullDevice
        upload.standardError = FileHandle.nullDevice
        try upload.run()
        let started = Eventually.waitFor { Self.storedChunks(server) >= 8 || !upload.isRunning }
        kill(upload.processIdentifier, SIGKILL)
        upload.waitUntilExit()
        try #require(started, "no chunk arrived")
        let stored = Self.storedChunks(server)
        try #require(stored < total, "the upload ended before it was killed")
        #expect(try UploadCommandTests.listed(server).isEmpty)

        let again = try UploadCommandTests.run([path], server)
        #expect(again.status == 0, "\(again.stderrText)")
        let received = Self.chunksReceived(server)
        #expect(received.held == 0)
        #expect(received.count == total)
        #expect(Self.storedChunks(server) == total)
        #expect(try UploadCommandTests.listed(server) == [Self.uuid])
    }

    @Test(.needsSentryCLI)
    func sentryCLIUploadsItInChunksAndASecondRunSendsNothing() throws {
        let (folder, path) = try Self.largeDSYM("sentry-large")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let token = SentryCLI.newToken()
        let server = try TestServer {
            $0.tokens = TokenSet(tokens: [token])
            $0.maxBody = 400 << 20
        }
        let first = try SentryCLIUploadTests.upload([path], server, token: token)
        #expect(first.status == 0, "\(first.stdoutText)\(first.stderrText)")
        #expect(try SentryCLIUploadTests.listed(server) == [Self.uuid])
        let received = Self.chunksReceived(server)
        #expect(received.count == Self.storedChunks(server))
        #expect(received.count > 30)
        #expect(received.held == 0)
        let posts = SentryCLIUploadTests.chunkPosts(server)
        let again = try SentryCLIUploadTests.upload([path], server, token: token)
        #expect(again.stdoutText.contains("Nothing to upload"), "\(again.stdoutText)")
        #expect(SentryCLIUploadTests.chunkPosts(server) == posts)
    }
}
