// Tests of the `.ips` to text translation against Apple's own conversions of the same
// reports: MacSymbolicator's ios-crash.ips / ios-crash.crash pair must match exactly, SYM's
// AppleJson.ips / AppleConverted.log pair token for token (Apple pads one image column
// differently there); symbolicated frames render in the same layout as the writer's.

import Foundation
import Reports
import SymbolicateModel
import TestSupport
import Testing

@Suite(.tags(.corpus), .needsCorpus)
struct RenderTests {
    static func render(_ file: String, _ results: [FrameID: FrameResult] = [:]) throws -> [String] {
        let r = try ReportParser.parse(try Corpus.bytes(file))
        return Fixtures.lines(String(decoding: ReportWriter.renderText(r, results: results), as: UTF8.self))
    }

    @Test func iosCrashMatchesXcodesConversionExactly() throws {
        let rendered = try Self.render("inket__MacSymbolicator/Resources/Crashes/ios-crash.ips")
        let apple = Fixtures.lines(try Corpus.text("inket__MacSymbolicator/Resources/Crashes/ios-crash.crash"))
        #expect(rendered.count == apple.count)
        for (i, (a, b)) in zip(rendered, apple).enumerated() { #expect(a == b, "line \(i + 1)") }
    }

    @Test func appleJsonMatchesAppleConvertedTokenForToken() throws {
        let rendered = try Self.render("zqqf16__SYM/SYMTests/AppleJson.ips")
        let apple = Fixtures.lines(try Corpus.text("zqqf16__SYM/SYMTests/AppleConverted.log"))
        #expect(rendered.count == apple.count)
        var exact = 0
        for (i, (a, b)) in zip(rendered, apple).enumerated() {
            #expect(a.split(whereSeparator: \.isWhitespace) == b.split(whereSeparator: \.isWhitespace), "line \(i + 1)")
            if a == b { exact += 1 }
        }
        #expect(exact >= apple.count - 3)
        // Key lines, verbatim.
        for line in [
            "Code Type:           ARM-64 (Native)", "Termination Reason: TCC 0 ", "Triggered by Thread:  1",
            "Thread 1 name:   Dispatch queue: com.apple.root.default-qos", "Thread 1 Crashed:",
            "Thread 5 name:  com.apple.uikit.eventfetch-thread",
            "   far: 0x0000000102e1c050  esr: 0x56000080  Address size fault", "Binary Images:",
        ] {
            #expect(rendered.contains(line), "\(line)")
        }
    }

    @Test func symbolicatedFramesInRenderedText() throws {
        let results: [FrameID: FrameResult] = [
            FrameID(backtrace: 0, frame: 2): FrameResult(
                status: .symbolicated,
                frames: [
                    SymbolicatedFrame(
                        symbol: "CrashClass.pleaseCrash()", file: "/src/CrashClass.swift", line: 12, isInline: true),
                    SymbolicatedFrame(
                        symbol: "ViewController.viewDidLoad()", symbolOffset: 208, file: "/src/ViewController.swift",
                        line: 19),
                ])
        ]
        let rendered = try Self.render("inket__MacSymbolicator/Resources/Crashes/ios-crash.ips", results)
        let at = try #require(rendered.firstIndex { $0.hasPrefix("2   iOSCrashingTest") })
        #expect(
            rendered[at]
                == "2   iOSCrashingTest               \t       0x1007da4bc CrashClass.pleaseCrash() (CrashClass.swift:12)"
        )
        #expect(
            rendered[at + 1]
                == "2   iOSCrashingTest               \t       0x1007da4bc ViewController.viewDidLoad() + 208 (ViewController.swift:19)"
        )
        #expect(rendered[at + 2] == "3   iOSCrashingTest               \t       0x1007da1cc 0x1007d4000 + 25036")
    }

    @Test func lastExceptionAndApplicationSpecificInformation() throws {
        let rendered = try Self.render(
            "llvm__llvm-project/lldb/test/Shell/ScriptInterpreter/Python/Crashlog/Inputs/application_specific_info/leb.txt"
        )
        let leb = try #require(rendered.firstIndex(of: "Last Exception Backtrace:"))
        #expect(
            rendered[leb + 1] == "0   CoreFoundation                \t       0x1a0a5840c __exceptionPreprocess + 164")
        let asi = try #require(rendered.firstIndex(of: "Application Specific Information:"))
        #expect(asi < leb)
        #expect(rendered[asi + 1].hasPrefix("*** Terminating app due to uncaught exception 'NSRangeException'"))
        // A macOS report: macOS's own thread label.
        #expect(rendered.contains { $0.hasPrefix("Thread 0 Crashed::") })
    }

    /// macOS `.ips` reports render in macOS's own layout (Report Version 12): byte for byte
    /// Apple's text report of the same incident.
    @Test(arguments: ["single-target-crash", "multi-target-crash"])
    func macOSMatchesApplesTextExactly(_ name: String) throws {
        let base = "inket__MacSymbolicator/Resources/Crashes/" + name
        let r = try ReportParser.parse(try Corpus.bytes(base + ".ips"))
        let rendered = String(decoding: ReportWriter.renderText(r, results: [:]), as: UTF8.self)
        let apple = try Corpus.text(base + ".crash")
        #expect(rendered == apple)
        for line in ["Responsible:", "User ID:", "Crashed Thread:", "VM Region Info:"] where apple.contains("\n" + line)
        {
            #expect(rendered.contains("\n" + line), "\(line)")
        }
        #expect(rendered.contains("\nCrashed Thread:"))
    }

    @Test func x86ThreadStateMatchesApple() throws {
        let rendered = try Self.render("inket__MacSymbolicator/Resources/Crashes/multi-target-crash.ips")
        let apple = Fixtures.lines(try Corpus.text("inket__MacSymbolicator/Resources/Crashes/multi-target-crash.crash"))
        let title = "Thread 0 crashed with X86 Thread State (64-bit):"
        let r = try #require(rendered.firstIndex(of: title))
        let a = try #require(apple.firstIndex(of: title))
        #expect(Array(rendered[r..<(r + 10)]) == Array(apple[a..<(a + 10)]))
        // Frame lines and image UUIDs agree with Apple's text of the same crash, token for token.
        for line in apple where line.hasPrefix("1   AnotherTarget") || line.hasPrefix("3   dyld") {
            #expect(rendered.contains(line), "\(line)")
        }
    }
}
