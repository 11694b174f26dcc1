// KSCrash reports over the Samples' build: a KSCrash JSON report is written here from
// build/images.tsv (UUIDs, load addresses) and the HoldApp / HoldKit frame addresses of a sample
// report, as KSCrash writes one (numbers for addresses, `object_addr` naming the image). Every frame
// is checked against llvm-symbolizer, and the written JSON against the input: each symbolicated
// frame gains `symbolicated_name`, `symbolicated_offset`, `source_file`, `source_line` and
// `inlined_frames` beside KSCrash's keys, and nothing else changes.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite(.enabled(if: KSCrashSample.available, "Samples/build or Samples/reports is absent (run Samples/generate.sh)"))
struct KSCrashSymbolicationTests {
    static let added: Set<String> = [
        "symbolicated_name", "symbolicated_offset", "source_file", "source_line", "inlined_frames",
    ]

    static func process(_ bytes: [UInt8]) throws -> (ProcessedReport, SymbolPathLocator) {
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        return (try SymbolicationService(locator: locator).process(bytes, format: nil), locator)
    }

    @Test(.needsReferee) func framesMatchLLVMSymbolizer() throws {
        let (processed, locator) = try Self.process(try KSCrashSample.report())
        #expect(processed.report.format == .kscrash)
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked >= 8, "only \(checked) frames checked")
        for (f, _) in processed.report.backtraces[0].frames.enumerated() {
            #expect(processed.outcome.results[FrameID(backtrace: 0, frame: f)]?.status == .symbolicated)
        }
    }

    @Test func writtenJSONAddsKeysBesideKSCrashsAndKeepsTheRest() throws {
        let input = try KSCrashSample.report()
        let (processed, _) = try Self.process(input)
        #expect(processed.contentType == "application/json")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(processed.output)) as? [String: Any])
        let original = try #require(try JSONSerialization.jsonObject(with: Data(input)) as? [String: Any])
        let outFrames = try KSCrashFrames.read(processed.output)
        let inFrames = try KSCrashFrames.read(input)
        #expect(outFrames.count == inFrames.count)
        var sawInline = false
        for (f, (written, read)) in zip(outFrames, inFrames).enumerated() {
            let result = try #require(processed.outcome.results[FrameID(backtrace: 0, frame: f)])
            let outer = try #require(result.frames.last)
            #expect(written["symbolicated_name"] as? String == outer.symbol)
            #expect((written["symbolicated_offset"] as? NSNumber)?.uint64Value == outer.symbolOffset)
            #expect(written["source_file"] as? String == outer.fileName)
            #expect((written["source_line"] as? NSNumber)?.intValue == outer.line)
            let inline = written["inlined_frames"] as? [[String: Any]] ?? []
            #expect(inline.map { $0["symbolicated_name"] as? String } == result.frames.dropLast().map(\.symbol))
            sawInline = sawInline || !inline.isEmpty
            let kept = written.filter { !Self.added.contains($0.key) }
            #expect(NSDictionary(dictionary: kept).isEqual(to: read))
        }
        #expect(sawInline, "the samples inline functions into HoldApp")
        // Outside the frames, nothing changed.
        var a = output
        var b = original
        a["crash"] = nil
        b["crash"] = nil
        #expect(NSDictionary(dictionary: a).isEqual(to: b))
        // Symbolicated again, the report is the same.
        let (again, _) = try Self.process(processed.output)
        #expect(again.output == processed.output)
    }

    /// A report written here, symbolicated again (a stored report when another dSYM arrives),
    /// comes out as it went in: its added keys are replaced, not added a second time.
    @Test func aReportSymbolicatedTwiceIsWrittenTheSame() throws {
        let (first, _) = try Self.process(try KSCrashSample.report())
        let (second, _) = try Self.process(first.output)
        #expect(second.report.backtraces.map(\.frames.count) == first.report.backtraces.map(\.frames.count))
        #expect(second.output == first.output, "written again differently")
    }
}
