// Frames a report states but that cannot be read: a line inside a text backtrace that opens
// with a frame number (digits, then whitespace) but has no address, and an `.ips` frame without
// an `imageOffset`. Each is kept as a malformed frame in its place, so the backtrace goes on and
// the writers leave it as the report has it. A line that does not open with a frame number still
// ends the backtrace.

import Foundation
import Reports
import SymbolicateModel
import Testing

@Suite struct MalformedFrameLineTests {
    static func report(_ frames: [String]) -> String {
        "Exception Type:  EXC_CRASH (SIGABRT)\n\nThread 0 Crashed:\n" + frames.joined(separator: "\n") + "\n\n"
            + "Binary Images:\n       0x1000 -        0x1fff App arm64  <82d13d98219e3040b62a07a297007a7c> /App\n"
    }

    static let good = [
        "0   App                           \t            0x1010 0x1000 + 16",
        "1   App                           \t            0x1020 0x1000 + 32",
    ]
    static let after = "3   App                           \t            0x1030 0x1000 + 48"

    static let symbolicated = FrameResult(
        status: .symbolicated, frames: [SymbolicatedFrame(symbol: "f", symbolOffset: 4)])

    @Test(arguments: [
        ("2   App   ???", "App"), ("2   App", "App"), ("2   App                           \t   ???", "App"),
        ("2   Google Chrome Framework  0xZZ", "Google Chrome Framework"), ("2   ", nil),
        ("2\u{A0}\u{A0}\u{A0}App\u{A0}\u{A0}\u{A0}???", "App"),
    ])
    func aNumberedLineThatIsNoFrameIsKeptAsMalformed(_ line: String, _ image: String?) throws {
        let text = Self.report(Self.good + [line, Self.after])
        let r = try ReportParser.parse(Array(text.utf8))
        let frames = r.backtraces[0].frames
        try #require(frames.map(\.number) == [0, 1, 2, 3])
        #expect(frames.map(\.isMalformed) == [false, false, true, false])
        #expect(frames[2].imageName == image)
        #expect(frames[2].symbolColumn == nil && frames[3].address == 0x1030 && frames[3].isReturnAddress)
        #expect(r.frameCount == 4)

        // Written back: every other frame rewritten, the malformed line byte for byte.
        var results: [FrameID: FrameResult] = [:]
        for f in [0, 1, 3] { results[FrameID(backtrace: 0, frame: f)] = Self.symbolicated }
        let out = String(decoding: ReportWriter.write(r, results: results), as: UTF8.self)
        let lines = Fixtures.lines(out)
        #expect(lines.contains(line))
        #expect(lines.filter { $0.hasSuffix(" f + 4") }.count == 3)
        #expect(ReportWriter.write(r, results: [:]) == Array(text.utf8))
    }

    @Test(arguments: ["garbage", "2App 0x1030", "1234567   App   0x1030", "2"])
    func aLineWithoutAFrameNumberStillEndsTheBacktrace(_ line: String) throws {
        let r = try ReportParser.parse(Array(Self.report(Self.good + [line, Self.after]).utf8))
        #expect(r.backtraces[0].frames.map(\.number) == [0, 1])
        #expect(!r.backtraces[0].frames.contains { $0.isMalformed })
    }

    @Test func aMalformedFirstFrameLeavesTheNextOneAReturnAddress() throws {
        let r = try ReportParser.parse(Array(Self.report(["0   App   ???"] + [Self.good[1]]).utf8))
        #expect(r.backtraces[0].frames.map(\.isMalformed) == [true, false])
        #expect(r.backtraces[0].frames[1].isReturnAddress)
    }

    @Test func aLastExceptionBacktraceOfMalformedFramesIsNoParenthesizedList() throws {
        let text =
            "Exception Type:  EXC_CRASH (SIGABRT)\n\nLast Exception Backtrace:\n0   App   ???\n\n"
            + "Last Exception Backtrace:\n(0x1010 0x1020)\n\n"
            + "Binary Images:\n       0x1000 -        0x1fff App arm64  <82d13d98219e3040b62a07a297007a7c> /App\n"
        let r = try ReportParser.parse(Array(text.utf8))
        try #require(r.backtraces.map(\.frames.count) == [1, 2])
        let out = String(
            decoding: ReportWriter.write(r, results: [FrameID(backtrace: 1, frame: 1): Self.symbolicated]),
            as: UTF8.self)
        #expect(out.contains("Last Exception Backtrace:\n0   App   ???\n\nLast Exception Backtrace:\n0   App"))
        #expect(out.contains("\t            0x1020 f + 4\n"))
    }

    // MARK: - .ips

    static let ips = """
        {"app_name":"MyApp","bug_type":"309","name":"MyApp"}
        {
          "cpuType" : "ARM-64",
          "threads" : [{"triggered":true,"frames":[{"imageOffset":16,"imageIndex":0},{"imageIndex":0},{"imageOffset":"x","imageIndex":0},7,{"imageOffset":48,"imageIndex":0}]}],
          "asiBacktraces" : ["0   App   0x1010 0x1000 + 16\\n1   App\\n2   App   0x1030 0x1000 + 48"],
          "usedImages" : [{"source":"P","arch":"arm64","base":4096,"size":4096,"uuid":"82d13d98-219e-3040-b62a-07a297007a7c","path":"\\/App","name":"App"}]
        }
        """

    @Test func anIpsFrameWithoutAnImageOffsetIsMalformed() throws {
        let bytes = Array(Self.ips.utf8)
        let r = try ReportParser.parse(bytes)
        try #require(r.backtraces.map(\.kind) == [.thread, .applicationSpecific])
        let frames = r.backtraces[0].frames
        try #require(frames.map(\.number) == [0, 1, 2, 3, 4])
        #expect(frames.map(\.isMalformed) == [false, true, true, true, false])
        #expect(frames[1].imageName == "App" && frames[3].imageName == nil)
        #expect(frames[4].address == 4096 + 48)
        #expect(r.backtraces[1].frames.map(\.isMalformed) == [false, true, false])

        // The writer numbers the frames as the parser does: frame 4, and asi frame 2, are rewritten.
        let results = [
            FrameID(backtrace: 0, frame: 4): Self.symbolicated, FrameID(backtrace: 1, frame: 2): Self.symbolicated,
        ]
        let out = String(decoding: ReportWriter.write(r, results: results), as: UTF8.self)
        #expect(
            out.contains(
                #"{"imageIndex":0},{"imageOffset":"x","imageIndex":0},7,{"imageOffset":48,"imageIndex":0,"symbol":"f","symbolLocation":4}"#
            ))
        #expect(out.contains(#"1   App\n2   App   0x1030 f + 4""#))

        let text = Fixtures.lines(String(decoding: ReportWriter.renderText(r, results: results), as: UTF8.self))
        #expect(text.contains { $0.hasPrefix("1   App ") && $0.hasSuffix("\t               ??? ???") })
        #expect(text.contains { $0.hasPrefix("3   ??? ") && $0.hasSuffix("\t               ??? ???") })
        #expect(text.contains { $0.hasPrefix("4   App ") && $0.hasSuffix("0x1030 f + 4") })
    }
}
