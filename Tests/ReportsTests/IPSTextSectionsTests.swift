// Sections of an `.ips` report that its text rendering must keep, in the layout Apple's own
// conversions give them: macOS's `Time Since Wake` and `Application Specific Backtrace N:`
// (the `asiBacktraces` strings, line for line, with our symbols in their frames), and the iOS
// layout's `Exception Subtype` and `VM Region Info`. The expected lines were read off Apple's
// text reports of macOS 12 and iOS 15 crashes.

import Foundation
import Reports
import SymbolicateModel
import TestSupport
import Testing

struct IPSTextSectionsTests {
    static func render(_ ips: String, _ results: [FrameID: FrameResult] = [:]) throws -> [String] {
        let report = try ReportParser.parse(Array(ips.utf8))
        return Fixtures.lines(String(decoding: ReportWriter.renderText(report, results: results), as: UTF8.self))
    }

    static let symbolicated = FrameResult(
        status: .symbolicated,
        frames: [SymbolicatedFrame(symbol: "main", symbolOffset: 9, file: "/src/main.swift", line: 3)])

    /// A macOS report with two application-specific backtraces and a wake time.
    static let macOSReport = #"""
        {"app_name":"App","bug_type":"309","os_version":"macOS 12.7.6 (21H1320)","name":"App"}
        {
          "procName" : "App",
          "pid" : 12,
          "procPath" : "\/Applications\/App.app\/Contents\/MacOS\/App",
          "cpuType" : "X86-64",
          "osVersion" : {"train" : "macOS 12.7.6", "build" : "21H1320"},
          "uptime" : 23000,
          "wakeTime" : 5491,
          "sip" : "enabled",
          "faultingThread" : 0,
          "exception" : {"codes":"0x0000000000000000, 0x0000000000000000","type":"EXC_CRASH","signal":"SIGABRT"},
          "asi" : {"libsystem_c.dylib":["abort() called"]},
          "asiBacktraces" : ["0   CoreFoundation                      0x00007ff80f9ea6e3 __exceptionPreprocess + 242\n1   App                                 0x0000000104bdccb9 App + 12473", "0   App                                 0x0000000104bdcc00 App + 12288"],
          "threads" : [{"triggered":true,"frames":[{"imageOffset":12473,"imageIndex":0}]}],
          "usedImages" : [{"base":4374511616,"size":65536,"uuid":"82d13d98-219e-3040-b62a-07a297007a7c","name":"App","path":"\/Applications\/App.app\/Contents\/MacOS\/App","arch":"x86_64"}]
        }
        """#

    @Test func macOSTimeSinceWakeFollowsTimeAwake() throws {
        let rendered = try Self.render(Self.macOSReport)
        let awake = try #require(rendered.firstIndex(of: "Time Awake Since Boot: 23000 seconds"))
        #expect(rendered[awake + 1] == "Time Since Wake:       5491 seconds")
        #expect(rendered[awake + 2] == "")
    }

    @Test func macOSApplicationSpecificBacktracesFollowTheInformation() throws {
        let results = [
            FrameID(backtrace: 1, frame: 1): Self.symbolicated,
            FrameID(backtrace: 2, frame: 0): Self.symbolicated,
        ]
        let rendered = try Self.render(Self.macOSReport, results)
        let asi = try #require(rendered.firstIndex(of: "Application Specific Information:"))
        let expected = [
            "Application Specific Information:",
            "abort() called",
            "",
            "",
            "Application Specific Backtrace 0:",
            "0   CoreFoundation                      0x00007ff80f9ea6e3 __exceptionPreprocess + 242",
            "1   App                                 0x0000000104bdccb9 main + 9 (main.swift:3)",
            "",
            "",
            "Application Specific Backtrace 1:",
            "0   App                                 0x0000000104bdcc00 main + 9 (main.swift:3)",
            "",
            "",
            "Thread 0 Crashed:",
        ]
        #expect(Array(rendered[asi..<min(rendered.count, asi + expected.count)]) == expected)
    }

    @Test(.tags(.corpus), .needsCorpus)
    func macOSApplicationSpecificBacktraceOfARealReport() throws {
        let file =
            "llvm__llvm-project/lldb/test/Shell/ScriptInterpreter/Python/Crashlog/Inputs/application_specific_info/leb.txt"
        let r = try ReportParser.parse(try Corpus.bytes(file))
        let asiBacktrace = try #require(r.backtraces.firstIndex { $0.kind == .applicationSpecific })
        let results = [FrameID(backtrace: asiBacktrace, frame: 5): Self.symbolicated]
        let rendered = Fixtures.lines(String(decoding: ReportWriter.renderText(r, results: results), as: UTF8.self))
        let awake = try #require(rendered.firstIndex(of: "Time Awake Since Boot: 90000 seconds"))
        #expect(rendered[awake + 1] == "Time Since Wake:       1351 seconds")
        let title = try #require(rendered.firstIndex(of: "Application Specific Backtrace 0:"))
        #expect(rendered[title - 2] == "" && rendered[title - 1] == "")
        #expect(rendered[title - 3] == "terminating with uncaught exception of type NSException")
        #expect(
            Array(rendered[(title + 1)...(title + 9)]) == [
                "0   CoreFoundation                      0x00000001a0a58418 __exceptionPreprocess + 176",
                "1   libobjc.A.dylib                     0x00000001a05a2ea8 objc_exception_throw + 60",
                "2   CoreFoundation                      0x00000001a0b3dcc4 -[__NSCFString characterAtIndex:].cold.1 + 0",
                "3   CoreFoundation                      0x00000001a0b46af4 -[__NSArrayI getObjects:range:].cold.1 + 0",
                "4   CoreFoundation                      0x00000001a09a12a4 __CFPropertyListIsArrayPlistAux + 0",
                "5   asi                                 0x00000001047e3ed0 main + 9 (main.swift:3)",
                "6   dyld                                0x00000001a05d3e50 start + 2544",
                "",
                "",
            ])
    }

    /// The iOS layout (Report Version 104): the subtype between the type and the codes, the VM
    /// region block right after the codes, then the exception note.
    @Test func iOSExceptionSubtypeAndVMRegionInfo() throws {
        let original = try String(
            contentsOfFile: Repository.samplesReports + "/HoldApp-ios-arm64-dwarf4.ips", encoding: .utf8)
        let start = try #require(original.range(of: "\"exception\": {"))
        let end = try #require(original.range(of: "\"termination\""))
        let exception =
            #""exception": {"codes":"0x0000000000000001, 0x0000000000000010","type":"EXC_BAD_ACCESS","signal":"SIGSEGV","#
            + #""subtype":"KERN_INVALID_ADDRESS at 0x0000000000000010"},"#
            + #""vmRegionInfo": "0x10 is not in any region.  Bytes before following region: 4300193776\n"#
            + #"      REGION TYPE                 START - END      [ VSIZE] PRT\/MAX SHRMOD  REGION DETAIL\n"#
            + #"      UNUSED SPACE AT START\n--->  \n"#
            + #"      __TEXT                   1004fc000-100500000 [   16K] r-x\/r-x SM=COW  ...app\/HoldApp","#
        let ips = original.replacingCharacters(in: start.lowerBound..<end.lowerBound, with: exception)
        let rendered = try Self.render(ips)
        let type = try #require(rendered.firstIndex(of: "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)"))
        #expect(
            Array(rendered[type..<min(rendered.count, type + 10)]) == [
                "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)",
                "Exception Subtype: KERN_INVALID_ADDRESS at 0x0000000000000010",
                "Exception Codes: 0x0000000000000001, 0x0000000000000010",
                "VM Region Info: 0x10 is not in any region.  Bytes before following region: 4300193776",
                "      REGION TYPE                 START - END      [ VSIZE] PRT/MAX SHRMOD  REGION DETAIL",
                "      UNUSED SPACE AT START",
                "--->  ",
                "      __TEXT                   1004fc000-100500000 [   16K] r-x/r-x SM=COW  ...app/HoldApp",
                "Exception Note:  EXC_CORPSE_NOTIFY",
                "Termination Reason: SIGNAL 6 Abort trap: 6",
            ])
    }
}
