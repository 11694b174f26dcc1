// Symbolicating a report that was symbolicated before (the app's dSYM first, a framework's when it
// arrives; or a report Xcode already symbolicated) gives what one run gives: the inline levels an
// earlier run wrote (text lines repeating a frame's number and address, `.ips` objects marked
// `"inline":true`) are levels of their frame, replaced, never counted as frames of their own.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite struct ResymbolicationTests {
    static func service(_ paths: [String]) throws -> SymbolicationService {
        SymbolicationService(locator: try SymbolPathLocator(paths: paths))
    }

    /// Every sample report, symbolicated twice with every symbol, is the same both times.
    @Test(arguments: Samples.reports)
    func aReportSymbolicatedAgainIsUnchanged(_ name: String) throws {
        let (once, _) = try Samples.process(name)
        let twice = try Self.service([Paths.samples + "/build"]).process(once.output, format: nil)
        #expect(twice.outcome.totalFrames == once.outcome.totalFrames)
        #expect(twice.output == once.output, "\(name): the second run changed the report")
    }

    /// The app's dSYM first, then the framework's: the framework's frames are added and the app's
    /// inline levels are kept once, as one run with both gives.
    @Test(arguments: ["crash", "ips"])
    func aReportSymbolicatedInTwoStepsIsWhatOneRunGives(kind: String) throws {
        let name = "HoldApp-ios-arm64-dwarf5." + kind
        let variant = Paths.samples + "/build/ios-arm64-dwarf5"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.samples + "/reports/" + name)))
        let both = try Self.service([variant]).process(bytes, format: nil)
        let app = try Self.service([variant + "/HoldApp.app.dSYM"]).process(bytes, format: nil)
        let then = try Self.service([variant]).process(app.output, format: nil)
        #expect(then.outcome.totalFrames == both.outcome.totalFrames)
        #expect(then.output == both.output)
    }
}
