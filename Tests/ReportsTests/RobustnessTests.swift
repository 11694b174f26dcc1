// Hostile-input tests: every prefix of real reports, bit-flipped copies, random binary and
// text, empty input, deep JSON nesting and a 10 MB report. Parsing either succeeds or throws a
// SymbolicateError; it never traps, and what parses also writes and renders without trapping.

import Foundation
import Reports
import SymbolicateModel
import TestSupport
import Testing

@Suite struct RobustnessTests {
    /// Parses, and when that works, writes with and without results and renders as text.
    static func exercise(_ bytes: [UInt8]) {
        do {
            let r = try ReportParser.parse(bytes)
            // Unchanged, unless it was read as line-wrapped: then as rejoined (and said so).
            #expect(ReportWriter.write(r, results: [:]) == (r.notes.isEmpty ? bytes : r.original))
            var results: [FrameID: FrameResult] = [:]
            for (b, bt) in r.backtraces.enumerated() {
                for f in bt.frames.indices {
                    results[FrameID(backtrace: b, frame: f)] = FrameResult(
                        status: .symbolicated,
                        frames: [
                            SymbolicatedFrame(symbol: "in", file: "I.swift", line: 1, isInline: true),
                            SymbolicatedFrame(symbol: "out", symbolOffset: 4, file: "O.swift", line: 2),
                        ])
                }
            }
            _ = ReportWriter.write(r, results: results)
            _ = ReportWriter.renderText(r, results: results)
            _ = ReportInspector.json(r)
            _ = ReportInspector.text(r)
        } catch let error as SymbolicateError {
            #expect(!error.message.isEmpty)
        } catch {
            Issue.record("unexpected error type \(error)")
        }
    }

    static var samples: [[UInt8]] {
        var list = [Array(Fixtures.textReport.utf8), Array(Fixtures.ipsReport.utf8)]
        if Repository.corpusPresent {
            for f in [
                "inket__MacSymbolicator/Resources/Crashes/ios-crash.ips", "zqqf16__SYM/SYMTests/AppleDemo.ips",
                "kstenerud__KSCrash/Example-Reports/NSException.txt",
            ] {
                if let b = try? Corpus.bytes(f) { list.append(b) }
            }
        }
        return list
    }

    @Test func everyPrefixInSteps() {
        for bytes in Self.samples {
            let step = max(1, bytes.count / 250)
            var n = 0
            while n <= bytes.count {
                Self.exercise(Array(bytes[0..<n]))
                n += step
            }
        }
    }

