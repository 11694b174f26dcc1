// The summary the web page shows above the stack: a text report and the .ips it was converted
// from must give the same app, version, OS, device, exception and crashed thread, read from
// what each format states (the text header, the .ips JSON header and body).

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
}
