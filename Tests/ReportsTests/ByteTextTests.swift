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
