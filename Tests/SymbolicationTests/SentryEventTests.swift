// Sentry event JSON. The four CrashProbe events of symbolic's tests (sentry-swift 1.4, arm64, with
// the dSYMs of CrashProbeiOS, CrashLibiOS and KSCrash beside them in the corpus) get every frame of
// those three images named, each held to llvm-symbolizer; an event written here over the Samples'
// build (frames oldest first, addresses as strings, `image_vmaddr: "0x0"`) is held to
// llvm-symbolizer too, and its written JSON to the input: `function`, `filename`, `lineno` given,
// one frame object per inline level inserted in place (outermost first), everything else kept.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite struct SentryEventTests {
    static let crashProbe = "getsentry__symbolic/py/tests/res/ext/1.4.1/release"
    static let events = ["Dereference a NULL pointer", "Stack overflow", "Swift", "Throw Objective-C exception"]

    static func process(_ bytes: [UInt8], paths: [String]) throws -> (ProcessedReport, SymbolPathLocator) {
        let locator = try SymbolPathLocator(paths: paths)
        return (try SymbolicationService(locator: locator).process(bytes, format: nil), locator)
    }

    @Test(.tags(.corpus), .needsCorpus, .needsReferee, arguments: events)
    func crashProbeAppFramesAreNamed(_ name: String) throws {
        let folder = Paths.corpus + "/" + Self.crashProbe
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/arm64/\(name).json")))
        let (processed, locator) = try Self.process(bytes, paths: [folder + "/dSYMs"])
        #expect(processed.report.format == .sentryEvent)
        var named = 0
        for (b, backtrace) in processed.report.backtraces.enumerated() {
            for (f, frame) in backtrace.frames.enumerated() {
                guard let image = processed.report.image(for: frame),
                    ["CrashProbeiOS", "CrashLibiOS", "KSCrash"].contains(image.name)
                else { continue }
                let result = processed.outcome.results[FrameID(backtrace: b, frame: f)]
                #expect(result?.status == .symbolicated, "\(image.name) frame at 0x\(String(frame.address, radix: 16))")
                named += 1
            }
        }
        #expect(named > 0)
        #expect(try SymbolicationCheck.compare(processed, locator: locator) == named)
    }

    @Test(.enabled(if: KSCrashSample.available, "Samples/build is absent (run Samples/generate.sh)"), .needsReferee)
    func sampleEventMatchesLLVMSymbolizerAndInsertsInlineFrames() throws {
        let input = try KSCrashSample.sentryEvent()
        let (processed, locator) = try Self.process(input, paths: [Paths.samples + "/build"])
        #expect(processed.report.format == .sentryEvent && processed.contentType == "application/json")
        let frames = processed.report.backtraces[0].frames
        #expect(frames.first?.isReturnAddress == false && frames.dropFirst().allSatisfy(\.isReturnAddress))
        #expect(try SymbolicationCheck.compare(processed, locator: locator) == 2 * frames.count)

        let output = try #require(try JSONSerialization.jsonObject(with: Data(processed.output)) as? [String: Any])
        let original = try #require(try JSONSerialization.jsonObject(with: Data(input)) as? [String: Any])
        for key in ["exception", "threads"] {
            let written = try #require(
                (((output[key] as? [String: Any])?["values"] as? [[String: Any]])?.first?["stacktrace"]
                    as? [String: Any])?[
                        "frames"] as? [[String: Any]])
            // Oldest first: each frame's levels outermost first, as Sentry lists callers before callees.
            var expected: [(SymbolicatedFrame, String)] = []
            for (f, frame) in frames.enumerated().reversed() {
                let result = try #require(processed.outcome.results[FrameID(backtrace: 0, frame: f)])
                expected += result.frames.reversed().map { ($0, "0x" + String(frame.address, radix: 16)) }
            }
            #expect(written.count == expected.count)
            #expect(written.count > frames.count, "the samples inline functions into HoldApp")
            for (object, (level, address)) in zip(written, expected) {
                #expect(object["function"] as? String == level.symbol)
                #expect(object["filename"] as? String == level.fileName)
                #expect((object["lineno"] as? NSNumber)?.intValue == level.line)
                #expect(object["instruction_addr"] as? String == address)
                #expect(object["in_app"] as? Bool == true)
            }
        }
        var a = output
        var b = original
        for key in ["exception", "threads"] {
            a[key] = nil
            b[key] = nil
        }
        #expect(NSDictionary(dictionary: a).isEqual(to: b))
    }

    /// An event written here, symbolicated again (a stored event when another dSYM arrives):
    /// the inline frames inserted the first time are replaced, not inserted a second time, and
    /// the answer is the first one byte for byte.
    @Test(.enabled(if: KSCrashSample.available, "Samples/build is absent (run Samples/generate.sh)"))
    func anEventSymbolicatedTwiceGetsItsInlineFramesOnce() throws {
        let (first, _) = try Self.process(try KSCrashSample.sentryEvent(), paths: [Paths.samples + "/build"])
        let (second, _) = try Self.process(first.output, paths: [Paths.samples + "/build"])
        #expect(second.report.backtraces.map(\.frames.count) == first.report.backtraces.map(\.frames.count))
        #expect(second.output == first.output, "written again differently")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(first.output)) as? [String: Any])
        let frames = try #require(
            ((((written["threads"] as? [String: Any])?["values"] as? [[String: Any]])?.first?["stacktrace"])
                as? [String: Any])?["frames"] as? [[String: Any]])
        let inserted = frames.filter { $0["symbolicate_inlined"] as? Bool == true }
        #expect(!inserted.isEmpty && frames.count - inserted.count == first.report.backtraces[1].frames.count)
    }

    @Test func eventsWithoutDebugMetaOrWithStrayThreadIdsAreRead() throws {
        let event = """
            {"event_id": "x", "exception": {"values": [{"type": "SIGSEGV", "thread_id": 42,
              "stacktrace": {"frames": [{"instruction_addr": 4096}, {"function": "f"}, {"instruction_addr": "0x2000"}]}}]}}
            """
        let report = try ReportParser.parse(Array(event.utf8))
        #expect(report.format == .sentryEvent && report.images.isEmpty)
        #expect(report.backtraces[0].frames.map(\.address) == [0x2000, 0, 4096])
        #expect(report.backtraces[0].frames.map(\.isMalformed) == [false, true, false])
        #expect(report.backtraces[0].frames.map(\.isReturnAddress) == [false, true, true])
        #expect(throws: SymbolicateError.self) { try ReportParser.parse(Array(event.utf8.dropLast(5))) }
    }
}
