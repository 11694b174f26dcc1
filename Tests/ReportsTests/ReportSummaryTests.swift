// The summary the web page shows above the stack: a text report and the .ips it was converted
// from must give the same app, version, OS, device, exception and crashed thread, read from
// what each format states (the text header, the .ips JSON header and body); MetricKit payloads
// and microstackshot reports give theirs under their own names.

import Foundation
import Testing

@testable import Reports

@Suite struct ReportSummaryTests {
    static let reports =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path + "/Samples/reports"

    static func summary(_ name: String) throws -> ReportSummary {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: reports + "/" + name)))
        return ReportSummary(try ReportParser.parse(bytes))
    }

    @Test(arguments: ["ios-arm64-dwarf5", "ios-arm64-dwarf4", "sim-x86_64-dwarf4", "universal-dwarf5"])
    func textAndIPSAgree(_ variant: String) throws {
        let text = try Self.summary("HoldApp-\(variant).crash")
        let ips = try Self.summary("HoldApp-\(variant).ips")
        #expect(text == ips)
        #expect(text.app == "HoldApp")
        #expect(text.version == "1.2 (12)")
        #expect(text.exception?.hasPrefix("EXC_") == true)
        #expect(text.crashedThread == 0)
        #expect(text.os != nil && text.device != nil)
    }

    @Test func textHeaderFields() throws {
        let s = ReportSummary(try ReportParser.parse(Array(Fixtures.textReport.utf8)))
        #expect(s.app == "My App")
        #expect(s.exception == "EXC_CRASH (SIGABRT)")
        #expect(s.crashedThread == 0)
    }

    static let diagnostics =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path + "/Samples/diagnostics"

    static func diagnosticSummary(_ name: String) throws -> ReportSummary {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: diagnostics + "/" + name)))
        return ReportSummary(try ReportParser.parse(bytes))
    }

    @Test(arguments: ["HoldApp-metrickit.json", "HoldApp-metrickit-array.json"])
    func metricKitMetadata(_ name: String) throws {
        let s = try Self.diagnosticSummary(name)
        #expect(s.app == "com.example.HoldApp")
        #expect(s.version == "1.0 (1)")
        #expect(s.os == "iPhone OS 16.1 (20B82)")
        #expect(s.device == "iPhone14,2")
        #expect(s.exception == "EXC_BAD_ACCESS (SIGSEGV)")
    }

    @Test func microstackshotHeader() throws {
        let s = try Self.diagnosticSummary("HoldApp-cpu-resource.txt")
        #expect(s.app == "HoldApp")
        #expect(s.os == "iPhone OS 16.1 (Build 20B82)")
        #expect(s.device == "iPhone14,2")
        #expect(s.exception == "cpu usage")
    }
}
