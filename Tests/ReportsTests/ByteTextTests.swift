// The byte-level searches the text parsers share: a word's first and last place within a range,
// the blank run after a JSON header, and the bracket that balances one just outside a range.
// Each is checked against a plain reference on random inputs and at the edges.

import TestSupport
import Testing

@testable import Reports

@Suite struct ByteTextTests {
    /// The bracket balancing a `)` just past the end: walking back, a stack of closes.
    private static func referenceOpen(_ s: [UInt8]) -> Int? {
        var pending = 1
        for i in s.indices.reversed() {
            if s[i] == UInt8(ascii: ")") { pending += 1 }
            if s[i] == UInt8(ascii: "("), pending > 0 {
                pending -= 1
                if pending == 0 { return i }
            }
        }
        return nil
    }

    /// The reverse of `referenceOpen`: the `)` closing a `(` just before the start.
    private static func referenceClose(_ s: [UInt8]) -> Int? {
        let mirrored = s.reversed().map {
            $0 == UInt8(ascii: "(") ? UInt8(ascii: ")") : $0 == UInt8(ascii: ")") ? UInt8(ascii: "(") : $0
        }
        return referenceOpen(mirrored).map { s.count - 1 - $0 }
    }

    @Test func balancingBracketsAgreeWithAStack() {
        var random = SplitMix64(seed: 0xB2AC)
        let alphabet: [UInt8] = Array("(()) a".utf8)
        for _ in 0..<2000 {
            let count = Int(random.next() % 12)
            let text = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let lower = count == 0 ? 0 : Int(random.next() % UInt64(count + 1))
            let slice = text[lower...]
            let open = Self.referenceOpen(Array(slice)).map { $0 + lower }
            let close = Self.referenceClose(Array(slice)).map { $0 + lower }
            #expect(
                slice.lastUnbalanced(UInt8(ascii: "("), closedBy: UInt8(ascii: ")")) == open, "\(text) from \(lower)")
            #expect(
                slice.firstUnbalanced(UInt8(ascii: ")"), openedBy: UInt8(ascii: "(")) == close, "\(text) from \(lower)")
        }
    }

    @Test func balancingBracketsInSymbols() {
        let symbol: Substring = "closure #1 (Swift.Int) -> () in Foo.bar(x: (Int, Int)) (File.swift:12"
        let open = symbol.lastUnbalanced("(", closedBy: ")")
        #expect(open.map { String(symbol[$0...]) } == "(File.swift:12")
        let image = Array("Foundation (x86_64) (beta)) + 12".utf8)
        #expect(image.firstUnbalanced(UInt8(ascii: ")"), openedBy: UInt8(ascii: "(")) == 26)
        #expect(Substring("no brackets").lastUnbalanced("(", closedBy: ")") == nil)
        #expect([UInt8]().firstUnbalanced(0x29, openedBy: 0x28) == nil)
    }

    /// Lines as a byte-at-a-time reference splits them: at LF, at CRs followed by an LF (one
    /// ending), at a lone CR; a byte order mark at the start is no part of the first line.
    private static func referenceLines(_ b: [UInt8], from start: Int) -> [TextLine] {
        var result: [TextLine] = []
        var lineStart = min(max(start, ByteText.byteOrderMarkLength(b)), b.count)
        var i = lineStart
        while i < b.count {
            if b[i] == 0x0A {
                result.append(TextLine(range: lineStart..<i, end: i + 1))
                i += 1
                lineStart = i
            } else if b[i] == 0x0D {
                var j = i
                while j < b.count, b[j] == 0x0D { j += 1 }
                let next = j < b.count && b[j] == 0x0A ? j + 1 : i + 1
                result.append(TextLine(range: lineStart..<i, end: next))
                i = next
                lineStart = i
            } else {
                i += 1
            }
        }
        if lineStart < b.count { result.append(TextLine(range: lineStart..<b.count, end: b.count)) }
        return result
    }

    @Test func linesAgreeWithAByteAtATimeSplit() {
        var random = SplitMix64(seed: 0x11E5)
        let alphabet: [UInt8] = [0x0A, 0x0D, 0x0D, 0x61, 0x20, 0x09, 0xEF, 0xBB, 0xBF]
        for round in 0..<3000 {
            // Long runs without a break too, so that the searches cross many bytes.
            let count = Int(random.next() % (round % 10 == 0 ? 300 : 24))
            let text = (0..<count).map { _ -> UInt8 in
                random.next() % 5 == 0 ? alphabet[Int(random.next() % UInt64(alphabet.count))] : 0x78
            }
            let start = Int(random.next() % UInt64(count + 2))
            let got = ByteText.lines(text, from: start)
            let want = Self.referenceLines(text, from: start)
            #expect(got.map(\.range) == want.map(\.range), "\(text) from \(start)")
            #expect(got.map(\.end) == want.map(\.end), "\(text) from \(start)")
        }
    }

    /// The binary check reads eight bytes at a time; a byte at a time, it finds the same NUL and
    /// counts the same control bytes, wherever they fall in a word.
    @Test func binaryCheckAgreesWithAByteAtATimeScan() {
        func reference(_ b: [UInt8]) -> String? {
            var control = 0
            for (i, c) in b.prefix(FormatSniffer.window).enumerated() where c < 0x20 {
                if c == 0 { return "NUL at \(i)" }
                if c < 0x09 || (c > 0x0D && c != 0x1B) { control += 1 }
            }
            return control * 50 > min(b.count, FormatSniffer.window) ? "control" : nil
        }
        func found(_ b: [UInt8]) -> String? {
            guard let error = FormatSniffer.binaryRefusal(b) else { return nil }
            if let at = error.message.range(of: "offset ") {
                return "NUL at " + error.message[at.upperBound...].dropLast()
            }
            return "control"
        }
        var random = SplitMix64(seed: 0xB1A2)
        let unusual: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1B, 0x1F, 0x20, 0x7F, 0x80, 0xA0, 0xC2, 0xFF]
        for _ in 0..<3000 {
            let count = Int(random.next() % 200)
            let rate = 1 + random.next() % 60
            let bytes = (0..<count).map { _ -> UInt8 in
                random.next() % rate == 0 ? unusual[Int(random.next() % UInt64(unusual.count))] : 0x61
            }
            #expect(found(bytes) == reference(bytes), "\(bytes)")
        }
    }

    @Test func lineScansFindPrefixesUnderEveryLineEnding() {
        for ending in ["\n", "\r\n", "\r", "\r\r\n"] {
            let text = Array(
                ["noise", "  > Data Source: Microstackshots", "", "\tSpindump", "last"]
                    .joined(separator: ending).utf8)
            #expect(FormatSniffer.hasLine(text, startingWith: "Spindump"))
            #expect(FormatSniffer.hasLine(text, startingWith: "last"))
            #expect(FormatSniffer.hasLine(text, startingWith: "Data Source:", containing: "Microstackshots"))
            #expect(!FormatSniffer.hasLine(text, startingWith: "Data Source:", containing: "Spindump"))
            #expect(!FormatSniffer.hasLine(text, startingWith: "Microstackshots"))
            #expect(
                FormatSniffer.linePrefixes(text, among: ["last", "noise", "Spin", "oise"]) == ["last", "noise", "Spin"])
        }
    }

    @Test func wordsAreFoundWithinTheRangeOnly() {
        let bytes = Array("ab [0x1] cd [0x2] ef".utf8)
        #expect(ByteText.firstRange(of: " [0x", in: bytes, 0..<bytes.count) == 2..<6)
        #expect(ByteText.lastRange(of: " [0x", in: bytes, 0..<bytes.count) == 11..<15)
        #expect(ByteText.lastRange(of: " [0x", in: bytes, 0..<14) == 2..<6)
        #expect(ByteText.firstRange(of: " [0x", in: bytes, 3..<bytes.count) == 11..<15)
        #expect(ByteText.firstRange(of: " [0x", in: bytes, 3..<14) == nil)
        #expect(ByteText.firstRange(of: "", in: bytes, 0..<bytes.count) == nil)
        #expect(ByteText.lastRange(of: "ab [0x1] cd [0x2] ef!", in: bytes, 0..<bytes.count) == nil)
        var random = SplitMix64(seed: 0x5EA2)
        for _ in 0..<500 {
            let text = (0..<Int(random.next() % 16)).map { _ in UInt8(ascii: random.next() % 2 == 0 ? "a" : "b") }
            let lower = Int(random.next() % UInt64(text.count + 1))
            let upper = lower + Int(random.next() % UInt64(text.count - lower + 1))
            let needle = random.next() % 2 == 0 ? "ab" : "aba"
            let n = Array(needle.utf8)
            let starts = Array(lower..<upper).filter { $0 + n.count <= upper && Array(text[$0..<($0 + n.count)]) == n }
            #expect(ByteText.firstRange(of: needle, in: text, lower..<upper)?.lowerBound == starts.first)
            #expect(ByteText.lastRange(of: needle, in: text, lower..<upper)?.lowerBound == starts.last)
        }
    }

    @Test func blankRunsIncludeNoBreakSpacesAndLineEnds() {
        let bytes = Array(" \t\u{A0}\r\n\u{A0}{".utf8)
        #expect(ByteText.skipBlank(bytes, from: 0) == bytes.count - 1)
        #expect(ByteText.skipBlank(bytes, from: bytes.count - 1) == bytes.count - 1)
        #expect(ByteText.skipBlank(Array(" \n ".utf8), from: 0) == 3)
        // A lone A0 byte is not a no-break space: it ends the run.
        #expect(ByteText.skipBlank([0x20, 0xA0, 0x7B], from: 0) == 1)
    }
}
