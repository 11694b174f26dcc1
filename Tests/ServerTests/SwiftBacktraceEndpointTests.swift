// `POST /v1/symbolicate` with the Swift runtime's own crash reports, text and JSON, from a stripped
// build whose separate debug file is in the server's store: the answer is what the library gives
// (and so the CLI), the JSON one served as JSON, and the images the store has nothing for (the
// Swift runtime's and the system's libraries) named by build id in X-Symbolicate-Missing. A stored
// report waits for its ELF build id as Apple reports wait for a UUID: listed by `GET /v1/missing`,
// and symbolicated again when the debug file arrives.

import Foundation
import Server
import Store
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite(
    "POST /v1/symbolicate, Swift runtime reports", .tags(.server),
    .enabled(if: SwiftCrash.available, "swiftc, binutils or the Swift runtime's crash reports are missing here"))
struct SwiftBacktraceEndpointTests {
    @Test(arguments: ["json", "text"])
    func answersFromTheStoredDebugFile(_ format: String) throws {
        let folder = try Repository.scratchFolder("swift-backtrace-server")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let binary = try SwiftCrash.build(SwiftCrash.source, ["-Onone"], in: folder)
        let (stripped, debug) = try SwiftCrash.split(binary)
        let report = try SwiftCrash.crash(stripped, "symbolicate=off,format=\(format)", in: folder)
        let server = try TestServer()
        try server.importDirectly([debug])

        let store = try SymbolStore(directory: server.server.configuration.storeDirectory)
        let expected = try SymbolicationService(locator: StoreLocator(store: store)).process(report, format: nil)
        let image = try #require(expected.report.images.first { $0.path == stripped })
        let imageOutcome = try #require(expected.outcome.images.first { $0.image == image })
        #expect(imageOutcome.framesSymbolicated >= 6 && imageOutcome.framesSymbolicated == imageOutcome.framesTotal)

        let response = try server.post("/v1/symbolicate", report)
        #expect(response.status == 200)
        #expect(response.body == expected.output)
        #expect(
            response.headers["content-type"] == (format == "json" ? "application/json" : "text/plain; charset=utf-8"))
        let missing = (response.headers["x-symbolicate-missing"] ?? "").split(separator: ",").map(String.init)
        let runtime = try #require(expected.report.images.first { $0.path != stripped && $0.uuid != nil }?.uuid)
        let own = try #require(image.uuid).uuidString
        #expect(missing.contains(runtime.uuidString) && !missing.contains(own), "\(missing)")
    }

    @Test func aStoredReportWaitsForItsBuildIDAndIsSymbolicatedWhenItArrives() throws {
        let folder = try Repository.scratchFolder("swift-backtrace-stored")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let binary = try SwiftCrash.build(SwiftCrash.source, ["-Onone"], in: folder)
        let (stripped, debug) = try SwiftCrash.split(binary)
        let report = try SwiftCrash.crash(stripped, "symbolicate=off,format=text", in: folder)
        let server = try TestServer { $0.reportWatchInterval = 0.2 }
        let parsed = try SymbolicationService(locator: SymbolLocatorChain([])).process(report, format: nil)
        let own = try #require(parsed.report.images.first { $0.path == stripped }?.uuid).uuidString

        let posted = try server.post("/v1/reports", report, headers: server.auth)
        #expect(posted.status == 201, "\(posted.text)")
        let id = try #require(posted.json()["id"] as? String)
        #expect((posted.json()["missing"] as? [String] ?? []).contains(own), "\(posted.text)")
        let missing = try server.get("/v1/missing", headers: server.auth)
        #expect(missing.text.contains(own), "\(missing.text)")

        try server.importDirectly([debug])
        #expect(
            try Eventually.waitFor {
                let waiting = try server.get("/v1/reports/\(id)", headers: server.auth).json()["missing"] as? [String]
                return !(waiting ?? [own]).contains(own)
            }, "the report still waits for \(own)")
        let store = try SymbolStore(directory: server.server.configuration.storeDirectory)
        let expected = try SymbolicationService(locator: StoreLocator(store: store)).process(report, format: nil)
        let raw = try server.get("/v1/reports/\(id)?view=raw", headers: server.auth)
        #expect(raw.body == expected.output)
    }
}
