// `POST /v1/symbolicate` and the compatibility endpoints against a server whose store holds the
// Samples dSYMs: the answer is byte for byte what the library (and so the CLI) produces, in every
// format, gzip-encoded bodies decode, missing images are named in X-Symbolicate-Missing, and garbage
// bodies get 400/413/415/422, never a crash. Sentry and Mozilla shapes are checked against the same
// frames' answers from the native JSON.

import Compression
import Foundation
import Server
import Store
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite("POST /v1/symbolicate", .tags(.server))
struct SymbolicateEndpointTests {
    static let variant = "ios-arm64-dwarf5"

    /// Whether the Samples dSYMs and reports these tests use are there.
    static var samplesPresent: Bool {
        Fixtures.build("\(variant)/HoldApp.app.dSYM") != nil
            && Fixtures.build("\(variant)/HoldKit.framework.dSYM") != nil
            && Fixtures.report("HoldApp-\(variant).crash") != nil
    }
    static let samplesAbsent = "Samples/build and Samples/reports are absent (run Samples/generate.sh)"

    /// A server with both dSYMs of the variant imported (only HoldApp's without `holdKit`).
    static func serverWithSamples(holdKit: Bool = true) throws -> TestServer {
        let app = try #require(Fixtures.build("\(variant)/HoldApp.app.dSYM"))
        let kit = try #require(Fixtures.build("\(variant)/HoldKit.framework.dSYM"))
        let server = try TestServer()
        try server.importDirectly(holdKit ? [app, kit] : [app])
        return server
    }

    static func expected(_ server: TestServer, _ bytes: [UInt8], format: OutputFormat?) throws -> ProcessedReport {
        let store = try SymbolStore(directory: server.server.configuration.storeDirectory)
        return try SymbolicationService(locator: StoreLocator(store: store)).process(bytes, format: format)
    }

