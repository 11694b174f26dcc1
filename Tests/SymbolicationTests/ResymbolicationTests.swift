// Symbolicating a report that was symbolicated before (the app's dSYM first, a framework's when it
// arrives; or a report Xcode already symbolicated) gives what one run gives: the inline levels an
// earlier run wrote are levels of their frame, replaced, never counted as frames of their own.

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

    static var ipsReports: [String] { Samples.reports.filter { $0.hasSuffix(".ips") } }

    /// Every sample .ips, symbolicated twice with every symbol, is the same both times.
    @Test(arguments: ipsReports)
    func anIpsSymbolicatedAgainIsUnchanged(_ name: String) throws {
        let (once, _) = try Samples.process(name)
        let service = try Self.service([Paths.samples + "/build"])
        let twice = try service.process(once.output, format: nil)
        #expect(twice.outcome.totalFrames == once.outcome.totalFrames)
        #expect(twice.output == once.output, "\(name): the second run changed the report")
    }

    /// The app's dSYM first, then the framework's: the framework's frames are added and the app's
    /// inline levels are kept once, as one run with both gives.
    @Test func anIpsSymbolicatedInTwoStepsIsWhatOneRunGives() throws {
        let name = "HoldApp-ios-arm64-dwarf5.ips"
        let variant = Paths.samples + "/build/ios-arm64-dwarf5"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.samples + "/reports/" + name)))
        let both = try Self.service([variant]).process(bytes, format: nil)
        let app = try Self.service([variant + "/HoldApp.app.dSYM"]).process(bytes, format: nil)
        let then = try Self.service([variant]).process(app.output, format: nil)
        #expect(then.outcome.totalFrames == both.outcome.totalFrames)
        #expect(then.output == both.output)
    }

    static var crashReports: [String] { Samples.reports.filter { $0.hasSuffix(".crash") } }

    /// Every sample text report, symbolicated twice with every symbol, is the same both times:
    /// the inline lines of a frame (its number and address again) are its levels, replaced.
    @Test(arguments: crashReports)
    func aTextReportSymbolicatedAgainIsUnchanged(_ name: String) throws {
        let (once, _) = try Samples.process(name)
        let service = try Self.service([Paths.samples + "/build"])
        let twice = try service.process(once.output, format: nil)
        #expect(twice.outcome.totalFrames == once.outcome.totalFrames)
        #expect(twice.output == once.output, "\(name): the second run changed the report")
    }

    /// The app's dSYM first, then the framework's, on a text report: what one run with both gives.
    @Test func aTextReportSymbolicatedInTwoStepsIsWhatOneRunGives() throws {
        let name = "HoldApp-ios-arm64-dwarf5.crash"
        let variant = Paths.samples + "/build/ios-arm64-dwarf5"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.samples + "/reports/" + name)))
        let both = try Self.service([variant]).process(bytes, format: nil)
        let app = try Self.service([variant + "/HoldApp.app.dSYM"]).process(bytes, format: nil)
        let then = try Self.service([variant]).process(app.output, format: nil)
        #expect(then.outcome.totalFrames == both.outcome.totalFrames)
        #expect(then.output == both.output)
    }
}
