// Symbolicating a report that was symbolicated before (the app's dSYM first, a framework's when it
// arrives; or a report Xcode already symbolicated) gives what one run gives: the inline levels an
// earlier run wrote (text lines repeating a frame's number and address, sample-tree lines
// repeating a node but for its symbol, `.ips` objects marked `"inline":true`, MetricKit
// `inlineFrames`) are levels of their frame, replaced, never counted as frames of their own, and
// the keys a JSON frame was given are replaced, never added twice. Over the sample reports and
// the Samples/diagnostics inputs.

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

    /// The sample variant these tests symbolicate, and its report of `kind` (`crash` or `ips`).
    static let variant = Paths.samples + "/build/ios-arm64-dwarf5"
    static func sampleReport(_ kind: String) throws -> [UInt8] {
        try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5." + kind)))
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
        let (variant, bytes) = (Self.variant, try Self.sampleReport(kind))
        let both = try Self.service([variant]).process(bytes, format: nil)
        let app = try Self.service([variant + "/HoldApp.app.dSYM"]).process(bytes, format: nil)
        let then = try Self.service([variant]).process(app.output, format: nil)
        #expect(then.outcome.totalFrames == both.outcome.totalFrames)
        #expect(then.output == both.output)
    }

    /// The frames of the Application Specific Backtrace below: image, address and offset in
    /// the image. The first two are return addresses into inlined code (`hk_rotate` in `hk_mix` in
    /// `hk_digest`, inlined into `Store.commit(count:)` in HoldKit and into
    /// `ViewController.loadData()` in HoldApp: four levels each), the third is not.
    static let asiFrames: [(image: String, address: UInt64, offset: Int)] = [
        ("HoldKit", 0x1_030a_40b0, 16560), ("HoldApp", 0x1_02bc_803c, 16444), ("HoldApp", 0x1_02bc_80e0, 16608),
    ]

    /// `HoldApp-ios-arm64-dwarf5.<kind>` with an Application Specific Backtrace of `asiFrames`:
    /// a text report's `Application Specific Backtrace 1:` section (the report's own frame
    /// layout), or an `.ips` `asiBacktraces` string (macOS's layout, `Image + offset`).
    static func withApplicationSpecificBacktrace(_ kind: String) throws -> [UInt8] {
        let text = String(decoding: try sampleReport(kind), as: UTF8.self)
        if kind == "ips" {
            let lines = asiFrames.enumerated().map { n, f in
                "\(n)   \(f.image)                             \(asiAddress(f.address, kind)) \(f.image) + \(f.offset)"
            }
            let member = "\"asiBacktraces\" : [\"" + lines.joined(separator: "\\n") + "\"],\n  "
            return Array(
                text.replacingOccurrences(of: "\"lastExceptionBacktrace\"", with: member + "\"lastExceptionBacktrace\"")
                    .utf8)
        }
        let lines = asiFrames.enumerated().map { n, f in
            let base = f.image == "HoldKit" ? "0x1030a0000" : "0x102bc4000"
            return
                "\(n)   \(f.image)                       \t       \(asiAddress(f.address, kind)) \(base) + \(f.offset)"
        }
        let section = "Application Specific Backtrace 1:\n" + lines.joined(separator: "\n") + "\n\n"
        return Array(
            text.replacingOccurrences(of: "Last Exception Backtrace:", with: section + "Last Exception Backtrace:").utf8
        )
    }

    /// An address as the Application Specific Backtrace of `kind` prints it.
    static func asiAddress(_ address: UInt64, _ kind: String) -> String {
        let hex = String(address, radix: 16)
        return "0x" + (kind == "ips" ? String(repeating: "0", count: 16 - hex.count) : "") + hex
    }

    /// An Application Specific Backtrace symbolicated twice is the same both times, and the
    /// app's dSYM first, then the framework's, gives what one run with both gives: each frame's
    /// inline lines (its number and address again) are written once, never read as frames.
    @Test(arguments: ["crash", "ips"])
    func anApplicationSpecificBacktraceSymbolicatedAgainKeepsOneSetOfLevels(kind: String) throws {
        let (variant, bytes) = (Self.variant, try Self.withApplicationSpecificBacktrace(kind))
        let once = try Self.service([variant]).process(bytes, format: nil)
        let asi = try #require(once.report.backtraces.firstIndex { $0.kind == .applicationSpecific })
        #expect(once.report.backtraces[asi].frames.count == Self.asiFrames.count)
        // How many lines of the Application Specific Backtrace give each frame's address.
        func lines(_ output: [UInt8]) -> [Int] {
            let text = String(decoding: output, as: UTF8.self)
            let (from, to) =
                kind == "ips"
                ? ("\"asiBacktraces\"", "\"lastExceptionBacktrace\"")
                : ("Application Specific Backtrace 1:", "Last Exception Backtrace:")
            guard let start = text.firstRange(of: from), let end = text.firstRange(of: to) else { return [] }
            let section = text[start.upperBound..<end.lowerBound]
            return Self.asiFrames.map {
                section.components(separatedBy: Self.asiAddress($0.address, kind) + " ").count - 1
            }
        }
        #expect(lines(once.output) == [4, 4, 1])

        let twice = try Self.service([variant]).process(once.output, format: nil)
        #expect(twice.report.backtraces[asi].frames.count == Self.asiFrames.count)
        #expect(twice.outcome.totalFrames == once.outcome.totalFrames)
        #expect(lines(twice.output) == [4, 4, 1])
        let unchanged = twice.output == once.output
        #expect(unchanged, "the second run changed the report")

        let app = try Self.service([variant + "/HoldApp.app.dSYM"]).process(bytes, format: nil)
        #expect(lines(app.output) == [1, 4, 1])
        let then = try Self.service([variant]).process(app.output, format: nil)
        #expect(then.outcome.totalFrames == once.outcome.totalFrames)
        let same = then.output == once.output
        #expect(same, "the framework's dSYM after the app's gave another report than one run with both")
    }
}

