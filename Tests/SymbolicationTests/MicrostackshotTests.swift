// Microstackshot resource reports (`Event: cpu usage`) over the Samples
// (Samples/diagnostics/HoldApp-cpu-resource.txt): every sample line is a frame, leaves are pcs and
// inner nodes return addresses (the heaviest stack is one chain: only its last line is a pc),
// HoldApp / HoldKit frames match llvm-symbolizer, and the output replaces `???` in place, keeping
// each line's indentation, count and `(Image + offset) [address]` part.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

enum ResourceReport {
    static let name = "HoldApp-cpu-resource.txt"

    static func bytes() throws -> [UInt8] { try Diagnostics.bytes(name) }

    static func process(_ bytes: [UInt8], format: OutputFormat? = nil) throws -> (ProcessedReport, SymbolPathLocator) {
        let locator = try SymbolPathLocator(paths: [Paths.samples + "/build"])
        return (try SymbolicationService(locator: locator).process(bytes, format: format), locator)
    }

    /// The sample lines of the file in order, with whether each is a pc, read with a regex
    /// (independent of the parser): a leaf of its tree, or the last line of the heaviest stack.
    static func samples(_ text: String) throws -> [(line: String, isPC: Bool)] {
        let pattern = try NSRegularExpression(pattern: #"^( *)\d+  .+ \(.+ \+ \d+\) \[0x[0-9a-f]+\]$"#)
        let lines = text.components(separatedBy: "\n")
        var out: [(line: String, isPC: Bool)] = []
        var inChain = false
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("Heaviest stack") { inChain = true }
            if line.isEmpty { inChain = false }
            let range = NSRange(line.startIndex..., in: line)
            guard let match = pattern.firstMatch(in: line, range: range) else { continue }
            let indent = match.range(at: 1).length
            let next = i + 1 < lines.count ? lines[i + 1] : ""
            let nextMatch = pattern.firstMatch(in: next, range: NSRange(next.startIndex..., in: next))
            let nextIndent = nextMatch?.range(at: 1).length
            let isPC = inChain ? nextMatch == nil : (nextIndent.map { $0 <= indent } ?? true)
            out.append((line, isPC))
        }
        return out
    }
}

@Suite(.enabled(if: Diagnostics.available, "Samples/diagnostics is absent (run Samples/generate.sh)"))
struct MicrostackshotTests {
    @Test(.needsReferee)
    func everySampleLineIsAFrameUnderTheTreeRules() throws {
        let bytes = try ResourceReport.bytes()
        let (processed, locator) = try ResourceReport.process(bytes)
        #expect(processed.report.format == .microstackshot)
        let truth = try ResourceReport.samples(String(decoding: bytes, as: UTF8.self))
        let frames = processed.report.backtraces.flatMap(\.frames)
        #expect(frames.count == truth.count)
        #expect(processed.outcome.totalFrames == truth.count)
        for (frame, expected) in zip(frames, truth) {
            #expect(frame.isReturnAddress == !expected.isPC, "\(expected.line)")
            #expect(expected.line.hasSuffix("[0x" + String(frame.address, radix: 16) + "]"))
        }
        let checked = try SymbolicationCheck.compare(processed, locator: locator)
        #expect(checked >= 15, "only \(checked) frames checked")
        let images = processed.report.images.map(\.name)
        #expect(images.contains("HoldApp") && images.contains("HoldKit"))
        #expect(!processed.outcome.isComplete, "system images without symbols hold it back")
    }