    @Test(.enabled(if: samplesPresent, "\(samplesAbsent)"), arguments: ["crash", "ips"])
    func answersWhatTheLibraryAnswers(kind: String) throws {
        let server = try Self.serverWithSamples()
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).\(kind)"))
        let expected = try Self.expected(server, report, format: nil)
        #expect(expected.outcome.symbolicatedFrames > 0)
        let response = try server.post("/v1/symbolicate", report)
        #expect(response.status == 200)
        #expect(response.body == expected.output)
        #expect(response.headers["content-type"] == expected.contentType)
        #expect(
            response.headers["x-symbolicate-frames"]
                == "\(expected.outcome.symbolicatedFrames)/\(expected.outcome.totalFrames)")
        // System libraries (UIKitCore, ...) have no symbols in this store; the app's own images do.
        let missing = response.headers["x-symbolicate-missing"] ?? ""
        #expect(missing == Self.missingUUIDs(expected.outcome))
        for uuid in Fixtures.uuids(variant: Self.variant).values { #expect(!missing.contains(uuid)) }

        for format in OutputFormat.allCases {
            let converted = try server.post("/v1/symbolicate?format=\(format.rawValue)", report)
            do {
                let wanted = try Self.expected(server, report, format: format)
                #expect(converted.status == 200)
                #expect(converted.body == wanted.output, "format=\(format)")
            } catch let error as SymbolicateError {
                // A conversion the library refuses (text -> .ips) is refused the same way over HTTP.
                #expect(converted.status == HTTPError(error).status, "format=\(format)")
            }
        }
        let json = try server.post("/v1/symbolicate", report, headers: [("Accept", "application/json")])
        #expect(json.headers["content-type"] == "application/json")
        #expect(json.json()["frames_symbolicated"] as? Int == expected.outcome.symbolicatedFrames)
    }

    /// A text report asked for as `.ips` is refused naming the query parameter to use, not the
    /// command line's `--format`.
    @Test(.enabled(if: Fixtures.report("HoldApp-ios-arm64-dwarf4.crash") != nil, "\(samplesAbsent)"))
    func aTextReportAskedForAsIPSIsToldTheQueryParameter() throws {
        let server = try TestServer()
        let report = try #require(Fixtures.report("HoldApp-ios-arm64-dwarf4.crash"))
        let response = try server.post("/v1/symbolicate?format=ips", report)
        #expect(response.status == 422)
        let message = (response.json()["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(
            message == "a text report cannot be written as .ips; ask for ?format=crash or ?format=json", "\(message)")
    }

    @Test(.enabled(if: samplesPresent, "\(samplesAbsent)"))
    func gzipBodies() throws {
        let server = try Self.serverWithSamples()
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))
        let plain = try server.post("/v1/symbolicate", report)
        let zipped = try server.post("/v1/symbolicate", gzip(report), headers: [("Content-Encoding", "gzip")])
        #expect(zipped.status == 200)
        #expect(zipped.body == plain.body)
        let broken = try server.post(
            "/v1/symbolicate", Array(gzip(report).prefix(40)), headers: [("Content-Encoding", "gzip")])
        #expect(broken.status == 400)
        // Two gzip members one after another (`cat a.gz b.gz`) are one body, as gzip -d reads it;
        // anything else after the stream is refused, not dropped.
        let half = report.count / 2
        let members = gzip(Array(report[..<half])) + gzip(Array(report[half...]))
        let joined = try server.post("/v1/symbolicate", members, headers: [("Content-Encoding", "gzip")])
        #expect(joined.status == 200)
        #expect(joined.body == plain.body)
        let trailing = try server.post(
            "/v1/symbolicate", gzip(report) + Array("trailing".utf8), headers: [("Content-Encoding", "gzip")])
        #expect(trailing.status == 400)
        let unknown = try server.post("/v1/symbolicate", report, headers: [("Content-Encoding", "br")])
        #expect(unknown.status == 415)
        // 40 MB of zeros in ~40 KB: refused at the report limit, not inflated into memory.
        let bomb = gzip([UInt8](repeating: 0, count: 40 << 20))
        #expect(bomb.count < 1 << 20)
        let refused = try server.post("/v1/symbolicate", bomb, headers: [("Content-Encoding", "gzip")])
        #expect(refused.status == 413)
    }

    @Test(.enabled(if: samplesPresent, "\(samplesAbsent)"))
    func missingImagesAreNamed() throws {
        let server = try Self.serverWithSamples(holdKit: false)
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))
        let holdKit = try #require(Fixtures.uuids(variant: Self.variant)["HoldKit"])
        let response = try server.post("/v1/symbolicate", report)
        #expect(response.status == 200)
        let missing = (response.headers["x-symbolicate-missing"] ?? "").split(separator: ",").map(String.init)
        #expect(missing.contains(holdKit))
        #expect(!missing.contains(Fixtures.uuids(variant: Self.variant)["HoldApp"] ?? "-"))
        let metrics = try server.get("/metrics").text
        #expect(metrics.contains("symbolicate_reports_symbolicated_total 1"))
        #expect(!metrics.contains("symbolicate_frames_missing_total 0\n"))
    }

    @Test func garbageBodies() throws {
        let server = try TestServer()
        #expect(try server.post("/v1/symbolicate", []).status == 400)
        var generator = SystemRandomNumberGenerator()
        for size in [1, 100, 10_000] {
            let noise = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let response = try server.post("/v1/symbolicate", noise)
            #expect([400, 422].contains(response.status), "random \(size) bytes -> \(response.status)")
            #expect(response.errorCode != nil)
        }
        let json = try server.post("/v1/symbolicate", Array(#"{"hello": "world"}"#.utf8))
        #expect([400, 422].contains(json.status))
        let format = try server.post("/v1/symbolicate?format=pdf", Array("x".utf8))
        #expect(format.status == 400)
        #expect(try server.get("/healthz").status == 200)
    }

    @Test(.enabled(if: samplesPresent, "\(samplesAbsent)"))
    func sentryAndMozillaShapes() throws {
        let server = try Self.serverWithSamples()
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))
        let expected = try Self.expected(server, report, format: .json)
        let parsed = expected.report
        let crashed = try #require(parsed.backtraces.firstIndex { $0.kind == .thread && $0.crashed })
        let thread = parsed.backtraces[crashed]
        let used = parsed.images.filter { image in thread.frames.contains { parsed.image(for: $0) == image } }

        // Sentry: absolute addresses, modules with lowercase dashed debug ids.
        let modules: [[String: Any]] = used.map {
            [
                "type": "macho", "debug_id": $0.uuid?.uuidString.lowercased() ?? "", "code_file": $0.path ?? $0.name,
                "image_addr": "0x" + String($0.loadAddress, radix: 16), "image_size": $0.size ?? 0,
            ]
        }
        let frames = thread.frames.map { ["instruction_addr": "0x" + String($0.address, radix: 16)] }
        let sentryBody = try JSONSerialization.data(withJSONObject: [
            "modules": modules, "stacktraces": [["frames": frames]],
        ])
        let sentry = try server.post(
            "/symbolicate", [UInt8](sentryBody), headers: [("Content-Type", "application/json")])
        #expect(sentry.status == 200)
        let document = try server.get("/openapi.json").json()
        OpenAPIResultTests.check(sentry, "/symbolicate", "post", document)
        let sentryFrames =
            ((sentry.json()["stacktraces"] as? [[String: Any]])?.first?["frames"] as? [[String: Any]]) ?? []
        var wanted: [String] = []
        var wantedOutermost: [String] = []
        for (f, _) in thread.frames.enumerated() {
            let result = expected.outcome.results[FrameID(backtrace: crashed, frame: f)]
            wanted += result?.frames.map(\.symbol) ?? []
            if let last = result?.frames.last { wantedOutermost.append(last.symbol) }
        }
        #expect(!wanted.isEmpty)
        #expect(sentryFrames.compactMap { $0["function"] as? String } == wanted, "inline frames expanded, same order")

        // Mozilla v5: module offsets, uppercase undashed debug id + age.
        let memoryMap = used.map { [$0.name, ($0.uuid?.compactString.uppercased() ?? "") + "0"] }
        let stack = thread.frames.map { frame -> [Any] in
            let i = used.firstIndex { $0 == parsed.image(for: frame) } ?? -1
            return [i, i >= 0 ? frame.address - used[i].loadAddress : frame.address]
        }
        // v5 looks offsets up as given: send the return addresses minus one, as profilers do.
        let adjusted = stack.enumerated().map { f, pair -> [Any] in
            f == 0 ? pair : [pair[0], ((pair[1] as? UInt64) ?? 1) - 1]
        }
        let mozillaBody = try JSONSerialization.data(withJSONObject: [
            "jobs": [["memoryMap": memoryMap, "stacks": [adjusted]]]
        ])
        let mozilla = try server.post("/symbolicate/v5", [UInt8](mozillaBody))
        #expect(mozilla.status == 200)
        OpenAPIResultTests.check(mozilla, "/symbolicate/v5", "post", document)
        let result = (mozilla.json()["results"] as? [[String: Any]])?.first ?? [:]
        let mozillaFrames = ((result["stacks"] as? [[[String: Any]]])?.first) ?? []
        #expect(mozillaFrames.compactMap { $0["function"] as? String } == wantedOutermost)
        let found = result["found_modules"] as? [String: Any] ?? [:]
        #expect(found.count == used.count)
        let hasInlines = mozillaFrames.contains { $0["inlines"] != nil }
        #expect(hasInlines == (wanted.count > wantedOutermost.count))

        #expect(try server.post("/symbolicate", Array("nope".utf8)).status == 400)
        #expect(try server.post("/symbolicate/v5", Array(#"{"memoryMap": 3}"#.utf8)).status == 400)
    }

    static func missingUUIDs(_ outcome: SymbolicationOutcome) -> String {
        var seen = Set<String>()
        return outcome.missing.compactMap { $0.uuid?.uuidString }.filter { seen.insert($0).inserted }.joined(
            separator: ",")
    }

    func gzip(_ bytes: [UInt8]) -> [UInt8] {
        Zlib.deflate(bytes, framing: .gzip) ?? []
    }
}

