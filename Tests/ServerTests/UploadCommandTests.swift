// `symbolicate upload` against a live server: the Samples' builds go up and every id is listed,
// a second run sends no chunk, a file whose first chunks the server already holds (an upload
// interrupted after them) sends only the rest, a file over the server's limit fails the run by
// name (exit 1), `--dry-run` changes nothing, and a missing --server is a usage error.

import Digest
import Foundation
import Store
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

@Suite("symbolicate upload", .tags(.server), .needsSamples, .needsExecutable)
struct UploadCommandTests {
    static func run(_ arguments: [String], _ server: TestServer) throws -> ProcessResult {
        let executable = try #require(Fixtures.executable)
        return try ProcessRunner.run(
            executable, ["upload", "--server", "http://127.0.0.1:\(server.port)"] + arguments,
            environment: ["SYMBOLICATE_TOKEN": TestServer.token])
    }

    static func listed(_ server: TestServer) throws -> Set<String> {
        let builds = try server.get("/v1/symbols?per_page=1000").json()["builds"] as? [[String: Any]] ?? []
        return Set(builds.compactMap { $0["uuid"] as? String })
    }

    @Test func samplesGoUpOnceAndEveryIdIsListed() throws {
        let server = try TestServer()
        let dryRun = try Self.run(["--dry-run", Repository.samplesBuild], server)
        #expect(dryRun.status == 0, "\(dryRun.stderrText)")
        #expect(dryRun.stdoutText.contains("missing"))
        #expect(try Self.listed(server).isEmpty)

        let first = try Self.run([Repository.samplesBuild], server)
        #expect(first.status == 0, "\(first.stderrText)")
        #expect(try Self.listed(server) == SentryCLIUploadTests.sampleUUIDs())
        let posts = SentryCLIUploadTests.chunkPosts(server)
        let second = try Self.run([Repository.samplesBuild], server)
        #expect(second.status == 0, "\(second.stderrText)")
        #expect(second.stderrText.contains("uploaded 0 files, "))
        #expect(second.stderrText.contains(" already on the server, 0 failed"))
        #expect(SentryCLIUploadTests.chunkPosts(server) == posts)
    }

    @Test func membersOfAZipGoUpUnderTheirOwnNames() throws {
        var zip = ZipFixture()
        for bundle in ["HoldApp.app.dSYM", "HoldKit.framework.dSYM"] {
            try zip.addTree(Repository.samplesBuild + "/universal-dwarf5/\(bundle)", as: bundle)
        }
        zip.add("README.txt", contents: Array("not a symbol file".utf8))
        let folder = try Repository.scratchFolder("upload-zip")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(zip.bytes).write(to: URL(fileURLWithPath: folder + "/dSYMs.zip"))
        let server = try TestServer()
        let result = try Self.run([folder + "/dSYMs.zip"], server)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("uploaded 2 files"), "\(result.stderrText)")
        #expect(try Self.listed(server) == SentryCLIUploadTests.sampleUUIDs(["universal-dwarf5"]))
        let builds = try server.get("/v1/symbols?per_page=1000").json()["builds"] as? [[String: Any]] ?? []
        #expect(Set(builds.compactMap { $0["name"] as? String }) == ["HoldApp", "HoldKit"])
    }

    @Test func anInterruptedUploadSendsOnlyWhatIsLeft() throws {
        // A dSYM padded to three 8 MiB chunks, of which the server holds the first two already.
        let dsym = Repository.samplesBuild + "/ios-arm64-dwarf4/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: dsym)))
        var generator = SplitMix64(seed: 7)
        bytes += generator.bytes(2 * ChunkUploads.chunkSize + 1000)
        let folder = try Repository.scratchFolder("upload-resume")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/HoldKit"))
        let server = try TestServer()
        let chunks = (0..<2).map { Array(bytes[($0 * ChunkUploads.chunkSize)..<(($0 + 1) * ChunkUploads.chunkSize)]) }
        let response = try ChunkProtocolTests.postChunks(server, chunks.map { ("file", SHA1.hex($0), $0) })
        #expect(response.status == 200)

        let result = try Self.run([folder + "/HoldKit"], server)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("(1 chunk sent)"), "\(result.stderrText)")
        #expect(try Self.listed(server) == ["4C4C44FE-5555-3144-A178-3C5E567A9565"])
    }

    @Test func aFileTheServerDoesNotTakeFailsTheRunByName() throws {
        let server = try TestServer { $0.maxBody = 32 << 10 }
        let dsym = Repository.samplesBuild + "/ios-arm64-dwarf4/HoldApp.app/HoldApp"
        let result = try Self.run([dsym], server)
        #expect(result.status == 1)
        #expect(result.stderrText.contains("FAILED"))
        #expect(result.stderrText.contains("HoldApp"))
        #expect(result.stderrText.contains("at most \(32 << 10) bytes"))
    }

    @Test func usage() throws {
        let executable = try #require(Fixtures.executable)
        let missing = try ProcessRunner.run(
            executable, ["upload", Repository.samplesBuild], environment: ["SYMBOLICATE_SERVER": ""])
        #expect(missing.status == 64)
        #expect(missing.stderrText.contains("--server"))
        let help = try ProcessRunner.run(executable, ["upload", "--help"])
        #expect(help.status == 0)
        #expect(help.stdoutText.contains("--token-file"))
        let server = try TestServer()
        let nothing = try Self.run([Repository.samplesReports], server)
        #expect(nothing.status == 65, "\(nothing.stderrText)")
    }

    @Test(.enabled(if: !Fixtures.sanitized, "serve's import child cannot run under a sanitizer with its memory limit"))
    func retriesUntilTheServerAnswers() throws {
        // The upload starts before the server listens: its requests are retried with backoff.
        let executable = try #require(Fixtures.executable)
        let port = try #require(Loopback.freePort())
        let folder = try Repository.scratchFolder("upload-retry")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "ci:\(TestServer.token)\n".write(toFile: folder + "/tokens.txt", atomically: true, encoding: .utf8)
        let upload = Process()
        upload.executableURL = URL(fileURLWithPath: executable)
        upload.arguments = [
            "upload", "--server", "http://127.0.0.1:\(port)/", "--token-file", folder + "/tokens.txt",
            Repository.samplesBuild + "/ios-arm64-dwarf5/HoldKit.framework.dSYM",
        ]
        let errorsFile = folder + "/upload-errors.txt"
        _ = FileManager.default.createFile(atPath: errorsFile, contents: nil)
        upload.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsFile))
        try upload.run()
        func errors() -> String { (try? String(contentsOfFile: errorsFile, encoding: .utf8)) ?? "" }
        // The server starts once the upload has found nothing listening and said it tries again.
        #expect(Eventually.waitFor { errors().contains("trying again") }, "\(errors())")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = [
            "serve", "--store", folder + "/store", "--listen", "127.0.0.1:\(port)", "--token-file",
            folder + "/tokens.txt",
        ]
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        upload.waitUntilExit()
        let text = errors()
        #expect(upload.terminationStatus == 0, "\(text)")
        #expect(text.contains("uploaded 1 file"), "\(text)")
    }
}
