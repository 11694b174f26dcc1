// debuginfod, used: a build missing from the store is fetched by build id, checked and imported.
// The server is elfutils' own (`debuginfod -F DIR`), serving the debug file of a Swift program
// built and crashed here; the runtime's own symbolicated report of the unstripped build is the
// referee for what our answer names. Misbehaving servers (500, an HTML page, another build's
// file, no answer) are CannedHTTPServer: each is refused, named, nothing is imported, and the
// miss is remembered, so asking again sends nothing.

import Foundation
import Import
import Store
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

enum ElfutilsServer {
    static let path = ProcessRunner.which("debuginfod")
}

@Suite(
    "debuginfod used", .serialized,
    .enabled(if: SwiftCrash.available, "swiftc, binutils or the Swift runtime's crash reports are missing here"))
struct DebuginfodFetchTests {
    /// A fresh store and a fetcher for it.
    static func store(_ folder: String, urls: [String], timeout: Int = 90, keep: Bool = false) throws -> (
        SymbolStore, DebuginfodFetcher
    ) {
        let store = try SymbolStore(directory: folder + "/store")
        var settings = DebuginfodSettings(urls: urls)
        settings.timeoutSeconds = timeout
        settings.keepOriginals = keep
        return (store, try DebuginfodFetcher(settings: settings, store: store))
    }

    @Test(.needsExecutable, .enabled(if: ElfutilsServer.path != nil, "needs elfutils' debuginfod (Debian debuginfod)"))
    func missingBuildIsFetchedFromElfutilsDebuginfod() throws {
        let folder = try Repository.scratchFolder("debuginfod-fetch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let binary = try SwiftCrash.build(SwiftCrash.source, ["-Onone"], in: folder)
        let referee = try SwiftCrash.crash(binary, "symbolicate=full,format=json", in: folder)
        let (stripped, debug) = try SwiftCrash.split(binary)
        let report = try SwiftCrash.crash(stripped, "symbolicate=off,format=json", in: folder)
        let served = folder + "/served"
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: debug, toPath: served + "/crasher.debug")
        let notes = try ProcessRunner.run("/usr/bin/readelf", ["-n", debug]).stdoutText
        let line = try #require(notes.split(separator: "\n").first { $0.contains("Build ID:") })
        let id = try #require(BuildID(string: line.split(separator: " ").last ?? ""))

        let port = try #require(Loopback.freePort())
        let server = Process()
        server.executableURL = URL(fileURLWithPath: try #require(ElfutilsServer.path))
        server.arguments = ["-F", "-d", folder + "/debuginfod.sqlite", "-p", "\(port)", served]
        server.environment = ["DEBUGINFOD_URLS": "", "PATH": "/usr/bin:/bin"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            // debuginfod finishes its work before it honours SIGTERM; nothing of it is kept.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let url = "http://127.0.0.1:\(port)"
        // Its scan has finished once it answers for the build.
        let curl = try #require(ProcessRunner.which("curl"))
        let ready = try Eventually.waitFor {
            try ProcessRunner.run(curl, ["-sfo", "/dev/null", "\(url)/buildid/\(id.compactString)/debuginfo"]).status
                == 0
        }
        #expect(ready, "debuginfod did not index \(served)")

        let (store, fetcher) = try Self.store(folder, urls: [url], keep: true)
        let service = SymbolicationService(locator: DebuginfodLocator(store: store, fetcher: fetcher))
        let processed = try service.process(report, format: nil)
        let expected = try SwiftBacktraceTests.jsonChains(referee, path: binary)
        let ours = try SwiftBacktraceTests.jsonChains(processed.output, path: stripped)
        #expect(expected.count >= 6, "the runtime named only \(expected.count) frames")
        for (offset, chain) in expected {
            #expect(ours[offset] == chain, "offset 0x\(String(offset, radix: 16))")
        }
        #expect(try store.builds(matching: id).map(\.kind) == [.debugInfo])
        let original = try #require(try Originals.of(store)?.entry(id, .debuginfo))
        let size = try #require(FileManager.default.attributesOfItem(atPath: debug)[.size] as? Int)
        #expect(original.size == Int64(size) && original.name == "crasher.debug")

        // The other images (the Swift runtime, libc) are not on the server: each asked once, then
        // remembered; the program's build is in the store now. A second pass asks nothing.
        let asked = fetcher.requestCount
        #expect(asked >= 1)
        _ = try service.process(report, format: nil)
        let again = SymbolicationService(locator: DebuginfodLocator(store: store, fetcher: fetcher))
        _ = try again.process(report, format: nil)
        #expect(fetcher.requestCount == asked)
        #expect(fetcher.notes.isEmpty, "\(fetcher.notes)")

        // The command line: no store yet, --debuginfod creates the default one and fills it.
        let executable = try #require(Repository.executable)
        let reportFile = folder + "/report.json"
        try Data(report).write(to: URL(fileURLWithPath: reportFile))
        let run = try ProcessRunner.run(
            executable, ["--debuginfod", url, reportFile],
            environment: ["XDG_DATA_HOME": folder + "/xdg", "SYMBOLICATE_STORE": "", "DEBUGINFOD_URLS": ""])
        #expect(run.status == 0, "\(run.stderrText)")
        let cli = try SwiftBacktraceTests.jsonChains(run.stdout, path: stripped)
        for (offset, chain) in expected {
            #expect(cli[offset] == chain, "symbolicate --debuginfod, offset 0x\(String(offset, radix: 16))")
        }
    }

    /// A build id and an ELF file of another build (this test bundle's tools: /usr/bin/true).
    static let id = BuildID(string: "2c5c13321cc3c7f49aa9f8c2200d85b30552d078")!

    @Test(arguments: ["500", "html", "wrong build", "silent"])
    func badAnswersAreRefusedAndNothingIsImported(_ kind: String) throws {
        let folder = try Repository.scratchFolder("debuginfod-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let answer: CannedHTTPServer.Answer
        let reason: String
        switch kind {
        case "500":
            answer = .respond(status: 500, contentType: "text/plain", body: Array("internal error".utf8))
            reason = "answered 500"
        case "html":
            answer = .respond(status: 200, contentType: "text/html", body: Array("<html><body>hi</body></html>".utf8))
            reason = "not an ELF or Mach-O file"
        case "wrong build":
            let other = try #require(FileManager.default.contents(atPath: "/usr/bin/true"))
            answer = .respond(status: 200, contentType: "application/octet-stream", body: [UInt8](other))
            reason = "not the one asked for"
        default:
            answer = .silent
            reason = "no answer within 1 s"
        }
        let server = try CannedHTTPServer(answer)
        defer { server.stop() }
        let (store, fetcher) = try Self.store(folder, urls: [server.url], timeout: 1, keep: true)
        #expect(fetcher.fetch(Self.id) == false)
        #expect(server.requestCount == 1, "one request; a failing server is not asked for the executable too")
        #expect(fetcher.notes.count == 1 && fetcher.notes[0].contains(reason), "\(fetcher.notes)")
        #expect(try store.list().isEmpty)
        #expect(try Originals.of(store)?.entries().entries.isEmpty == true)
        // Remembered: the next report's lookup asks nothing.
        let locator = DebuginfodLocator(store: store, fetcher: fetcher)
        guard case .notFound = locator.resolve(uuid: Self.id, arch: nil, name: "m") else {
            Issue.record("a refused build must be missing")
            return
        }
        #expect(server.requestCount == 1)
    }
}
