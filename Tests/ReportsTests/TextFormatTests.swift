// Tests of the text-report parser on hand-written variants: header fields in order, thread
// spellings, every frame form, the parenthesized Last Exception Backtrace, Binary Images
// forms, and the encodings users paste (CRLF, CR, U+00A0, a JSON header, chat noise).

import Foundation
import Reports
import SymbolicateModel
import Testing

@Suite struct TextFormatTests {
    let bytes = Array(Fixtures.textReport.utf8)

    @Test func headerFieldsInOrder() throws {
        let r = try ReportParser.parse(bytes)
        #expect(r.format == .text)
        #expect(
            r.fields.prefix(4).map(\.key) == ["Incident Identifier", "CrashReporter Key", "Hardware Model", "Process"])
        #expect(r.field("Process") == "My App [123]")
        #expect(r.field("Exception Type") == "EXC_CRASH (SIGABRT)")
        #expect(r.field("Triggered by Thread") == "0")
        #expect(r.arch == .arm64)
        #expect(r.applicationSpecificInformation == "*** Terminating app due to uncaught exception\nsecond line")
        #expect(!r.fields.contains { $0.key.hasPrefix("Thread") || $0.key == "Application Specific Information" })
    }

    @Test func threadsAndFrames() throws {
        let r = try ReportParser.parse(bytes)
        #expect(r.backtraces.map(\.kind) == [.thread, .thread, .thread, .lastException])
        #expect(r.backtraces.map(\.frames.count) == [4, 2, 1, 4])
        let t0 = r.backtraces[0]
        let t1 = r.backtraces[1]
        let t2 = r.backtraces[2]
        #expect(t0.crashed && t0.queue == "com.apple.main-thread" && t0.name == nil && t0.number == 0)
        #expect(!t1.crashed && t1.name == "com.example.worker" && t1.number == 1)
        #expect(t2.crashed && t2.queue == "com.apple.root" && t2.number == 2)
        #expect(t0.frames.map(\.isReturnAddress) == [false, true, true, true])
        #expect(t1.frames.map(\.isReturnAddress) == [false, true])

        let f1 = t0.frames[1]
        #expect(f1.imageName == "My App" && f1.imageIndex == 1 && f1.address == 0x1_007d_a4bc && f1.symbol == nil)
        #expect(f1.symbolColumn.map { String(decoding: bytes[$0], as: UTF8.self) } == "0x1007d4000 + 25788")
        let f2 = t0.frames[2]
        #expect(f2.symbol == "ViewController.viewDidLoad()" && f2.symbolOffset == 40)
        #expect(f2.sourceFile == "ViewController.swift" && f2.sourceLine == 19)
        #expect(
            f2.symbolColumn.map { String(decoding: bytes[$0], as: UTF8.self) }
                == "ViewController.viewDidLoad() + 40 (ViewController.swift:19)")
        #expect(t0.frames[3].symbol == "<redacted>" && t0.frames[3].symbolOffset == 20)
        #expect(t1.frames[1].imageName == "???" && t1.frames[1].imageIndex == nil)
        // KSCrash: `0xBASE + off (symbol + off)`
        #expect(
            t2.frames[0].symbol == "CFRunLoopRun" && t2.frames[0].symbolOffset == 12 && t2.frames[0].imageIndex == 2)
    }

    @Test func parenthesizedLastExceptionBacktrace() throws {
        let r = try ReportParser.parse(bytes)
        let leb = r.backtraces[3]
        #expect(leb.frames.map(\.address) == [0x1_a8e8_c04c, 0x1_a0a5_840c, 0x1_007d_a4bc, 0x9999])
        #expect(leb.frames.map(\.imageIndex) == [2, nil, 1, nil])
        #expect(leb.frames.map(\.number) == [0, 1, 2, 3])
        #expect(leb.frames.allSatisfy { $0.isReturnAddress && $0.symbolColumn == nil })
    }

    @Test func parenthesizedBacktraceOnHeaderLine() throws {
        let text = Fixtures.textReport.replacing("Last Exception Backtrace:\n(", with: "Last Exception Backtrace: (")
        let r = try ReportParser.parse(Array(text.utf8))
        #expect(r.backtraces.last?.frames.map(\.address) == [0x1_a8e8_c04c, 0x1_a0a5_840c, 0x1_007d_a4bc, 0x9999])
    }

    @Test func frameLinesInLastExceptionBacktrace() throws {
        let text = Fixtures.textReport.replacing(
            "(0x1a8e8c04c 0x1a0a5840c 0x1007da4bc 0x9999)",
            with:
                "0   CoreFoundation   0x1a8e8c04c __exceptionPreprocess + 220\n1   My App   0x1007da4bc 0x1007d4000 + 25788"
        )
        let r = try ReportParser.parse(Array(text.utf8))
        let leb = try #require(r.backtraces.last)
        #expect(leb.kind == .lastException && leb.frames.count == 2)
        #expect(leb.frames[0].isReturnAddress && leb.frames[0].symbol == "__exceptionPreprocess")
        #expect(leb.frames[1].imageIndex == 1)
    }

    @Test func binaryImages() throws {
        let r = try ReportParser.parse(bytes)
        #expect(r.images.count == 3)
        let app = r.images[1]
        #expect(app.name == "My App" && app.arch == .arm64 && app.loadAddress == 0x1_007d_4000)
        // Typed as the optional it is compared with: for `UInt64? == UInt64 expression` the 6.3
        // compiler's #expect thunk reads 9 bytes from the 8-byte value (AddressSanitizer reports it).
        let size: UInt64? = 0x1_007d_bfff - 0x1_007d_4000 + 1
        #expect(app.size == size)
        #expect(app.uuid == BuildID(string: "82D13D98-219E-3040-B62A-07A297007A7C"))
        #expect(app.path == "/private/var/containers/Bundle/Application/X/My App.app/My App")
        #expect(r.images[0].arch == .arm64e)
    }

    /// A tab or a no-break space between an image's name and its arch (an editor's tabs, a page's
    /// spacing): the arch is read as with a space, not taken into the name.
    @Test(arguments: ["\t", "\u{A0}", " \t"])
    func binaryImageArchAfterOtherSpacing(_ gap: String) throws {
        let plain = try ReportParser.parse(bytes)
        let text = Fixtures.textReport.replacing(" arm64e  <", with: gap + "arm64e  <")
            .replacing("My App arm64  <", with: "My App" + gap + "arm64  <")
        let r = try ReportParser.parse(Array(text.utf8))
        #expect(r.images.map(\.name) == ["libsystem_kernel.dylib", "My App", "CoreFoundation"])
        #expect(r.images.map(\.arch) == [.arm64e, .arm64, .arm64e])
        #expect(r.images == plain.images)
    }

    @Test func macOSImageForms() throws {
        let text = """
            Process:         X [1]
            Code Type:       X86-64 (Native)
            Report Version:  12

            Binary Images:
                   0x10864e000 -        0x10ee0ffff +YetAnotherMac x86_64 (400.9.4 - 1.0.0) <2d903291397d3d14bfca52c7fb8c5e00> /Apps/Yet Another/YetAnotherMac
                   0x1062c9000 -        0x1062ccfff jp.mahdi.AnotherTarget (1.0) <9A36CF20-3655-3DF2-B1E9-466C5CB0C9CC> /Users/x/AnotherTarget.framework/Versions/A/AnotherTarget
                0x7ff81f31c000 -     0x7ff81f795fff libswiftCore.dylib (*) <19d7b567-6d0a-356a-8a2b-b45162bd77ab> /usr/lib/swift/libswiftCore.dylib
                   0x1017ff000 -        0x101885fff +com.AlphaSoft.iTubeDownloader (x86_64)  <7B639009-221F-3815-A7A3-657098146F8A> /Users/r/iTube.app/Contents/MacOS/iTubeDownloader
                0x8000 -    0x4cfff +Crash-Tester armv7  <99e112d20cb43f73bda6bcfc1f190724> /var/mobile/Crash-Tester
               0x99000 -    0x99fff  MobileSubstrate.dylib armv6  <a059eb894e623ec09d63294c525ff7a2> /Library/MobileSubstrate/MobileSubstrate.dylib
            0x315e0000 - 0x3196dfff  UIKit armv7s  <c271b78464d93cb7bf28c6e49df293ba> /System/Library/Frameworks/UIKit.framework/UIKit
            0x1000 - 0x1fff  i386lib i386  <c271b78464d93cb7bf28c6e49df293bb> /usr/lib/i386lib

            """
        let r = try ReportParser.parse(Array(text.utf8))
        #expect(r.arch == .x86_64)
        #expect(
            r.images.map(\.name) == [
                "YetAnotherMac", "jp.mahdi.AnotherTarget", "libswiftCore.dylib",
                "com.AlphaSoft.iTubeDownloader", "Crash-Tester", "MobileSubstrate.dylib", "UIKit", "i386lib",
            ])
        #expect(r.images.map(\.arch) == [.x86_64, nil, nil, .x86_64, .armv7, .armv6, .armv7s, .i386])
        #expect(r.images.map(\.isMarked) == [true, false, true, true, true, false, false, false])
        #expect(r.images[0].version == "400.9.4 - 1.0.0" && r.images[1].version == "1.0")
        #expect(r.images[1].uuid == BuildID(string: "9a36cf2036553df2b1e9466c5cb0c9cc"))
        #expect(r.images[0].path == "/Apps/Yet Another/YetAnotherMac")
        #expect(r.images.allSatisfy { $0.uuid != nil })
    }

    @Test func crlfAndCRLineEnds() throws {
        let plain = try ReportParser.parse(bytes)
        for ending in ["\r\n", "\r"] {
            let converted = Array(Fixtures.textReport.replacing("\n", with: ending).utf8)
            let r = try ReportParser.parse(converted)
            #expect(r.backtraces.map(\.frames.count) == plain.backtraces.map(\.frames.count))
            #expect(r.fields == plain.fields)
            #expect(r.images == plain.images)
            #expect(r.applicationSpecificInformation == plain.applicationSpecificInformation)
            for frame in r.backtraces.flatMap(\.frames) {
                if let c = frame.symbolColumn { #expect(!converted[c].contains(0x0D) && !converted[c].contains(0x0A)) }
            }
            #expect(ReportWriter.write(r, results: [:]) == converted)
        }
    }

    @Test func noBreakSpaces() throws {
        let plain = try ReportParser.parse(bytes)
        let text = Fixtures.textReport.replacing("   ", with: "\u{A0}\u{A0} ").replacing(":  ", with: ":\u{A0} ")
            .replacing("Exception Codes:", with: "Exception\u{A0}Codes:")
        let converted = Array(text.utf8)
        let r = try ReportParser.parse(converted)
        #expect(r.backtraces.map { $0.frames.map(\.address) } == plain.backtraces.map { $0.frames.map(\.address) })
        #expect(
            r.backtraces.map { $0.frames.map(\.imageIndex) } == plain.backtraces.map { $0.frames.map(\.imageIndex) })
        #expect(r.fields.map(\.key) == plain.fields.map(\.key))
        #expect(r.field("Exception Type") == "EXC_CRASH (SIGABRT)")
        #expect(r.field("Exception Codes") == "0x0000000000000000, 0x0000000000000000")
        #expect(r.images.map(\.uuid) == plain.images.map(\.uuid))
        #expect(ReportWriter.write(r, results: [:]) == converted)
    }

    @Test func jsonHeaderAndText() throws {
        let header = #"{"app_name":"My App","bug_type":"109","os_version":"iPhone OS 15.5 (19F77)"}"#
        let converted = Array((header + "\n" + Fixtures.textReport).utf8)
        let r = try ReportParser.parse(converted)
        #expect(r.format == .jsonHeaderText)
        #expect(r.jsonHeader == header)
        #expect(r.backtraces.map(\.frames.count) == [4, 2, 1, 4])
        #expect(r.fields.first?.key == "Incident Identifier")
        #expect(ReportWriter.write(r, results: [:]) == converted)
    }

    @Test func leadingNoise() throws {
        let noisy =
            "\n\nhey, this one came from a user: crashes at launch\nTime: yesterday\n\n" + Fixtures.textReport
            + "\nthanks!\n"
        let converted = Array(noisy.utf8)
        let r = try ReportParser.parse(converted)
        #expect(r.fields.first?.key == "Incident Identifier")
        #expect(!r.fields.contains { $0.key == "Time" })
        #expect(r.frameCount == 11)
        #expect(ReportWriter.write(r, results: [:]) == converted)
    }

    @Test func threadSpellings() throws {
        let text = """
            Exception Type:  EXC_BAD_ACCESS (SIGSEGV)
            Crashed Thread:  3

            Thread 3 Crashed: Test Thread Name
            0   a   0x1000 0x1000 + 0
            Thread 4:: Dispatch queue: q4
            0   a   0x1000 0x1000 + 0
            1   a   0x1004 0x1000 + 4
            Thread 5 name:  worker five
            Thread 5:
            Thread 5 crashed with ARM Thread State (64-bit):
                x0: 0x0000000000000000   x1: 0x0000000000000001

            """
        let r = try ReportParser.parse(Array(text.utf8))
        #expect(r.field("Crashed Thread") == "3")
        #expect(r.backtraces.map(\.number) == [3, 4, 5])
        #expect(r.backtraces[0].crashed && r.backtraces[0].name == "Test Thread Name")
        #expect(!r.backtraces[1].crashed && r.backtraces[1].queue == "q4" && r.backtraces[1].frames.count == 2)
        #expect(r.backtraces[2].name == "worker five" && r.backtraces[2].frames.isEmpty)
    }

    @Test func translatedReportWithFullReportAfterIt() throws {
        let text =
            "-------------------------------------\nTranslated Report (Full Report Below)\n-------------------------------------\n\n"
            + Fixtures.textReport + "\n-----------\nFull Report\n-----------\n\n" + Fixtures.ipsReport + "\n"
        let bytes = Array(text.utf8)
        let r = try ReportParser.parse(bytes)
        #expect(r.format == .text && r.jsonHeader == nil)
        #expect(r.backtraces.map(\.frames.count) == [4, 2, 1, 4])
        #expect(r.field("Incident Identifier") == "11111111-2222-3333-4444-555555555555")
        #expect(ReportWriter.write(r, results: [:]) == bytes)
    }
}
