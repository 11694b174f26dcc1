// Tests of the in-place writer: exact output lines for made-up symbolication results (outer
// and inline levels, the parenthesized backtrace turned into frame lines, CRLF documents), and
// for `.ips`: new keys in each object's own style, inline frame objects before their caller,
// replaced symbols, and every original key kept in its order.

import Foundation
import Reports
import SymbolicateModel
import TestSupport
import Testing

@Suite struct WriterTests {
    static let inline = SymbolicatedFrame(symbol: "closure #1 in f()", file: "/src/Inl.swift", line: 7, isInline: true)
    static let outer = SymbolicatedFrame(
        symbol: "ViewController.viewDidLoad()", symbolOffset: 40, file: "/src/ViewController.swift", line: 19)
    static let results: [FrameID: FrameResult] = [
        FrameID(backtrace: 0, frame: 1): FrameResult(status: .symbolicated, frames: [inline, outer]),
        FrameID(backtrace: 0, frame: 0): FrameResult(status: .missingSymbol),
        FrameID(backtrace: 1, frame: 0): FrameResult(
            status: .symbolicated, frames: [SymbolicatedFrame(symbol: "__ulock_wait", symbolOffset: 8)]),
        FrameID(backtrace: 2, frame: 0): FrameResult(
            status: .symbolicated,
            frames: [SymbolicatedFrame(symbol: "noLine", symbolOffset: 0, file: "a/b.c", line: nil)]),
        FrameID(backtrace: 3, frame: 2): FrameResult(
            status: .symbolicated,
            frames: [SymbolicatedFrame(symbol: "main", symbolOffset: 12, file: "main.swift", line: 3)]),
    ]

    @Test func emptyResultsAreByteIdentical() throws {
        for text in [Fixtures.textReport, Fixtures.ipsReport] {
            let bytes = Array(text.utf8)
            let r = try ReportParser.parse(bytes)
            #expect(ReportWriter.write(r, results: [:]) == bytes)
            let failed = [
                FrameID(backtrace: 0, frame: 0): FrameResult(status: .missingSymbol),
                FrameID(backtrace: 0, frame: 1): FrameResult(status: .symbolicated, frames: []),
            ]
            #expect(ReportWriter.write(r, results: failed) == bytes)
        }
    }