    @Test func questionMarksAreReplacedInPlace() throws {
        let bytes = try ResourceReport.bytes()
        let (processed, _) = try ResourceReport.process(bytes)
        let output = String(decoding: processed.output, as: UTF8.self).components(separatedBy: "\n")
        let original = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n")
        // Every original line is in the output, in order, or was a `???` line now named.
        var k = 0
        var named = 0
        for line in original {
            while k < output.count, output[k] != line, !Self.sameLineNamed(line, output[k]) { k += 1 }
            #expect(k < output.count, "lost: \(line)")
            if k < output.count, output[k] != line { named += 1 }
            k += 1
        }
        #expect(named >= 15)
        #expect(
            output.contains {
                $0.hasPrefix("    7  main + 40 (AppDelegate.m:") && $0.hasSuffix(" (HoldApp + 17504) [0x102bc8460]")
            })
        // An inlined call chain: every level keeps the line's count and tail, and the levels read
        // callers first like the tree around them: the function the code is in, then down to the
        // innermost inlined one.
        let inline = output.filter {
            $0.hasSuffix("(HoldKit + 16556) [0x1030a40ac]") && $0.hasPrefix("                      7  ")
        }
        #expect(inline.count == 4)
        #expect(inline.last?.contains("hk_rotate (HKInline.h:") == true)
        let chain = try #require(
            processed.outcome.results.first { id, _ in
                processed.report.backtraces[id.backtrace].frames[id.frame].address == 0x1_030a_40ac
            }?.value.frames)
        #expect(
            inline.map { $0.dropFirst(25).prefix { $0 != " " } }
                == chain.reversed().map { $0.symbol.prefix { $0 != " " } })
    }

    /// A file of mixed line endings (every third line CR LF, the rest LF): each inserted inline
    /// line ends as the frame line it belongs to does, and every other line keeps its own ending.
    @Test func insertedLinesTakeTheEndingOfTheirOwnLine() throws {
        // Lines as bytes, split at LF, each keeping a CR before it (a String would read CR LF as
        // one character).
        func lines(_ bytes: [UInt8]) -> [[UInt8]] {
            bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        }
        let original = lines(try ResourceReport.bytes())
        var mixed: [UInt8] = []
        for (i, line) in original.enumerated() {
            mixed += line
            if i < original.count - 1 { mixed += i % 3 == 0 ? [0x0D, 0x0A] : [0x0A] }
        }
        let (processed, _) = try ResourceReport.process(mixed)
        let out = lines(processed.output)
        let tail = Array("(HoldKit + 16556) [0x1030a40ac]".utf8)
        func hasTail(_ line: [UInt8]) -> Bool {
            let body = line.last == 0x0D ? Array(line.dropLast()) : line
            return body.count >= tail.count && Array(body.suffix(tail.count)) == tail
        }
        // Runs of lines with the inlined frame's tail: the frame's line and its inline copies.
        var runs: [[[UInt8]]] = []
        var previous = false
        for line in out {
            let mine = hasTail(line)
            if mine { if previous { runs[runs.count - 1].append(line) } else { runs.append([line]) } }
            previous = mine
        }
        #expect(runs.contains { $0.count == 4 }, "the inline chain of the tree")
        for run in runs {
            #expect(
                Set(run.map { $0.last == 0x0D }).count == 1,
                "a run of mixed endings: \(run.map { String(decoding: $0, as: UTF8.self).debugDescription })")
        }
        let originalCR = original.indices.filter { $0 % 3 == 0 && $0 < original.count - 1 }.count
        let added = runs.reduce(0) { $0 + ($1.first?.last == 0x0D ? $1.count - 1 : 0) }
        #expect(out.filter { $0.last == 0x0D }.count == originalCR + added)
    }

    /// One stray byte on a sample line (in its count, its symbol or its address) changes no other
    /// line's answer: every line of the output without the stray byte is a line of the intact
    /// file's output (before, a damaged line in the heaviest stack ended its chain, and the frames
    /// after it were looked up as pcs: `AppDelegate.m:39` read `:40`).
    @Test func aStrayByteOnOneLineChangesNoOtherLine() throws {
        let bytes = try ResourceReport.bytes()
        let (intact, _) = try ResourceReport.process(bytes)
        // Lines compared with runs of spaces as one: the damaged line's own rewrite may lose a
        // space where the stray byte stood; a changed name, file or line is still seen.
        func squeezed(_ line: some Collection<UInt8>) -> [UInt8] {
            var out: [UInt8] = []
            for byte in line where !(byte == 0x20 && out.last == 0x20) { out.append(byte) }
            return out
        }
        let good = Set(intact.output.split(separator: 0x0A, omittingEmptySubsequences: false).map(squeezed))
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        let samples = lines.indices.filter { i in
            let text = String(decoding: lines[i], as: UTF8.self)
            return text.hasPrefix("  ") && text.hasSuffix("]") && text.contains(" + ")
        }
        #expect(samples.count >= 20)
        var checked = 0
        for i in samples {
            let line = lines[i]
            for position in [2, 6, line.count / 2, line.count - 3] where position < line.count {
                var damaged = line
                damaged.insert(0x01, at: position)
                lines[i] = damaged
                let (processed, _) = try ResourceReport.process(Array(lines.joined(separator: [0x0A])))
                lines[i] = line
                for out in processed.output.split(separator: 0x0A, omittingEmptySubsequences: false)
                where !out.contains(0x01) {
                    #expect(
                        good.contains(squeezed(out)),
                        "line \(i + 1) damaged at \(position): \(String(decoding: out, as: UTF8.self))")
                }
                checked += 1
            }
        }
        #expect(checked >= 80)
    }

    /// `line` with its `???` replaced by a symbol: same indentation and count, same tail.
    static func sameLineNamed(_ line: String, _ candidate: String) -> Bool {
        guard let q = line.range(of: "??? ") else { return false }
        let head = String(line[..<q.lowerBound])
        let tail = String(line[q.upperBound...])
        return candidate.hasPrefix(head) && candidate.hasSuffix(" " + tail) && !candidate.hasPrefix(head + "???")
    }

    @Test func jsonHeaderAndUUIDNamedImages() throws {
        let header =
            #"{"app_name":"HoldApp","app_version":"1.0","bug_type":"202","os_version":"iPhone OS 16.1 (20B82)","name":"HoldApp"}"#
        let body = """
            Date/Time:        2024-03-02 10:15:22.000 +0000
            OS Version:       iPhone OS 16.1 (Build 20B82)
            Architecture:     arm64
            Data Source:      Microstackshots

            Event:            cpu usage
            Action taken:     Process killed

            Powerstats for:   HoldApp [4127]
              10  ??? (<4C4C4421-5555-3144-A186-2F41CD93DD95> + 17504) [0x102bc8460]
                10  ??? (<4C4C44AA-5555-3144-A1C9-3105F2834F44> + 16556) [0x1030a40ac]
                5  ??? (<4C4C44AA-5555-3144-A1C9-3105F2834F44> + 99999999) [0x1090a40ac]

            """
        let bytes = Array((header + "\n" + body).utf8)
        let (processed, _) = try ResourceReport.process(bytes)
        #expect(processed.report.format == .microstackshot)
        #expect(processed.report.jsonHeader == header)
        let statuses = (0..<3).map { processed.outcome.results[FrameID(backtrace: 0, frame: $0)]?.status }
        #expect(statuses == [.symbolicated, .symbolicated, .missingSymbol])
        let text = String(decoding: processed.output, as: UTF8.self)
        #expect(text.hasPrefix(header + "\n"))
        #expect(text.contains("  10  main + 40 (AppDelegate.m:"))
        #expect(text.contains(" (<4C4C44AA-5555-3144-A1C9-3105F2834F44> + 16556) [0x1030a40ac]"))
        // `inspect` describes it.
        #expect(ReportInspector.text(processed.report).contains("format: microstackshot"))
    }
}
