// Real shapes that used to parse badly, made from the Samples: binary images listed under
// `Binary Images (dpkg):` and `Binary Images (Other):` (jailbroken devices), a report pasted
// with every line indented (quoted in a mail or an issue), between a wiki's code tags, with
// other line endings than LF, and saved with a UTF-8 byte order mark (Windows editors). Each
// must read as fully as the plain report and symbolicate to the same lines, indentation, line
// endings and byte order mark kept.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import Testing

@Suite struct PastedShapesTests {
    static let name = "HoldApp-ios-arm64-dwarf5.crash"

    /// A report whose Last Exception Backtrace is a parenthesized list of addresses, which the
    /// output opens up into frame lines.
    static let parenthesizedName = "HoldApp-ios-arm64-dwarf4.crash"

    static func plain(_ name: String = name) throws -> String {
        try String(contentsOfFile: Paths.samples + "/reports/" + name, encoding: .utf8)
    }

    static func process(_ text: String) throws -> ProcessedReport {
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        return try SymbolicationService(locator: locator).process(Array(text.utf8), format: nil)
    }

    @Test(arguments: [name, parenthesizedName], ["    ", "\t", " \t  "])
    func everyLineIndented(_ name: String, _ indent: String) throws {
        let plain = try Self.plain(name)
        func indented(_ s: String) -> String {
            s.components(separatedBy: "\n").map { $0.isEmpty ? $0 : indent + $0 }.joined(separator: "\n")
        }
        let expected = try Self.process(plain)
        let processed = try Self.process(indented(plain))
        #expect(processed.report.arch == expected.report.arch && processed.report.arch != nil)
        #expect(processed.report.fields == expected.report.fields)
        #expect(processed.report.images == expected.report.images)
        #expect(processed.report.frameCount == expected.report.frameCount)
        #expect(processed.outcome.symbolicatedFrames == expected.outcome.symbolicatedFrames)
        #expect(
            String(decoding: processed.output, as: UTF8.self)
                == indented(String(decoding: expected.output, as: UTF8.self)))
        // Symbolicated again, the indented output stays as it is: the inline level lines the first
        // run wrote are replaced whole, indentation included.
        let again = try Self.process(String(decoding: processed.output, as: UTF8.self))
        #expect(String(decoding: again.output, as: UTF8.self) == String(decoding: processed.output, as: UTF8.self))
    }

    /// A report quoted in a mail or a Markdown comment: `> ` before every line, `>` alone on
    /// its blank lines (one level, two, or spaced out as `> > `).
    @Test(arguments: [name, parenthesizedName], ["> ", ">> ", "> > "])
    func everyLineQuoted(_ name: String, _ mark: String) throws {
        let plain = try Self.plain(name)
        func quoted(_ s: String) -> String {
            let bare = String(mark.reversed().drop(while: { $0 == " " }).reversed())
            return s.components(separatedBy: "\n").map { $0.isEmpty ? bare : mark + $0 }.joined(separator: "\n")
        }
        let expected = try Self.process(plain)
        let processed = try Self.process(quoted(plain))
        #expect(processed.report.fields == expected.report.fields)
        #expect(processed.report.images == expected.report.images)
        #expect(processed.report.frameCount == expected.report.frameCount)
        #expect(processed.outcome.symbolicatedFrames == expected.outcome.symbolicatedFrames)
        #expect(processed.outcome.symbolicatedFrames > 0)
        #expect(
            String(decoding: processed.output, as: UTF8.self)
                == quoted(String(decoding: expected.output, as: UTF8.self)))
        let again = try Self.process(String(decoding: processed.output, as: UTF8.self))
        #expect(again.output == processed.output)
    }

    @Test func dpkgAndOtherBinaryImageSections() throws {
        let plain = try Self.plain()
        let expected = try Self.process(plain)
        // App images under `Binary Images:`, the rest split into the two jailbreak sections.
        var lines = plain.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "Binary Images:"))
        var end = start + 1
        while end < lines.count, !lines[end].isEmpty { end += 1 }
        let images = Array(lines[(start + 1)..<end])
        let apps = images.filter { $0.contains("/HoldApp.app/") }
        let others = images.filter { !$0.contains("/HoldApp.app/") }
        lines.replaceSubrange(
            start..<end,
            with: ["Binary Images:"] + apps + ["", "Binary Images (dpkg):"] + others.prefix(1) + [
                "", "Binary Images (Other):",
            ]
                + others.dropFirst())
        let processed = try Self.process(lines.joined(separator: "\n"))
        #expect(Set(processed.report.images.map(\.name)) == Set(expected.report.images.map(\.name)))
        #expect(processed.report.images.count == images.count)
        #expect(processed.outcome.symbolicatedFrames == expected.outcome.symbolicatedFrames)
        #expect(processed.outcome.symbolicatedFrames > 0)
        #expect(processed.outcome.missing.isEmpty)
    }

    /// Line endings other than LF: CRLF (Windows), a lone CR (classic Mac OS), and CR CR LF (a
    /// CRLF file converted to CRLF once more, as a second Windows conversion or a mail gateway
    /// does), which is one line ending, not a line and a blank one. The report reads as with LF,
    /// and its output is the LF output with each LF written as the document's ending.
    @Test(arguments: [name, parenthesizedName], ["\r\n", "\r", "\r\r\n"])
    func lineEndings(_ name: String, _ ending: String) throws {
        let plain = try Self.plain(name)
        func converted(_ bytes: [UInt8]) -> [UInt8] {
            bytes.flatMap { $0 == 0x0A ? Array(ending.utf8) : [$0] }
        }
        let expected = try Self.process(plain)
        let processed = try Self.process(String(decoding: converted(Array(plain.utf8)), as: UTF8.self))
        #expect(processed.report.fields == expected.report.fields)
        #expect(processed.report.images == expected.report.images)
        #expect(processed.report.frameCount == expected.report.frameCount)
        #expect(processed.outcome.symbolicatedFrames == expected.outcome.symbolicatedFrames)
        #expect(processed.outcome.symbolicatedFrames > 0)
        #expect(processed.output == converted(expected.output))
    }

    /// A report pasted into a wiki or forum between its code tags (Jira's `{code}` and
    /// `{noformat}`, BBCode's `[code]`): the tag is noise before a text report, not the start of
    /// a JSON document to refuse, and stays in the output as it was.
    @Test(arguments: [
        ("{code}", "{code}"), ("{code:none}", "{code}"), ("{noformat}", "{noformat}"), ("[code]", "[/code]"),
    ])
    func betweenCodeTags(_ open: String, _ close: String) throws {
        let plain = try Self.plain()
        let expected = try Self.process(plain)
        let processed = try Self.process(open + "\n" + plain + close + "\n")
        #expect(processed.report.fields == expected.report.fields)
        #expect(processed.report.frameCount == expected.report.frameCount)
        #expect(processed.outcome.symbolicatedFrames == expected.outcome.symbolicatedFrames)
        #expect(processed.outcome.symbolicatedFrames > 0)
        #expect(processed.output == Array((open + "\n").utf8) + expected.output + Array((close + "\n").utf8))
    }

    /// An `.ips` whose header was pretty-printed over several lines, as `jq . x.ips` prints it:
    /// the header is still the header, and the body after it is written back as without it.
    @Test func anIPSWithItsHeaderOverSeveralLines() throws {
        let plain = try Self.plain("HoldApp-ios-arm64-dwarf5.ips")
        let newline = try #require(plain.firstIndex(of: "\n"))
        let header = try JSONSerialization.jsonObject(with: Data(plain[..<newline].utf8))
        let pretty = String(
            decoding: try JSONSerialization.data(withJSONObject: header, options: [.prettyPrinted, .sortedKeys]),
            as: UTF8.self)
        #expect(pretty.contains("\n  \"bug_type\""))
        let expected = try Self.process(plain)
        let processed = try Self.process(pretty + plain[newline...])
        #expect(processed.report.format == .ips)
        #expect(processed.report.frameCount == expected.report.frameCount)
        #expect(processed.report.images == expected.report.images)
        #expect(processed.outcome.symbolicatedFrames == expected.outcome.symbolicatedFrames)
        #expect(processed.outcome.symbolicatedFrames > 0)
        let expectedBody = try #require(expected.output.firstIndex(of: 0x0A))
        #expect(processed.output == Array(pretty.utf8) + expected.output[expectedBody...])
    }

    /// A UTF-8 byte order mark before a text report, a JSON header + text report and an `.ips`:
    /// the report reads as without it (the first header field, the JSON header, the `.ips` body)
    /// and its output is the plain report's with the mark in front.
    @Test(arguments: ["HoldApp-ios-arm64-dwarf5.crash", "HoldApp-ios-arm64-dwarf5.ips", "header+text"])
    func byteOrderMark(_ shape: String) throws {
        var plain: String
        if shape == "header+text" {
            let header = #"{"app_name":"HoldApp","bug_type":"109","os_version":"iPhone OS 15.5 (19F77)"}"#
            plain = header + "\n" + (try Self.plain())
        } else {
            plain = try String(contentsOfFile: Paths.samples + "/reports/" + shape, encoding: .utf8)
        }
        let expected = try Self.process(plain)
        let processed = try Self.process("\u{FEFF}" + plain)
        #expect(processed.report.format == expected.report.format)
        #expect(processed.report.jsonHeader == expected.report.jsonHeader)
        #expect(processed.report.fields == expected.report.fields)
        #expect(processed.report.images == expected.report.images)
        #expect(processed.report.frameCount == expected.report.frameCount)
        #expect(processed.outcome.symbolicatedFrames == expected.outcome.symbolicatedFrames)
        #expect(processed.outcome.symbolicatedFrames > 0)
        #expect(processed.output == [0xEF, 0xBB, 0xBF] + expected.output)
    }
}