extension ResymbolicationTests {
    /// A report symbolicated with the dSYMs, then again with only the binaries (symbol tables: a
    /// symbol and an offset, no file and line): the second run's frames say what its lookups
    /// give, with no file and line left from the first run's, which is what one run with the
    /// binaries gives. A frame the second run finds no symbols for stays as the first run wrote it.
    @Test(arguments: ["crash", "ips"])
    func aReportSymbolicatedAgainWithLessKeepsNoStaleSourceLocation(kind: String) throws {
        let (variant, bytes) = (Self.variant, try Self.sampleReport(kind))
        let dsyms = try Self.service([variant]).process(bytes, format: nil)
        let binaries = try Self.service([variant + "/HoldApp.app"]).process(bytes, format: nil)
        let then = try Self.service([variant + "/HoldApp.app"]).process(dsyms.output, format: nil)
        #expect(then.outcome.totalFrames == binaries.outcome.totalFrames)
        let files = try ReportParser.parse(then.output).backtraces.flatMap(\.frames).filter { $0.sourceFile != nil }
        #expect(files.map(\.imageName) == [], "file and line of the first run left on frames the second rewrote")
        let same = then.output == binaries.output
        #expect(same, "the binaries after the dSYMs gave another report than the binaries alone")

        // The app's binary only: HoldKit's frames get no answer and keep the dSYM's file and line.
        let app = try Self.service([variant + "/HoldApp.app/HoldApp"]).process(dsyms.output, format: nil)
        let before = try ReportParser.parse(dsyms.output).backtraces.flatMap(\.frames)
        let after = try ReportParser.parse(app.output).backtraces.flatMap(\.frames)
        #expect(after.count == before.count)
        for (old, new) in zip(before, after) where old.imageName == "HoldKit" || old.imageName == "HoldApp" {
            let kept = new.imageName == "HoldKit" ? old.sourceFile : nil
            #expect(new.sourceFile == kept, "frame \(new.number) of \(new.imageName ?? "?")")
            #expect(new.sourceLine == (kept == nil ? nil : old.sourceLine))
        }
    }
}

extension ResymbolicationTests {
    /// The Samples/diagnostics inputs: MetricKit payloads (per-thread stacks and aggregated trees),
    /// a microstackshot resource report, a spindump and a `sample` call graph.
    static var diagnostics: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Diagnostics.folder)) ?? []
        return names.filter { $0.hasPrefix("HoldApp-") && ($0.hasSuffix(".json") || $0.hasSuffix(".txt")) }.sorted()
    }

    /// Every variant's dSYM of one image (`HoldApp.app.dSYM`, `HoldKit.framework.dSYM`), without the other's.
    static func dSYMs(_ bundle: String) -> [String] {
        let build = Paths.samples + "/build"
        let variants = (try? FileManager.default.contentsOfDirectory(atPath: build)) ?? []
        return variants.sorted().map { build + "/" + $0 + "/" + bundle }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Every diagnostic input, symbolicated twice with every symbol, is the same both times:
    /// the keys and the sample tree's inline lines the first run wrote are replaced, never added
    /// again, and never read as frames.
    @Test(arguments: diagnostics)
    func aDiagnosticSymbolicatedAgainIsUnchanged(_ name: String) throws {
        let once = try Self.service([Paths.samples + "/build"]).process(try Diagnostics.bytes(name), format: nil)
        let twice = try Self.service([Paths.samples + "/build"]).process(once.output, format: nil)
        #expect(once.outcome.symbolicatedFrames > 0, "\(name): nothing was symbolicated")
        #expect(twice.report.backtraces.map(\.frames.count) == once.report.backtraces.map(\.frames.count))
        #expect(twice.outcome.totalFrames == once.outcome.totalFrames)
        let unchanged = twice.output == once.output
        #expect(unchanged, "\(name): the second run changed the report")
    }

    /// One image's dSYMs first (the app's, or the framework's, whose frames have inlined
    /// functions), then every symbol: what one run with every symbol gives.
    @Test(arguments: diagnostics, ["HoldApp.app.dSYM", "HoldKit.framework.dSYM"])
    func aDiagnosticSymbolicatedInTwoStepsIsWhatOneRunGives(_ name: String, first: String) throws {
        let bytes = try Diagnostics.bytes(name)
        let both = try Self.service([Paths.samples + "/build"]).process(bytes, format: nil)
        let part = try Self.service(Self.dSYMs(first)).process(bytes, format: nil)
        let then = try Self.service([Paths.samples + "/build"]).process(part.output, format: nil)
        #expect(then.report.backtraces.map(\.frames.count) == both.report.backtraces.map(\.frames.count))
        #expect(then.outcome.totalFrames == both.outcome.totalFrames)
        let same = then.output == both.output
        #expect(same, "\(name): every symbol after \(first) gave another report than one run with every symbol")
    }
}