    @Test func bitFlips() {
        var rng = SplitMix64(seed: 42)
        for bytes in Self.samples {
            for _ in 0..<100 {
                var copy = bytes
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    let i = Int.random(in: 0..<copy.count, using: &rng)
                    copy[i] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                }
                Self.exercise(copy)
            }
        }
    }

    @Test func randomBinaryAndText() {
        var rng = SplitMix64(seed: 7)
        let alphabet = Array("0123456789abcdefx +-:(){}[]\"\\,\n\r\tThread Binary Images: Crashed bug_type".utf8)
        for _ in 0..<300 {
            let count = Int.random(in: 1...4096, using: &rng)
            Self.exercise((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) })
            Self.exercise((0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
        }
    }

    @Test func emptyAndBlankInputs() {
        for input in ["", "\n\n  \r\n", "\u{A0}"] {
            #expect(throws: SymbolicateError.self) { try ReportParser.parse(Array(input.utf8)) }
            do { _ = try ReportParser.parse(Array(input.utf8)) } catch let e as SymbolicateError {
                #expect(e.code == .badInput)
            } catch {}
        }
        do { _ = try ReportParser.parse([0, 1, 2, 3, 0xff]) } catch let e as SymbolicateError {
            #expect(e.code == .badInput && e.message.contains("binary"))
        } catch { Issue.record("wrong error") }
    }

    @Test func deepJSONNestingIsRefused() {
        let header = #"{"bug_type":"309"}"# + "\n"
        let deep = header + String(repeating: "[", count: 200_000)
        #expect(throws: SymbolicateError.self) { try ReportParser.parse(Array(deep.utf8)) }
        let deepObject = header + "{\"a\":" + String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: SymbolicateError.self) { try ReportParser.parse(Array(deepObject.utf8)) }
    }

    @Test func tenMegabyteReportsParseInLinearTime() throws {
        var text = "Incident Identifier: X\nCode Type: ARM-64\n\nThread 0 Crashed:\n"
        var n = 0
        while text.utf8.count < 10_000_000 {
            text +=
                "\(n)   My App                        \t       0x\(String(0x1_0000_0000 + n * 4, radix: 16)) 0x100000000 + \(n * 4)\n"
            n += 1
        }
        text += "\nBinary Images:\n"
        for i in 0..<2000 {
            text +=
                "0x\(String(0x2_0000_0000 + i * 0x10000, radix: 16)) - 0x\(String(0x2_0000_0000 + i * 0x10000 + 0xffff, radix: 16)) lib\(i) arm64  <\(String(repeating: "a", count: 32))> /usr/lib/lib\(i)\n"
        }
        text += "0x100000000 - 0x1ffffffff My App arm64  <82d13d98219e3040b62a07a297007a7c> /App/My App\n"
        let bytes = Array(text.utf8)
        let start = ContinuousClock.now
        let r = try ReportParser.parse(bytes)
        let elapsed = ContinuousClock.now - start
        #expect(r.frameCount == n)
        #expect(r.backtraces[0].frames.last?.imageIndex == 2000)
        #expect(elapsed < .seconds(30), "10 MB took \(elapsed)")
        // One huge line without line ends, and a huge JSON header line.
        let oneLine = Array(repeating: UInt8(ascii: "a"), count: 10_000_000)
        #expect(throws: SymbolicateError.self) { try ReportParser.parse(oneLine) }
        let hugeHeader = Array(
            ("{\"bug_type\":\"309\",\"x\":\"" + String(repeating: "y", count: 5_000_000) + "\"}\n{}").utf8)
        _ = try? ReportParser.parse(hugeHeader)
    }

    /// Found by fuzzing: a value the `.ips` holds as one string renders on one line. A line break
    /// inside one (here a capture time carrying a spindump's lines) becomes a space, so the text
    /// rendering of the report is still read as a crash report, not refused as a spindump.
    @Test func renderedValuesStayOnTheirLine() throws {
        let original = try String(
            contentsOfFile: Repository.samplesReports + "/HoldApp-ios-arm64-dwarf5.ips", encoding: .utf8)
        let incident = "\"incident\": \"31182743-5DF2-4628-8505-FBBFBCAFBB5F\",\n"
        let captureTime = "\"captureTime\": \"2026-11-02 09:41:07.5120 +0100\""
        #expect(original.contains(incident) && original.contains(captureTime))
        let ips = original.replacingOccurrences(of: incident, with: "").replacingOccurrences(
            of: captureTime, with: #""captureTime": "2026-11-02\nNum samples:      1000 (1-1000)\r\nHeaviest stack""#)
        let rendered = ReportWriter.renderText(try ReportParser.parse(Array(ips.utf8)), results: [:])
        let lines = Fixtures.lines(String(decoding: rendered, as: UTF8.self))
        #expect(lines.contains("Date/Time:           2026-11-02 Num samples:      1000 (1-1000) Heaviest stack"))
        #expect(rendered.filter { $0 == UInt8(ascii: "\r") }.count == 0)
        #expect(try ReportParser.parse(rendered).format == .text)
    }

    /// Found by fuzzing: what kind a document is must not hang on words inside a frame's symbol
    /// column, which symbolication replaces. A spindump-looking document whose only crash-report
    /// key sits inside a frame line is refused as before, not read as a crash report that stops
    /// parsing once symbolicated; keys at the start of a line, indented with U+00A0, still count.
    @Test func theKindIsReadFromWholeLines() throws {
        let frame = "0   HoldKit   \t0x1030a4044 0x1030a0000 + 16Incident Identifier: E64D8423\n"
        let spindumpish = "Heaviest stack for the target process:\n" + frame
        #expect {
            _ = try ReportParser.parse(Array(spindumpish.utf8))
        } throws: { error in
            (error as? SymbolicateError)?.message.contains("spindump") == true
        }
        let indented = "Heaviest stack\n\u{A0}\u{A0}Incident Identifier: E64D8423\nThread 0 Crashed:\n" + frame
        #expect(try ReportParser.parse(Array(indented.utf8)).format == .text)
        // The spindump's own keys count at the start of a line only, too: a header value that
        // mentions one (a rendered .ips's capture time holding a spindump's text) is not one.
        let mention = "Hardware Model:      iPhone14,2\nDate/Time:           2026-11-02 Num samples: 10\n\nThread 0:\n"
        #expect(try ReportParser.parse(Array((mention + frame).utf8)).format == .text)
    }

    /// Found by fuzzing: the words that make a document a resource report (`Heaviest stack`,
    /// `Microstackshots`, `Powerstats for:`) count only as whole lines, so words in a sample
    /// line's symbol column cannot make one that stops being a resource report once that column
    /// is rewritten.
    @Test(arguments: ["Heaviest stack", "Microstackshots", "Powerstats for: x"])
    func resourceReportWordsInASymbolColumnDoNotMakeTheKind(_ words: String) throws {
        let text = """
            Incident Identifier: 6A0D3C0E-1F0B-4C9E-8E1B-5E3C3A9F2D11
            Data Source:      Other

            Event:            cpu usage

              7  \(words) (HoldApp + 17220) [0x102bc8344]
                7  ??? (HoldApp + 16672) [0x102bc8120]

            Binary Images:
                   0x102bc4000 -        0x102bcbfff  HoldApp 1.0 (1)  <4C4C4421-5555-3144-A186-2F41CD93DD95>  /HoldApp

            """
        guard let report = try? ReportParser.parse(Array(text.utf8)) else { return }
        #expect(report.format != .microstackshot)
        var results: [FrameID: FrameResult] = [:]
        for (b, backtrace) in report.backtraces.enumerated() {
            for f in backtrace.frames.indices {
                results[FrameID(backtrace: b, frame: f)] = FrameResult(
                    status: .symbolicated, frames: [SymbolicatedFrame(symbol: "f\(f)", symbolOffset: 1)])
            }
        }
        let again = try ReportParser.parse(ReportWriter.write(report, results: results))
        #expect(again.format == report.format)
    }
}
