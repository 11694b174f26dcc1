// sentry-cli 3.x against a live server: `sentry-cli debug-files upload` of the Samples' builds (a
// folder of dSYMs and .apps, and a zip of several dSYMs) stores every build, as `symbolicate list`
// then shows, and a second run sends no chunk (the access log counts the chunk POSTs). The client
// is the referee of the protocol: what it sends and how it reads the answers is its own.

import Foundation
import Store
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

@Suite("sentry-cli uploads", .tags(.server), .needsSentryCLI, .needsSamples, .needsExecutable)
struct SentryCLIUploadTests {
    /// A server whose write token has the shape sentry-cli expects.
    static func server() throws -> (TestServer, String) {
        let token = SentryCLI.newToken()
        let server = try TestServer { $0.tokens = TokenSet(tokens: [token]) }
        return (server, token)
    }

    static func upload(_ paths: [String], _ server: TestServer, token: String) throws -> ProcessResult {
        try SentryCLI.run(
            ["debug-files", "upload", "--wait", "--org", "team", "--project", "app"] + paths, port: Int(server.port),
            token: token)
    }

    /// The UUIDs `symbolicate list` shows for the server's store.
    static func listed(_ server: TestServer) throws -> Set<String> {
        let executable = try #require(Fixtures.executable)
        let result = try ProcessRunner.run(
            executable, ["list", "--json", "--store", server.server.configuration.storeDirectory])
        let builds = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]] ?? []
        return Set(builds.compactMap { $0["uuid"] as? String })
    }

    /// Every UUID of Samples/build/images.tsv, for the variants given (all when nil).
    static func sampleUUIDs(_ variants: Set<String>? = nil) throws -> Set<String> {
        let text = try String(contentsOfFile: Repository.samplesBuild + "/images.tsv", encoding: .utf8)
        return Set(
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: "\t") }
                .filter { variants == nil || variants!.contains(String($0[0])) }.map { String($0[3]) })
    }

    static func chunkPosts(_ server: TestServer) -> Int {
        server.accessLog.split(separator: "\n").filter {
            $0.contains(#""method":"POST""#) && $0.contains("/chunk-upload/")
        }.count
    }

    @Test func samplesUploadOnceAndListEveryBuild() throws {
        let (server, token) = try Self.server()
        let first = try Self.upload([Repository.samplesBuild], server, token: token)
        #expect(first.status == 0, "\(first.stdoutText)\(first.stderrText)")
        #expect(first.stdoutText.contains("OK"))
        #expect(try Self.listed(server) == Self.sampleUUIDs())
        let posts = Self.chunkPosts(server)
        #expect(posts > 0)

        let second = try Self.upload([Repository.samplesBuild], server, token: token)
        #expect(second.status == 0, "\(second.stdoutText)\(second.stderrText)")
        #expect(second.stdoutText.contains("Nothing to upload"))
        #expect(Self.chunkPosts(server) == posts)
    }

    @Test func zipOfSeveralDSYMs() throws {
        var zip = ZipFixture()
        for variant in ["ios-arm64-dwarf4", "universal-dwarf5"] {
            for bundle in ["HoldApp.app.dSYM", "HoldKit.framework.dSYM"] {
                try zip.addTree(Repository.samplesBuild + "/\(variant)/\(bundle)", as: "\(variant)/\(bundle)")
            }
        }
        let folder = try Repository.scratchFolder("sentry-zip")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(zip.bytes).write(to: URL(fileURLWithPath: folder + "/dSYMs.zip"))
        let (server, token) = try Self.server()
        let result = try Self.upload([folder + "/dSYMs.zip"], server, token: token)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(try Self.listed(server) == Self.sampleUUIDs(["ios-arm64-dwarf4", "universal-dwarf5"]))
        let again = try Self.upload([folder + "/dSYMs.zip"], server, token: token)
        #expect(again.stdoutText.contains("Nothing to upload"), "\(again.stdoutText)")
    }

    @Test(.enabled(if: ProcessRunner.which("clang") != nil, "clang is not installed"))
    func elfDebugFileKeepsSentrysDebugID() throws {
        let folder = try Repository.scratchFolder("sentry-elf")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n".write(
            toFile: folder + "/m.c", atomically: true, encoding: .utf8)
        let compiled = try ProcessRunner.run(
            "clang", ["-g", "-O1", "-Wl,--build-id=sha1", "-o", folder + "/libm.so", folder + "/m.c"])
        try #require(compiled.status == 0, "\(compiled.stderrText)")
        let (server, token) = try Self.server()
        // sentry-cli's own debug id for the file: the build id's first 16 bytes as a little-endian GUID.
        let check = try SentryCLI.run(
            ["debug-files", "check", folder + "/libm.so"], port: Int(server.port), token: token)
        let line = try #require(check.stdoutText.split(separator: "\n").first { $0.contains("Debug ID:") })
        let debugID = String(line.split(separator: " ").last ?? "")
        let result = try Self.upload(["--id", debugID, "--require-all", folder + "/libm.so"], server, token: token)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stdoutText.contains("OK \(debugID)"), "\(result.stdoutText)")
        let readelf = try ProcessRunner.run("readelf", ["-n", folder + "/libm.so"])
        let buildID = try #require(
            readelf.stdoutText.split(separator: "\n").first { $0.contains("Build ID:") }?.split(separator: " ").last)
        #expect(try server.get("/v1/symbols/\(buildID)").status == 200)

        // A source bundle is taken and ignored, not a failed run.
        let sources = try Self.upload(["--include-sources", folder + "/libm.so"], server, token: token)
        #expect(sources.status == 0, "\(sources.stdoutText)\(sources.stderrText)")
        #expect(sources.stdoutText.contains("sources"), "\(sources.stdoutText)")
    }

    @Test func noUploadSendsNothing() throws {
        let (server, token) = try Self.server()
        let result = try Self.upload(
            ["--no-upload", Repository.samplesBuild + "/ios-arm64-dwarf4"], server, token: token)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(Self.chunkPosts(server) == 0)
        #expect(try Self.listed(server).isEmpty)
    }

    @Test func aFileOfSeveralChunks() throws {
        // A dSYM padded past two chunks: sentry-cli cuts it, sends each chunk once, and the
        // server joins them back into the file it imports.
        let dsym = Repository.samplesBuild + "/ios-arm64-dwarf4/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: dsym)))
        var generator = SplitMix64(seed: 11)
        bytes += generator.bytes(2 * ChunkUploads.chunkSize + 4096)
        let folder = try Repository.scratchFolder("sentry-chunks")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/HoldKit"))
        let (server, token) = try Self.server()
        let result = try Self.upload([folder + "/HoldKit"], server, token: token)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(try Self.listed(server) == ["4C4C44FE-5555-3144-A178-3C5E567A9565"])
        let again = try Self.upload([folder + "/HoldKit"], server, token: token)
        #expect(again.stdoutText.contains("Nothing to upload"), "\(again.stdoutText)")
    }
}
