// Frames the report already names (system libraries the device symbolicated: an `.ips` frame's
// `symbol`, a text frame printed as `symbol + offset`) and that we have no symbols for: they get
// the status `named_by_report`, keep the report's name, are not listed as missing and do not hold
// the report back from complete. Frames the report leaves as `0xBASE + OFFSET` or `???` stay missing.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import Testing

@Suite struct NamedByReportTests {
    @Test(arguments: ["HoldApp-ios-arm64-dwarf5.crash", "HoldApp-ios-arm64-dwarf5.ips"])
    func systemFramesNamedByTheReportAreNotMissing(_ name: String) throws {
        let (processed, _) = try Samples.process(name, format: .json)
        let report = processed.report
        var named = 0
        for (b, backtrace) in report.backtraces.enumerated() {
            for (f, frame) in backtrace.frames.enumerated() {
                let result = try #require(processed.outcome.results[FrameID(backtrace: b, frame: f)])
                let image = report.image(for: frame)?.name ?? ""
                if image.hasPrefix("Hold") {
                    #expect(result.status == .symbolicated, "\(image) frame \(frame.number)")
                } else {
                    #expect(frame.symbol != nil)
                    #expect(result.status == .namedByReport, "\(image) frame \(frame.number): \(result.status)")
                    named += 1
                }
            }
        }
        #expect(named > 0)
        #expect(processed.outcome.namedByReportFrames == named)
        #expect(processed.outcome.missing.isEmpty, "listed as missing: \(processed.outcome.missing.map(\.name))")
        #expect(processed.outcome.isComplete)
        let json = String(decoding: processed.output, as: UTF8.self)
        #expect(json.contains("\"status\":\"named_by_report\""))
        #expect(json.contains("\"complete\":true"))
        let kit = try #require(processed.outcome.images.first { $0.image.name == "UIKitCore" })
        #expect(kit.summary.contains("named by the report"))
    }

    @Test func unnamedFramesOfAnImageWithoutSymbolsStayMissing() throws {
        let text = """
            Incident Identifier: 1
            Code Type:           ARM-64 (Native)
            Exception Type:  EXC_CRASH (SIGABRT)

            Thread 0 Crashed:
            0   UIKitCore                     \t       0x1ab31c370 -[UIApplication _run] + 124
            1   UIKitCore                     \t       0x1ab31c560 0x1ab302000 + 107872
            2   UIKitCore                     \t       0x1ab31c570 ???
            3   UIKitCore                     \t       0x1ab31c580 UIKitCore + 107904

            Binary Images:
                   0x1ab302000 -        0x1acb9dfff UIKitCore arm64e  <6e0d94b21f3a3c7d8b25c4e9a07f3d61> /System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore

            """
        let locator = try SymbolPathLocator(paths: [])
        let processed = try SymbolicationService(locator: locator).process(Array(text.utf8), format: .json)
        // `UIKitCore + 107904` is backtrace_symbols' form for a frame it has no symbol for.
        let statuses = (0..<4).map { processed.outcome.results[FrameID(backtrace: 0, frame: $0)]?.status }
        #expect(statuses == [.namedByReport, .missingSymbol, .missingSymbol, .missingSymbol])
        #expect(processed.outcome.missing.map(\.name) == ["UIKitCore"])
        #expect(!processed.outcome.isComplete)
        // The report's own name is kept byte for byte.
        #expect(processed.report.original == Array(text.utf8))
    }
}
