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

    /// The exception's type alone, for crash signatures: the text header's `Exception Type:`, or
    /// the `.ips` body's type and signal, never the codes or subtype that `exception` adds.
    @Test(arguments: ["ios-arm64-dwarf5", "sim-x86_64-dwarf4"])
    func exceptionTypeLeavesOutCodesAndSubtype(_ variant: String) throws {
        let text = try Self.summary("HoldApp-\(variant).crash")
        let ips = try Self.summary("HoldApp-\(variant).ips")
        let type = try #require(text.exceptionType)
        #expect(ips.exceptionType == type)
        #expect(type.hasPrefix("EXC_") && type.hasSuffix(")") && !type.contains(","), "\(type)")
        #expect(text.exception?.hasPrefix(type) == true)
    }

    /// A JSON header + text report without a `Version:` line takes the header's version; a
    /// build number equal to the short version is not repeated, and a build alone is the version.
    @Test func versionFromAJSONHeader() throws {
        func summary(header: String) throws -> ReportSummary {
            let text = Fixtures.textReport.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("Version:") }.joined(separator: "\n")
            return ReportSummary(try ReportParser.parse(Array((header + "\n" + text).utf8)))
        }
        let both = try summary(header: #"{"bug_type":"109","app_version":"2.0","build_version":"57"}"#)
        #expect(both.version == "2.0 (57)")
        #expect(both.exceptionType == "EXC_CRASH (SIGABRT)")
        #expect(try summary(header: #"{"bug_type":"109","app_version":"2.0","build_version":"2.0"}"#).version == "2.0")
        #expect(try summary(header: #"{"bug_type":"109","build_version":"57"}"#).version == "57")
        #expect(try summary(header: #"{"bug_type":"109"}"#).version == nil)
        let stated = ReportSummary(try ReportParser.parse(Array(Fixtures.textReport.utf8)))
        #expect(stated.version == "1.0 (1)" && stated.exceptionType == "EXC_CRASH (SIGABRT)")
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
