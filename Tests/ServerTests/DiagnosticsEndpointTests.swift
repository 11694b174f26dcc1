// `POST /v1/symbolicate` with Apple diagnostics other than crash reports (Samples/diagnostics):
// a MetricKit payload is detected by the shared pipeline and answered with the enriched payload
// (or the status JSON / text on request), byte for byte what the library answers.

import Foundation
import Server
import Store
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite(
    "POST /v1/symbolicate with other diagnostics", .tags(.server),
    .enabled(
        if: DiagnosticsFixtures.available, "Samples/diagnostics or Samples/build is absent (run Samples/generate.sh)"))
struct DiagnosticsEndpointTests {
    @Test(arguments: ["", "?format=json", "?format=crash"])
    func metricKitPayloadIsSymbolicated(query: String) throws {
        let server = try TestServer()
        try server.importDirectly(DiagnosticsFixtures.dSYMs)
        let bytes = try #require(DiagnosticsFixtures.file("HoldApp-metrickit.json"))
        let store = try SymbolStore(directory: server.server.configuration.storeDirectory)
        let format: OutputFormat? = query.isEmpty ? nil : OutputFormat(rawValue: String(query.dropFirst(8)))
        let expected = try SymbolicationService(locator: StoreLocator(store: store)).process(
            bytes, format: format)
        #expect(expected.outcome.symbolicatedFrames > 0)
        let response = try server.post("/v1/symbolicate" + query, bytes)
        #expect(response.status == 200)
        #expect(response.body == expected.output)
        #expect(response.headers["content-type"] == expected.contentType)
    }
}

enum DiagnosticsFixtures {
    static let variant = "ios-arm64-dwarf5"

    static var dSYMs: [String] {
        ["\(variant)/HoldApp.app.dSYM", "\(variant)/HoldKit.framework.dSYM"].compactMap { Fixtures.build($0) }
    }

    static var available: Bool { dSYMs.count == 2 && file("HoldApp-metrickit.json") != nil }

    static func file(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: Fixtures.samples + "/diagnostics/" + name).map { [UInt8]($0) }
    }
}
