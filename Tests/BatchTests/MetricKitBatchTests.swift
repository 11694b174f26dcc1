// A MetricKit payload in a batch run is one report, and the summary counts its diagnostics: the
// counts are checked against the payloads' own JSON (read with Foundation, not our parser).

import Foundation
import Symbolication
import Testing

@testable import Batch

@Suite(
    .enabled(if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent (run Samples/generate.sh)"))
struct MetricKitBatchTests {
    static let diagnosticKeys = [
        "crashDiagnostics", "hangDiagnostics", "cpuExceptionDiagnostics", "diskWriteExceptionDiagnostics",
        "appLaunchDiagnostics",
    ]

    /// The diagnostics a payload file holds (an MXDiagnosticPayload or an array of them).
    static func diagnosticCount(_ bytes: [UInt8]) throws -> Int {
        let json = try JSONSerialization.jsonObject(with: Data(bytes))
        let payloads = (json as? [[String: Any]]) ?? [(json as? [String: Any]) ?? [:]]
        return payloads.reduce(0) { sum, payload in
            sum + diagnosticKeys.reduce(0) { $0 + ((payload[$1] as? [Any])?.count ?? 0) }
        }
    }

    @Test func aPayloadIsOneReportAndItsDiagnosticsAreCounted() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let folder = BatchFixture.repoRoot + "/Samples/diagnostics"
        let input = fixture.root + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        var expected = 0
        for name in ["HoldApp-metrickit.json", "HoldApp-metrickit-array.json"] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            expected += try Self.diagnosticCount(bytes)
            try BatchFixture.write(bytes, to: input + "/" + name)
        }
        #expect(expected > 2, "the Samples payloads should hold several diagnostics")
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([input], into: fixture.root + "/out"),
            service: try BatchFixture.service()
        ).run()
        #expect(summary.counts.reportsRead == 2)
        #expect(summary.counts.metricKitDiagnostics == expected)
        #expect(summary.table().contains("MetricKit diagnostics"))
    }

    @Test func crashReportsAloneLeaveTheCountOut() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let input = fixture.root + "/in"
        let name = try #require(BatchFixture.sampleReportNames.first)
        try BatchFixture.write(try BatchFixture.sample(name), to: input + "/" + name)
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([input], into: fixture.root + "/out"),
            service: try BatchFixture.service()
        ).run()
        #expect(summary.counts.reportsRead == 1)
        #expect(summary.counts.metricKitDiagnostics == nil)
    }
}
