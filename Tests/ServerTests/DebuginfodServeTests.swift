// debuginfod served from kept originals, with elfutils' own client as the referee:
// `debuginfod-find debuginfo|executable|section` with DEBUGINFOD_URLS at a live server and a cache
// folder of the test's own. The program is built here with clang (`-g -Wl,--build-id`), split as
// distributions ship it (objcopy --only-keep-debug, strip -g), and both halves are imported with
// --keep-originals. Bad requests (non-hex, over-long ids, section names with path characters) and
// read tokens are checked over plain HTTP.

import Foundation
import TestSupport
import Testing

@testable import Server

/// What the suite runs: elfutils' client and the tools that build and split the program.
enum DebuginfodTools {
    static let find = ProcessRunner.which("debuginfod-find")
    static let present =
        find != nil && ProcessRunner.which("clang") != nil && ProcessRunner.which("objcopy") != nil
        && ProcessRunner.which("strip") != nil
}

@Suite(
    "debuginfod served", .tags(.server), .needsExecutable,
    .enabled(if: DebuginfodTools.present, "needs clang, objcopy, strip and debuginfod-find (Debian debuginfod)"))
struct DebuginfodServeTests {
    static let find = DebuginfodTools.find
    static let reader = "reader-token-0003"

    struct Program {
        let dir: String
        let debug: String
        let stripped: String
        let id: String

        init() throws {
            dir = try Repository.scratchFolder("debuginfod")
            let source = dir + "/m.c"
            try Data("int f(int x) { return 5 * x; }\nint main(int c, char **v) { return f(c); }\n".utf8)
                .write(to: URL(fileURLWithPath: source))
            let full = dir + "/m"
            debug = dir + "/m.debug"
            stripped = dir + "/m.stripped"
            for (tool, args) in [
                ("clang", ["-g", "-Wl,--build-id", "-o", full, source]),
                ("objcopy", ["--only-keep-debug", full, debug]), ("strip", ["-g", full, "-o", stripped]),
            ] {
                let r = try ProcessRunner.run(try #require(ProcessRunner.which(tool)), args)
                #expect(r.status == 0, "\(tool): \(r.stderrText)")
            }
            // The build id as readelf prints it: the referee for the id, not our reader.
            let notes = try ProcessRunner.run("/usr/bin/readelf", ["-n", full]).stdoutText
            let line = try #require(notes.split(separator: "\n").first { $0.contains("Build ID:") })
            id = String(line.split(separator: " ").last ?? "")
        }
    }

    func fetch(_ what: [String], server: TestServer, cache: String, token: String? = nil) throws -> ProcessResult {
        var environment = ["DEBUGINFOD_URLS": "http://127.0.0.1:\(server.port)", "DEBUGINFOD_CACHE_PATH": cache]
        if let token {
            let headers = cache + "-headers"
            try Data("Authorization: Bearer \(token)\n".utf8).write(to: URL(fileURLWithPath: headers))
            environment["DEBUGINFOD_HEADERS_FILE"] = headers
        }
        return try ProcessRunner.run(try #require(Self.find), what, environment: environment)
    }

    @Test func clientFetchesBothHalvesAndASection() throws {
        let program = try Program()
        defer { try? FileManager.default.removeItem(atPath: program.dir) }
        let server = try TestServer {
            $0.readTokens = TokenSet(named: [(name: "gdb", token: Self.reader)])
            $0.keepOriginals = true
        }
        let executable = try #require(Fixtures.executable)
        let imported = try ProcessRunner.run(
            executable,
            [
                "import", "--keep-originals", "--store", server.server.configuration.storeDirectory, program.debug,
                program.stripped,
            ])
        #expect(imported.status == 0, "\(imported.stderrText)")

        let denied = try fetch(["debuginfo", program.id], server: server, cache: program.dir + "/c0")
        #expect(denied.status != 0, "no token, no file")

        for (kind, file) in [("debuginfo", program.debug), ("executable", program.stripped)] {
            let r = try fetch(
                [kind, program.id], server: server, cache: program.dir + "/c-\(kind)", token: Self.reader)
            #expect(r.status == 0, "\(kind): \(r.stderrText)")
            let path = r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: file), "\(kind)")
        }

        let dumped = program.dir + "/debug_line"
        let dump = try ProcessRunner.run(
            "/usr/bin/objcopy", ["--dump-section", ".debug_line=\(dumped)", program.debug, program.dir + "/scratch"])
        #expect(dump.status == 0, "\(dump.stderrText)")
        let section = try fetch(
            ["section", program.id, ".debug_line"], server: server, cache: program.dir + "/c-section",
            token: Self.reader)
        #expect(section.status == 0, "\(section.stderrText)")
        let path = section.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: dumped))

        let headers = [("Authorization", "Bearer \(Self.reader)")]
        let answer = try server.get("/buildid/\(program.id)/debuginfo", headers: headers)
        let size = try #require(FileManager.default.attributesOfItem(atPath: program.debug)[.size] as? Int)
        #expect(answer.headers["x-debuginfod-size"] == String(size))
        #expect(answer.headers["x-debuginfod-file"] == "m.debug")
        #expect(try server.get("/buildid/\(program.id)/source/m.c", headers: headers).status == 404)
    }

    @Test func badRequestsAreRefused() throws {
        let server = try TestServer { $0.readTokens = TokenSet(named: [(name: "gdb", token: Self.reader)]) }
        let headers = [("Authorization", "Bearer \(Self.reader)")]
        let id = "2c5c13321cc3c7f49aa9f8c2200d85b30552d078"
        for (path, message) in [
            ("/buildid/xyz0/debuginfo", "is not a build id"),
            ("/buildid/\(id.uppercased())/debuginfo", "lowercase hex"),
            ("/buildid/abc/executable", "is not a build id"),
            ("/buildid/\(String(repeating: "ab", count: 65))/debuginfo", "at most 128 hex digits"),
            ("/buildid/\(id)/section/..", "is not a section name"),
            ("/buildid/\(id)/section/a%5Cb", "is not a section name"),
            ("/buildid/\(id)/section/%2E%2E", "is not a section name"),
        ] {
            let r = try server.get(path, headers: headers)
            #expect(r.status == 400, "\(path): \(r.status) \(r.text)")
            #expect(r.text.contains(message), "\(path): \(r.text)")
        }
        #expect(try server.get("/buildid/\(id)/debuginfo", headers: headers).status == 404)
        // An encoded slash makes another path, which no route has.
        let slash = try server.get("/buildid/\(id)/section/a%2Fb", headers: headers)
        #expect(slash.status == 404 && slash.text.contains("no endpoint"), "\(slash.text)")
    }
}
