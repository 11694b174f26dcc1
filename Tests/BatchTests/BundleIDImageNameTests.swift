// macOS 12 text reports list an image under its bundle identifier (`jp.example.Kit (1.0) <uuid>
// /…/Kit.framework/Versions/A/Kit`) while their frame lines, and the `.ips` of the same crash,
// call it by its file name (`Kit`). The image is `Kit` in both forms: in the summary, in the
// JSON outcome and in the crash group, and the text is still written back byte for byte. Earlier
// macOS reports, whose frame lines use the bundle identifier too, keep it.

import Reports
import SymbolicateModel
import Symbolication
import Testing

@testable import Batch

struct BundleIDImageNameTests {
    static let text = """
        Process:               Tool [1757]
        Path:                  /Users/x/Tool
        Identifier:            Tool
        Version:               ???
        Code Type:             X86-64 (Native)
        OS Version:            macOS 12.4 (21F79)
        Report Version:        12

        Crashed Thread:        0  Dispatch queue: com.apple.main-thread

        Exception Type:        EXC_BAD_INSTRUCTION (SIGILL)

        Thread 0 Crashed::  Dispatch queue: com.apple.main-thread
        0   Kit                           \t       0x1062ccb87 0x1062c9000 + 15239
        1   Tool                          \t       0x10618ee64 0x10618b000 + 15972

        Binary Images:
               0x1062c9000 -        0x1062ccfff jp.example.Kit (1.0) <9a36cf20-0000-4000-8000-466c5cb0c9cc> /Users/x/Kit.framework/Versions/A/Kit
               0x10618b000 -        0x10618efff Tool (*) <d7cc0747-0000-4000-8000-ea4d30bdc429> /Users/x/Tool

        """

    static let ips = """
        {"app_name":"Tool","bug_type":"309","os_version":"macOS 12.4 (21F79)","incident_id":"6F8B4B38-2C30-4D8B-9B1E-1B6C2A1B7E11"}
        {
          "procName" : "Tool", "cpuType" : "X86-64", "faultingThread" : 0,
          "exception" : {"type" : "EXC_BAD_INSTRUCTION", "signal" : "SIGILL"},
          "threads" : [{"triggered" : true, "frames" : [{"imageOffset" : 15239, "imageIndex" : 0}, {"imageOffset" : 15972, "imageIndex" : 1}]}],
          "usedImages" : [
            {"source" : "P", "arch" : "x86_64", "base" : 4398551040, "size" : 16384, "CFBundleShortVersionString" : "1.0", "CFBundleIdentifier" : "jp.example.Kit", "uuid" : "9a36cf20-0000-4000-8000-466c5cb0c9cc", "path" : "/Users/x/Kit.framework/Versions/A/Kit", "name" : "Kit"},
            {"source" : "P", "arch" : "x86_64", "base" : 4397248512, "size" : 16384, "uuid" : "d7cc0747-0000-4000-8000-ea4d30bdc429", "path" : "/Users/x/Tool", "name" : "Tool"}
          ]
        }
        """

    static func process(_ report: String, format: OutputFormat? = nil) throws -> ProcessedReport {
        try SymbolicationService(locator: try SymbolPathLocator(paths: [])).process(Array(report.utf8), format: format)
    }

    @Test func theTextAndTheIPSNameTheImageAlike() throws {
        let text = try ReportParser.parse(Array(Self.text.utf8))
        let ips = try ReportParser.parse(Array(Self.ips.utf8))
        #expect(text.images.map(\.name) == ["Kit", "Tool"])
        #expect(text.images.map(\.name) == ips.images.map(\.name))
        // Each frame is still in its own image, and keeps the name its line gives it.
        let frames = try #require(text.backtraces.first?.frames)
        #expect(frames.map(\.imageIndex) == [0, 1])
        #expect(frames.map(\.imageName) == ["Kit", "Tool"])
        // The rest of what the line says of the image is as before.
        #expect(text.images[0].version == "1.0" && text.images[0].path == "/Users/x/Kit.framework/Versions/A/Kit")
    }

    @Test func summariesJSONAndCrashGroupsAgree() throws {
        let text = try Self.process(Self.text)
        let ips = try Self.process(Self.ips)
        // (The `.ips` also gives each image's arch, which these Binary Images lines do not.)
        #expect(text.outcome.images.map(\.image.name) == ips.outcome.images.map(\.image.name))
        #expect(text.outcome.images.first?.summary.hasPrefix("Kit: missing 9A36CF20-") == true)
        #expect(text.outcome.missing.map(\.name) == ["Kit", "Tool"])
        let json = String(decoding: try Self.process(Self.text, format: .json).output, as: UTF8.self)
        #expect(json.contains(#""name":"Kit""#) && !json.contains("jp.example.Kit"), "\(json)")
        let textFacts = ReportFacts(text)
        let ipsFacts = ReportFacts(ips)
        #expect(textFacts.topFrames == ["Kit + 0x3b87", "Tool + 0x3e64"])
        #expect(textFacts.groupID != nil && textFacts.groupID == ipsFacts.groupID)
        #expect(textFacts.missing.map(\.name) == ipsFacts.missing.map(\.name))
    }

    /// Nothing to symbolicate: the report comes back as it was, Binary Images line included.
    @Test func theTextIsWrittenBackAsItWas() throws {
        #expect(try Self.process(Self.text).output == Array(Self.text.utf8))
    }

    /// Reports before macOS 12 call the image by its bundle identifier in frame lines as well.
    @Test func aBundleIDTheFramesUseStaysTheName() throws {
        let older = Self.text.replacing("0   Kit                      ", with: "0   jp.example.Kit           ")
        #expect(older != Self.text)
        let report = try ReportParser.parse(Array(older.utf8))
        #expect(report.images.map(\.name) == ["jp.example.Kit", "Tool"])
        #expect(report.backtraces.first?.frames.map(\.imageIndex) == [0, 1])
    }
}