    @Test func textRewriteExactLines() throws {
        let r = try ReportParser.parse(Array(Fixtures.textReport.utf8))
        let out = String(decoding: ReportWriter.write(r, results: Self.results), as: UTF8.self)
        let expected = Fixtures.textReport
            .replacing(
                """
                1   My App                        \t       0x1007da4bc 0x1007d4000 + 25788
                """,
                with: """
                    1   My App                        \t       0x1007da4bc closure #1 in f() (Inl.swift:7)
                    1   My App                        \t       0x1007da4bc ViewController.viewDidLoad() + 40 (ViewController.swift:19)
                    """
            )
            .replacing(
                "0   libsystem_kernel.dylib        \t       0x1e0ab0000 0x1e0aaf000 + 4096",
                with: "0   libsystem_kernel.dylib        \t       0x1e0ab0000 __ulock_wait + 8"
            )
            .replacing(
                "0   CoreFoundation                  0x1a8e8d000 0x1a8e88000 + 20480 (CFRunLoopRun + 12)",
                with: "0   CoreFoundation                  0x1a8e8d000 noLine + 0 (b.c)"
            )
            .replacing(
                "(0x1a8e8c04c 0x1a0a5840c 0x1007da4bc 0x9999)",
                with: """
                    0   CoreFoundation                \t       0x1a8e8c04c 0x1a8e88000 + 16460
                    1   ???                           \t       0x1a0a5840c 0x1a0a5840c
                    2   My App                        \t       0x1007da4bc main + 12 (main.swift:3)
                    3   ???                           \t            0x9999 0x9999
                    """)
        #expect(Fixtures.lines(out) == Fixtures.lines(expected))
        // The rewritten report parses again; the inline level's line (the frame's number and address
        // again) is a level of its frame, not a frame of its own.
        let again = try ReportParser.parse(Array(out.utf8))
        #expect(again.backtraces[0].frames.count == 4)
        #expect(
            again.backtraces[0].frames.contains { $0.symbol == "ViewController.viewDidLoad()" && $0.levelLines != nil })
        #expect(again.backtraces.last?.frames.map(\.address) == [0x1_a8e8_c04c, 0x1_a0a5_840c, 0x1_007d_a4bc, 0x9999])
    }

    /// Each parenthesized Last Exception Backtrace is rewritten in its own place: with two, the
    /// second's frames went over the first's list (found by the fuzz target FuzzReports).
    @Test func secondParenthesizedBacktraceIsRewrittenInItsOwnPlace() throws {
        let text = Fixtures.textReport.replacing(
            "(0x1a8e8c04c 0x1a0a5840c 0x1007da4bc 0x9999)",
            with: "(0x1a8e8c04c 0x9999)\n\nLast Exception Backtrace:\n(0x1007da4bc\n 0x9998)")
        let r = try ReportParser.parse(Array(text.utf8))
        let lists = r.backtraces.indices.filter { r.backtraces[$0].kind == .lastException }
        try #require(lists.count == 2)
        let second = try #require(lists.last)
        let results = [
            FrameID(backtrace: second, frame: 0): FrameResult(
                status: .symbolicated,
                frames: [SymbolicatedFrame(symbol: "main", symbolOffset: 12, file: "main.swift", line: 3)])
        ]
        let out = String(decoding: ReportWriter.write(r, results: results), as: UTF8.self)
        #expect(
            out.contains("Last Exception Backtrace:\n(0x1a8e8c04c 0x9999)\n\nLast Exception Backtrace:\n0   My App"))
        #expect(out.contains("0x1007da4bc main + 12 (main.swift:3)\n1   ???"))
        #expect(!out.contains("0x9998)"))
        let again = try ReportParser.parse(Array(out.utf8))
        #expect(
            again.backtraces.filter { $0.kind == .lastException }.map { $0.frames.map(\.address) }
                == [[0x1_a8e8_c04c, 0x9999], [0x1_007d_a4bc, 0x9998]])
    }

    /// A blank line between `Last Exception Backtrace:` and its parenthesized list: the list is
    /// read (it closed, empty, at the blank line) and rewritten in its own place.
    @Test func parenthesizedBacktraceAfterABlankLine() throws {
        let text = Fixtures.textReport.replacing("Last Exception Backtrace:\n(", with: "Last Exception Backtrace:\n\n(")
        let r = try ReportParser.parse(Array(text.utf8))
        let leb = try #require(r.backtraces.last)
        #expect(leb.kind == .lastException)
        #expect(leb.frames.map(\.address) == [0x1_a8e8_c04c, 0x1_a0a5_840c, 0x1_007d_a4bc, 0x9999])
        #expect(leb.frames.map(\.imageIndex) == [2, nil, 1, nil])
        let results = [
            FrameID(backtrace: r.backtraces.count - 1, frame: 2): FrameResult(
                status: .symbolicated,
                frames: [SymbolicatedFrame(symbol: "main", symbolOffset: 12, file: "main.swift", line: 3)])
        ]
        let out = String(decoding: ReportWriter.write(r, results: results), as: UTF8.self)
        #expect(out.contains("Last Exception Backtrace:\n\n0   CoreFoundation"))
        #expect(out.contains("0x1007da4bc main + 12 (main.swift:3)\n3   ???"))
        #expect(!out.contains("0x9999)"))
    }

    @Test func crlfRewriteUsesTheDocumentsLineEnding() throws {
        let lf = try ReportParser.parse(Array(Fixtures.textReport.utf8))
        let crlfBytes = Array(Fixtures.textReport.replacing("\n", with: "\r\n").utf8)
        let crlf = try ReportParser.parse(crlfBytes)
        let outLF = String(decoding: ReportWriter.write(lf, results: Self.results), as: UTF8.self)
        let outCRLF = String(decoding: ReportWriter.write(crlf, results: Self.results), as: UTF8.self)
        #expect(outCRLF == outLF.replacing("\n", with: "\r\n"))
    }

    @Test func renderTextOfATextReportIsWrite() throws {
        let r = try ReportParser.parse(Array(Fixtures.textReport.utf8))
        #expect(ReportWriter.renderText(r, results: Self.results) == ReportWriter.write(r, results: Self.results))
    }

    static let ipsResults: [FrameID: FrameResult] = [
        FrameID(backtrace: 0, frame: 0): FrameResult(status: .symbolicated, frames: [inline, outer]),
        FrameID(backtrace: 0, frame: 1): FrameResult(
            status: .symbolicated, frames: [SymbolicatedFrame(symbol: "new", symbolOffset: 8)]),
        FrameID(backtrace: 1, frame: 0): FrameResult(
            status: .symbolicated, frames: [SymbolicatedFrame(symbol: "spaced \"q\"", symbolOffset: 2)]),
        FrameID(backtrace: 2, frame: 0): FrameResult(
            status: .symbolicated, frames: [SymbolicatedFrame(symbol: "leb", symbolOffset: 1, file: "L.m", line: 5)]),
    ]

    @Test func ipsRewriteExactText() throws {
        let r = try ReportParser.parse(Array(Fixtures.ipsReport.utf8))
        let out = String(decoding: ReportWriter.write(r, results: Self.ipsResults), as: UTF8.self)
        let expected = Fixtures.ipsReport
            .replacing(
                #"{"imageOffset":25788,"imageIndex":1},{"imageOffset":100,"symbol":"old","symbolLocation":4,"imageIndex":0}"#,
                with:
                    #"{"imageOffset":25788,"symbol":"closure #1 in f()","inline":true,"imageIndex":1,"sourceFile":"Inl.swift","sourceLine":7},"#
                    + #"{"imageOffset":25788,"imageIndex":1,"symbol":"ViewController.viewDidLoad()","symbolLocation":40,"sourceFile":"ViewController.swift","sourceLine":19},"#
                    + #"{"imageOffset":100,"symbol":"new","symbolLocation":8,"imageIndex":0}"#
            )
            .replacing(
                #"{ "imageOffset" : 8, "imageIndex" : 0 }"#,
                with: #"{ "imageOffset" : 8, "imageIndex" : 0, "symbol" : "spaced \"q\"", "symbolLocation" : 2 }"#
            )
            .replacing(
                #"[{"imageOffset":4,"imageIndex":0}]"#,
                with:
                    #"[{"imageOffset":4,"imageIndex":0,"symbol":"leb","symbolLocation":1,"sourceFile":"L.m","sourceLine":5}]"#
            )
        #expect(out == expected)
        // Read back, the inline object is a level of the frame after it, not a frame.
        let again = try ReportParser.parse(Array(out.utf8))
        #expect(again.backtraces[0].frames.map(\.symbol) == ["ViewController.viewDidLoad()", "new", nil])
        #expect(again.backtraces[0].frames[0].sourceLine == 19)
        #expect(again.backtraces[0].frames[0].isReturnAddress == false)
    }

    /// A frame object symbolicated again with a result that has no file, or a file and no line:
    /// the `sourceFile` and `sourceLine` an earlier run wrote go, with one separator each,
    /// wherever they are in the object; every other key stays in its place.
    @Test func ipsSourceLocationTheNewResultHasNoneForIsRemoved() throws {
        let before = Fixtures.ipsReport
            .replacing(
                #"{"imageOffset":100,"symbol":"old","symbolLocation":4,"imageIndex":0}"#,
                with:
                    #"{"imageOffset":100,"symbol":"old","symbolLocation":4,"imageIndex":0,"sourceFile":"Old.swift","sourceLine":9}"#
            )
            .replacing(
                #"{ "imageOffset" : 8, "imageIndex" : 0 }"#,
                with: #"{ "sourceFile" : "Old.m", "imageOffset" : 8, "sourceLine" : 3, "imageIndex" : 0 }"#
            )
            .replacing(
                #"[{"imageOffset":4,"imageIndex":0}]"#,
                with: #"[{"imageOffset":4,"sourceLine":3,"imageIndex":0,"sourceFile":"Old.m"}]"#)
        let r = try ReportParser.parse(Array(before.utf8))
        #expect(r.backtraces.flatMap(\.frames).filter { $0.sourceFile != nil }.count == 3)
        let results: [FrameID: FrameResult] = [
            FrameID(backtrace: 0, frame: 1): FrameResult(
                status: .symbolicated, frames: [SymbolicatedFrame(symbol: "new", symbolOffset: 8)]),
            FrameID(backtrace: 1, frame: 0): FrameResult(
                status: .symbolicated, frames: [SymbolicatedFrame(symbol: "spaced", symbolOffset: 2)]),
            FrameID(backtrace: 2, frame: 0): FrameResult(
                status: .symbolicated,
                frames: [SymbolicatedFrame(symbol: "leb", symbolOffset: 1, file: "L.m", line: nil)]),
        ]
        let out = String(decoding: ReportWriter.write(r, results: results), as: UTF8.self)
        let expected = Fixtures.ipsReport
            .replacing(
                #"{"imageOffset":100,"symbol":"old","symbolLocation":4,"imageIndex":0}"#,
                with: #"{"imageOffset":100,"symbol":"new","symbolLocation":8,"imageIndex":0}"#
            )
            .replacing(
                #"{ "imageOffset" : 8, "imageIndex" : 0 }"#,
                with: #"{ "imageOffset" : 8, "imageIndex" : 0, "symbol" : "spaced", "symbolLocation" : 2 }"#
            )
            .replacing(
                #"[{"imageOffset":4,"imageIndex":0}]"#,
                with: #"[{"imageOffset":4,"imageIndex":0,"sourceFile":"L.m","symbol":"leb","symbolLocation":1}]"#)
        #expect(Fixtures.lines(out) == Fixtures.lines(expected))
    }

    /// A MetricKit frame object symbolicated again: the keys an earlier run wrote get the new
    /// values in their place (a repeat of one, as a run that only ever added keys left, goes),
    /// `fileName`, `lineNumber` and `inlineFrames` the new result has none for go, `subFrames`
    /// stays last; a frame the new run finds nothing for keeps what it had. The `inlineFrames`
    /// objects are no frames of their own.
    @Test func metricKitKeysWrittenBeforeAreReplaced() throws {
        let kept =
            #"{"binaryName":"App","offsetIntoBinaryTextSegment":200,"address":4294967496,"#
            + #""symbolName":"kept","fileName":"K.swift","lineNumber":1}"#
        func document(_ root: String) -> String {
            #"{"callStackPerThread":true,"callStacks":[{"threadAttributed":true,"callStackRootFrames":["#
                + root + kept + "]}]}]}"
        }
        let before = document(
            #"{"binaryName":"App","offsetIntoBinaryTextSegment":100,"address":4294967396,"symbolName":"old","#
                + #""offsetIntoSymbol":4,"fileName":"Old.swift","lineNumber":9,"#
                + #""inlineFrames":[{"symbolName":"gone","fileName":"G.h","lineNumber":2}],"#
                + #""symbolName":"old","offsetIntoSymbol":4,"subFrames":["#)
        let r = try ReportParser.parse(Array(before.utf8))
        #expect(r.format == .metricKit)
        #expect(r.backtraces.map(\.frames.count) == [2])
        let results: [FrameID: FrameResult] = [
            FrameID(backtrace: 0, frame: 0): FrameResult(
                status: .symbolicated, frames: [SymbolicatedFrame(symbol: "new", symbolOffset: 8)]),
            FrameID(backtrace: 0, frame: 1): FrameResult(status: .missingSymbol),
        ]
        let out = String(decoding: ReportWriter.write(r, results: results), as: UTF8.self)
        let expected = document(
            #"{"binaryName":"App","offsetIntoBinaryTextSegment":100,"address":4294967396,"symbolName":"new","#
                + #""offsetIntoSymbol":8,"subFrames":["#)
        #expect(out == expected)
    }

    /// The keys of every JSON object in `text`, in document order of the objects' ends; a
    /// string-aware scan written for the test, independent of the parser under test.
    static func objectKeys(_ text: String) -> [[String]] {
        let chars = Array(text.unicodeScalars)
        var stack: [[String]] = []
        var kinds: [Character] = []
        var done: [[String]] = []
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\"" {
                var j = i + 1
                var s = ""
                while j < chars.count, chars[j] != "\"" {
                    if chars[j] == "\\" { j += 1 }
                    if j < chars.count { s.unicodeScalars.append(chars[j]) }
                    j += 1
                }
                var k = j + 1
                while k < chars.count, chars[k] == " " || chars[k] == "\n" { k += 1 }
                if k < chars.count, chars[k] == ":", kinds.last == "{" { stack[stack.count - 1].append(s) }
                i = j + 1
                continue
            }
            if c == "{" {
                stack.append([])
                kinds.append("{")
            }
            if c == "[" { kinds.append("[") }
            if c == "]", kinds.last == "[" { kinds.removeLast() }
            if c == "}", kinds.last == "{", let keys = stack.popLast() {
                kinds.removeLast()
                done.append(keys)
            }
            i += 1
        }
        return done
    }

    @Test(
        .tags(.corpus), .needsCorpus,
        arguments: Corpus.appleReports.filter { $0.format.hasPrefix("apple-ips") })
    func ipsKeyOrderKeptAfterSymbols(entry: Corpus.Entry) throws {
        let bytes = try Corpus.bytes(entry.file)
        let r = try ReportParser.parse(bytes)
        var results: [FrameID: FrameResult] = [:]
        var inlineCount = 0
        for (b, backtrace) in r.backtraces.enumerated() where backtrace.kind != .applicationSpecific {
            for f in backtrace.frames.indices where f % 2 == 0 {
                let levels = f % 4 == 0 ? [Self.inline, Self.outer] : [Self.outer]
                inlineCount += levels.count - 1
                results[FrameID(backtrace: b, frame: f)] = FrameResult(status: .symbolicated, frames: levels)
            }
        }
        let out = ReportWriter.write(r, results: results)
        let outText = String(decoding: out, as: UTF8.self)
        // Both documents are still valid JSON.
        let lines = outText.split(separator: "\n", maxSplits: 1)
        #expect(lines.count == 2)
        #expect((try? JSONSerialization.jsonObject(with: Data(lines[1].utf8))) != nil)
        #expect(lines[0] == String(decoding: bytes, as: UTF8.self).split(separator: "\n", maxSplits: 1)[0])
        // Original key order survives: every original flat object reappears with its keys as a prefix.
        let before = Self.objectKeys(String(decoding: bytes, as: UTF8.self))
        let after = Self.objectKeys(outText).filter { !$0.contains("inline") }
        #expect(before.count == after.count)
        for (a, b) in zip(before, after) { #expect(Array(b.prefix(a.count)) == a) }
        let again = try ReportParser.parse(out)
        // The inline objects added are levels of their frames, not frames.
        #expect(outText.components(separatedBy: "\"inline\"").count - 1 == inlineCount)
        #expect(again.frameCount == r.frameCount)
        #expect(
            again.backtraces.flatMap(\.frames).filter { $0.symbol == "ViewController.viewDidLoad()" }.count
                == results.count)
    }

    @Test(.tags(.corpus), .needsCorpus)
    func ipsApplicationSpecificBacktraceIsRewrittenInsideItsString() throws {
        let file =
            "llvm__llvm-project/lldb/test/Shell/ScriptInterpreter/Python/Crashlog/Inputs/application_specific_info/leb.txt"
        let bytes = try Corpus.bytes(file)
        let r = try ReportParser.parse(bytes)
        let asi = try #require(r.backtraces.firstIndex { $0.kind == .applicationSpecific })
        let out = ReportWriter.write(
            r,
            results: [
                FrameID(backtrace: asi, frame: 5): FrameResult(
                    status: .symbolicated, frames: [Self.inline, Self.outer])
            ])
        // The inline level is a line of its own inside the string, with frame 5's number and
        // address; read again, it is a level of frame 5, not a frame.
        #expect(
            String(decoding: out, as: UTF8.self).contains(
                "5   asi                                 0x00000001047e3ed0 closure #1 in f() (Inl.swift:7)\\n"))
        let again = try ReportParser.parse(out)
        let frames = again.backtraces[asi].frames
        #expect(frames.count == r.backtraces[asi].frames.count)
        #expect(
            frames[5].symbol == "ViewController.viewDidLoad()" && frames[5].symbolOffset == 40
                && frames[5].address == 0x1_047e_3ed0 && frames[5].number == 5)
        // Everything before the asiBacktraces value is untouched.
        let text = String(decoding: bytes, as: UTF8.self)
        let cut = try #require(text.firstRange(of: "\"asiBacktraces\""))
        let prefix = text[..<cut.upperBound]
        #expect(String(decoding: out, as: UTF8.self).hasPrefix(prefix))
    }

    @Test func frameLineWithNothingAfterTheAddress() throws {
        let text = "Exception Type:  EXC_CRASH (SIGABRT)\n\nThread 0 Crashed:\n0   a   0x1000\n1   a   0x1004 \n"
        let r = try ReportParser.parse(Array(text.utf8))
        #expect(r.backtraces[0].frames.map(\.address) == [0x1000, 0x1004])
        let results = [
            FrameID(backtrace: 0, frame: 0): FrameResult(
                status: .symbolicated, frames: [SymbolicatedFrame(symbol: "f", symbolOffset: 4)]),
            FrameID(backtrace: 0, frame: 1): FrameResult(
                status: .symbolicated, frames: [SymbolicatedFrame(symbol: "g", symbolOffset: 0)]),
        ]
        let out = String(decoding: ReportWriter.write(r, results: results), as: UTF8.self)
        #expect(
            out
                == "Exception Type:  EXC_CRASH (SIGABRT)\n\nThread 0 Crashed:\n0   a   0x1000 f + 4\n1   a   0x1004 g + 0\n"
        )
    }

    /// Line 0 is a line (Apple prints `(<compiler-generated>:0)`); no line at all prints the file alone.
    @Test func lineZeroIsPrintedAsApplePrintsIt() throws {
        let zero = SymbolicatedFrame(symbol: "thunk", symbolOffset: 8, file: "/src/<compiler-generated>", line: 0)
        #expect(ReportWriter.symbolColumn(zero) == "thunk + 8 (<compiler-generated>:0)")
        let none = SymbolicatedFrame(symbol: "f", symbolOffset: 8, file: "/src/a.c", line: nil)
        #expect(ReportWriter.symbolColumn(none) == "f + 8 (a.c)")
    }
}
