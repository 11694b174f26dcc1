// Sample trees read back after a symbolication: the inline lines the writer put after a node
// (the node's line again but for its symbol column) are levels of that node, never nodes, and
// are replaced when it is symbolicated again; a line repeated whole (a heaviest stack's
// recursion) is a node of its own. Microstackshot and `sample` call graphs alike.

import Foundation
import Reports
import SymbolicateModel
import Testing

@Suite struct SampleTreeLevelsTests {
    static func outer(_ symbol: String, _ offset: UInt64, _ file: String, _ line: Int) -> SymbolicatedFrame {
        SymbolicatedFrame(symbol: symbol, symbolOffset: offset, file: file, line: line)
    }

    static func inline(_ symbol: String, _ file: String, _ line: Int) -> SymbolicatedFrame {
        SymbolicatedFrame(symbol: symbol, file: file, line: line, isInline: true)
    }

    static let resource = """
        Event:            cpu usage
        Data Source:      Microstackshots

        Heaviest stack for the target process:
          7  ??? (App + 100) [0x100000064]
          7  ??? (App + 100) [0x100000064]
          7  f + 4 (F.c:1) (App + 200) [0x1000000c8]
          7  g (G.h:2) (App + 200) [0x1000000c8]
          7  f + 4 (F.c:1) (App + 200) [0x1000000c8]
          7  g (G.h:2) (App + 200) [0x1000000c8]

        """

    /// A heaviest stack: two `???` lines and two `f` lines repeated whole are four frames (a
    /// recursion), each `g` line a level of the `f` line before it; only the last frame is a pc.
    @Test func aHeaviestStackKeepsItsRecursionAndFoldsItsLevels() throws {
        let r = try ReportParser.parse(Array(Self.resource.utf8))
        #expect(r.format == .microstackshot)
        let frames = try #require(r.backtraces.first).frames
        #expect(frames.map(\.address) == [0x1_0000_0064, 0x1_0000_0064, 0x1_0000_00c8, 0x1_0000_00c8])
        #expect(frames.map(\.isReturnAddress) == [true, true, true, false])
        #expect(frames.map { $0.levelLines != nil } == [false, false, true, true])

        // Symbolicated again with no inlined function there: the `g` lines go.
        let results: [FrameID: FrameResult] = [
            FrameID(backtrace: 0, frame: 2): FrameResult(status: .symbolicated, frames: [Self.outer("f", 4, "F.c", 1)]),
            FrameID(backtrace: 0, frame: 3): FrameResult(status: .symbolicated, frames: [Self.outer("f", 4, "F.c", 1)]),
        ]
        let out = String(decoding: ReportWriter.write(r, results: results), as: UTF8.self)
        #expect(
            out
                == Self.resource.replacingOccurrences(of: "  7  g (G.h:2) (App + 200) [0x1000000c8]\n", with: ""))
    }

    static let sample = """
        Analysis of sampling Demo (pid 812) every 1 millisecond
        Process:         Demo [812]
        Code Type:       ARM64

        Call graph:
            900 Thread_1001
            + 900 main  (in Demo) + 12  [0x100003e30]  main.m:30
            + 900 inl  (in Demo)  [0x100003e30]  inl.h:3
            +   900 ???  (in Demo)  load address 0x100000000 + 0x3d9a  [0x100003d9a]

        Binary Images:
               0x100000000 -        0x100003fff +Demo (1.0 - 1) <CA1D1761-AF35-38BF-8871-0C0B4BBD0A8A> /Applications/Demo.app/Contents/MacOS/Demo

        """

    /// A `sample` call graph: the `inl` line is a level of `main`, which stays a return address
    /// (its callee is the line after the level), and is replaced by the new run's levels.
    @Test func aSampleCallGraphFoldsTheLevelsAfterANode() throws {
        let r = try ReportParser.parse(Array(Self.sample.utf8))
        #expect(r.format == .sample)
        let frames = try #require(r.backtraces.first).frames
        #expect(frames.map(\.address) == [0x1_0000_3e30, 0x1_0000_3d9a])
        #expect(frames.map(\.isReturnAddress) == [true, false])
        #expect(frames[0].symbol == "main" && frames[0].levelLines != nil)

        let results: [FrameID: FrameResult] = [
            FrameID(backtrace: 0, frame: 0): FrameResult(
                status: .symbolicated, frames: [Self.inline("inl", "inl.h", 4), Self.outer("main", 12, "main.m", 30)])
        ]
        let out = ReportWriter.write(r, results: results)
        #expect(
            String(decoding: out, as: UTF8.self) == Self.sample.replacingOccurrences(of: "inl.h:3", with: "inl.h:4"))
        let again = try ReportParser.parse(out)
        #expect(again.backtraces.map(\.frames.count) == [2])
        #expect(ReportWriter.write(again, results: results) == out)
    }
}