/// `format=json` says which images are the system's (the one definition the page and `--strict`
/// use) and which dyld shared cache would give the missing ones their symbols.
@Suite struct SystemImageJSONTests {
    @Test(.enabled(if: SymbolicateEndpointTests.samplesPresent, "\(SymbolicateEndpointTests.samplesAbsent)"))
    func systemImagesAndTheCacheToImport() throws {
        let server = try SymbolicateEndpointTests.serverWithSamples()
        let report = try #require(Fixtures.report("HoldApp-ios-arm64-dwarf4.crash"))
        let answer = try server.post("/v1/symbolicate?format=json", report)
        #expect(answer.status == 200, "\(answer.text)")
        let json = answer.json()
        let images = json["images"] as? [[String: Any]] ?? []
        let system = Set(images.filter { $0["system"] as? Bool == true }.compactMap { $0["name"] as? String })
        #expect(system.isSuperset(of: ["libsystem_kernel.dylib", "UIKitCore", "libdyld.dylib"]), "\(system)")
        #expect(!system.contains("HoldApp") && !system.contains("HoldKit"))
        let caches = json["dyld_caches"] as? [[String: Any]] ?? []
        #expect(caches.count == 1, "\(caches)")
        #expect(caches.first?["build"] as? String == "19F77" && caches.first?["arch"] as? String == "arm64e")
        #expect(caches.first?["os"] as? String == "iPhone OS 15.5 (19F77)")
        #expect(
            caches.first?["advice"] as? String
                == "import the dyld shared cache of 19F77 arm64e (iPhone OS 15.5 (19F77)): libsystem_kernel.dylib,"
                + " UIKitCore, libdyld.dylib")
    }
}
