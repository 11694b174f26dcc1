// Tests of the `sample` parser on hand-written call graphs: every node form (`???` with a load
// address, a named node with an offset and a source line, the single-spaced form other tools
// write), the tree marks, leaves as pcs and inner nodes as return addresses, one backtrace per
// thread, the summary sections left alone, and a `sample` header with nothing under it.

import Foundation
import Reports
import SymbolicateModel
import Testing

@Suite struct SampleFormatTests {
    static let report = """
        Sampling process 812 for 3 seconds with 1 millisecond of run time between samples
        Sampling completed, processing symbols...
        Analysis of sampling Demo (pid 812) every 1 millisecond
        Process:         Demo [812]
        Code Type:       ARM64
        Report Version:  7
        Analysis Tool:   /usr/bin/sample
        ----

        Call graph:
            900 Thread_1001   DispatchQueue_1: com.apple.main-thread  (serial)
            + 900 start  (in dyld) + 462  [0x180a1e0e0]  dyldMain.cpp:1338
            +   900 ???  (in Demo)  load address 0x100000000 + 0x3e30  [0x100003e30]
            +     600 ???  (in Demo)  load address 0x100000000 + 0x3d9a  [0x100003d9a]
            +     ! 600 __psynch_mutexwait  (in libsystem_kernel.dylib) + 8  [0x180d6a0a4]
            +     300 ???  (in Demo)  load address 0x100000000 + 0x3def  [0x100003def]
            900 Thread_1002
              900 main (in Demo) (main.m:30) [0x100003eb0]
                900 ???  (in <unknown binary>)  [0x4000]

        Total number in stack (recursive counted multiple, when >=5):

        Sort by top of stack, same collapsed (when >= 5):
                __psynch_mutexwait  (in libsystem_kernel.dylib)        600

        Binary Images:
               0x100000000 -        0x100003fff +Demo (1.0 - 1) <CA1D1761-AF35-38BF-8871-0C0B4BBD0A8A> /Applications/Demo.app/Contents/MacOS/Demo
               0x180a18000 -        0x180a9ffff  dyld (1122) <B70CE1EC-B902-3852-8268-05DE00BFA8D5> /usr/lib/dyld

        """

    @Test func threadsBecomeSampleTrees() throws {
        let r = try ReportParser.parse(Array(Self.report.utf8))
        #expect(r.format == .sample)
        #expect(r.arch == .arm64)
        #expect(r.field("Process") == "Demo [812]")
        #expect(r.backtraces.map(\.kind) == [.sampleTree, .sampleTree])
        #expect(
            r.backtraces.map(\.name) == [
                "Thread_1001   DispatchQueue_1: com.apple.main-thread  (serial)", "Thread_1002",
            ])
        #expect(r.backtraces.map(\.frames.count) == [5, 2])
        #expect(r.images.map(\.name) == ["Demo", "dyld"])
    }

    @Test func leavesArePCsAndInnerNodesReturnAddresses() throws {
        let r = try ReportParser.parse(Array(Self.report.utf8))
        let main = r.backtraces[0].frames
        #expect(main.map(\.address) == [0x1_80a1_e0e0, 0x1_0000_3e30, 0x1_0000_3d9a, 0x1_80d6_a0a4, 0x1_0000_3def])
        // start -> 3e30 -> 3d9a -> __psynch_mutexwait (a leaf), and 3def, a second leaf under 3e30.
        #expect(main.map(\.isReturnAddress) == [true, true, true, false, false])
        #expect(r.backtraces[1].frames.map(\.isReturnAddress) == [true, false])
    }

    @Test func nodeForms() throws {
        let bytes = Array(Self.report.utf8)
        let r = try ReportParser.parse(bytes)
        let main = r.backtraces[0].frames
        // A named node: symbol, offset and source line, in dyld.
        #expect(main[0].symbol == "start" && main[0].symbolOffset == 462)
        #expect(main[0].sourceFile == "dyldMain.cpp" && main[0].sourceLine == 1338)
        #expect(main[0].imageName == "dyld" && main[0].imageIndex == 1)
        // A `???` node: nothing named; its symbol column runs from `???` to the end of the line.
        #expect(main[1].symbol == nil && main[1].imageName == "Demo" && main[1].imageIndex == 0)
        let column = try #require(main[1].symbolColumn)
        #expect(
            String(decoding: bytes[column], as: UTF8.self)
                == "???  (in Demo)  load address 0x100000000 + 0x3e30  [0x100003e30]")
        // The single-spaced form with the source line in parentheses.
        let other = r.backtraces[1].frames
        #expect(other[0].symbol == "main" && other[0].sourceFile == "main.m" && other[0].sourceLine == 30)
        // An image sample could not name.
        #expect(other[1].imageName == "<unknown binary>" && other[1].imageIndex == nil && other[1].address == 0x4000)
    }

    @Test func summaryLinesAreNotFrames() throws {
        let r = try ReportParser.parse(Array(Self.report.utf8))
        // Five nodes in the first thread, two in the second; the `Sort by top of stack` line is none.
        #expect(r.frameCount == 7)
    }

    @Test func aCrashReportQuotingASampleStaysACrashReport() throws {
        let text = Fixtures.textReport.replacingOccurrences(
            of: "Process:             My App [123]",
            with: "Process:             My App [123]\nNote:                Analysis of sampling My App (pid 123)")
        let r = try ReportParser.parse(Array(text.utf8))
        #expect(text.contains("Analysis of sampling "))
        #expect(r.format == .text)
    }

    /// Found by fuzzing: crash-report words inside a node (here where the source line goes) do
    /// not make the document a crash report, before or after its frames are rewritten.
    @Test func wordsInsideANodeDoNotChangeTheKind() throws {
        let text = Self.report.replacingOccurrences(
            of: "[0x100003def]\n", with: "[0x100003def]  Incident Identifier: 1, Exception Type: 2\n")
        let r = try ReportParser.parse(Array(text.utf8))
        #expect(r.format == .sample && r.frameCount == 7)
        var results: [FrameID: FrameResult] = [:]
        for (b, backtrace) in r.backtraces.enumerated() {
            for f in backtrace.frames.indices {
                results[FrameID(backtrace: b, frame: f)] = FrameResult(
                    status: .symbolicated, frames: [SymbolicatedFrame(symbol: "f\(f)", symbolOffset: 1)])
            }
        }
        let written = ReportWriter.write(r, results: results)
        #expect(!String(decoding: written, as: UTF8.self).contains("Incident Identifier"))
        let again = try ReportParser.parse(written)
        #expect(again.format == .sample && again.frameCount == 7)
    }

    @Test func aHeaderWithNothingUnderItIsBadInput() throws {
        let text = "Analysis of sampling Demo (pid 812) every 1 millisecond\nProcess:         Demo [812]\n"
        #expect {
            _ = try ReportParser.parse(Array(text.utf8))
        } throws: { error in
            (error as? SymbolicateError)?.code == .badInput
        }
    }
}
