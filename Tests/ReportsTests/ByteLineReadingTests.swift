// The readings of a text report's lines that work on bytes where they once made a String of the
// line: a thread section's header, the Binary Images header, a frame line's tokens up to its
// address and the image names frames share. Each is checked against a plain reference (the
// String reading, the token array) on random lines built from the pieces real lines hold.

import SymbolicateModel
import TestSupport
import Testing

@testable import Reports

@Suite struct ByteLineReadingTests {
    private static func pick<T>(_ choices: [T], _ random: inout SplitMix64) -> T {
        choices[Int(random.next() % UInt64(choices.count))]
    }

    /// A line made of `count` pieces of `pieces`, each followed by one of `gaps`.
    private static func line(_ pieces: [String], _ gaps: [String], count: Int, _ random: inout SplitMix64) -> String {
        (0..<count).map { _ in pick(pieces, &random) + pick(gaps, &random) }.joined()
    }

    @Test func threadHeadersReadAsTheirStringIs() {
        var random = SplitMix64(seed: 0x7EAD)
        let pieces = [
            "Thread ", "Thread", "0", "12", "12345678", "1234567", " name:", " Crashed", ":", "::", " ", "\t", "x",
            "Dispatch queue:", " com.apple.main-thread", "\u{A0}", "é", "Crashed", "name", "9",
        ]
        for _ in 0..<4000 {
            let text = "Thread " + Self.line(pieces, [""], count: Int(random.next() % 6), &random)
            let bytes = Array(text.utf8)
            let trimmed = ByteText.trim(bytes, 0..<bytes.count)
            let expected = TextReportParser.threadHeader(ByteText.string(bytes, trimmed)).map { "\($0)" }
            let read = TextReportParser.threadHeader(bytes, trimmed).map { "\($0)" }
            #expect(read == expected, "\(text.debugDescription)")
        }
    }

    @Test func binaryImagesHeadersReadAsTheirStringIs() {
        var random = SplitMix64(seed: 0xB1A5)
        let pieces = [
            "Binary Images", " ", ":", "(", ")", "dpkg", "Other", "\u{A0}", "é", String(repeating: "w", count: 36),
        ]
        for _ in 0..<4000 {
            let text = Self.line(pieces, [""], count: 1 + Int(random.next() % 6), &random)
            let bytes = Array(text.utf8)
            let trimmed = ByteText.trim(bytes, 0..<bytes.count)
            let expected = TextReportParser.isBinaryImagesHeader(ByteText.string(bytes, trimmed))
            #expect(TextReportParser.isBinaryImagesHeader(bytes, trimmed) == expected, "\(text.debugDescription)")
        }
    }

    /// The frame a line holds as the token array read it: the number first, the address the
    /// first `0x` token after the image name's first token among the first 48 (the second
    /// token when the line has only two), the image name the tokens between.
    private static func referenceFrame(_ bytes: [UInt8], _ line: Range<Int>) -> (Int, String?, UInt64, Int)? {
        let tokens = ByteText.tokens(bytes, line, limit: FrameLine.maxLeadingTokens)
        guard tokens.count >= 2, let number = ByteText.decimal(bytes, tokens[0]), number < FrameLine.maxNumber
        else { return nil }
        var k = 1
        while k < tokens.count {
            if k >= 2 || tokens.count == 2, let address = ByteText.hexAddress(bytes, tokens[k]) {
                let name = k >= 2 ? ByteText.string(bytes, tokens[1].lowerBound..<tokens[k - 1].upperBound) : nil
                var column = tokens[k].upperBound
                while case let w = ByteText.spaceWidth(bytes, column, line.upperBound), w > 0 { column += w }
                return (Int(number), name, address, column)
            }
            k += 1
        }
        return nil
    }

    @Test func frameLinesReadAsTheTokenArrayDid() {
        var random = SplitMix64(seed: 0xF4A3)
        let pieces = [
            "0", "12", "1000000", "0x1a2b", "0x", "0xZZ", "0x1030a0000", "+", "16556", "HoldKit", "Core Data",
            "libsystem_kernel.dylib", "???", "<redacted>", "(", ")", "é", "-[A b:]", "\u{A0}",
        ]
        // Apple's padding too: runs of more than eight spaces, a tab between them.
        let gaps = [" ", "  ", "\t", "\u{A0}", "  \t ", String(repeating: " ", count: 19), "        \t       "]
        var names = FrameLine.Names()
        for round in 0..<6000 {
            // Now and then a line of more tokens than are looked at.
            let count = round % 500 == 0 ? 60 : 1 + Int(random.next() % 8)
            let text = Self.line(pieces, gaps, count: count, &random)
            let bytes = Array(text.utf8)
            let line = 0..<bytes.count
            let expected = Self.referenceFrame(bytes, line)
            let frame = FrameLine.parse(bytes, line)
            let shared = FrameLine.parse(bytes, line, names: &names)
            #expect(frame?.number == expected?.0, "\(text.debugDescription)")
            #expect(frame?.imageName == expected?.1, "\(text.debugDescription)")
            #expect(frame?.address == expected?.2, "\(text.debugDescription)")
            #expect(frame?.symbolColumn?.lowerBound == expected?.3, "\(text.debugDescription)")
            #expect(shared == frame, "\(text.debugDescription)")
        }
    }

    /// The columns a line takes as fold counts them, a byte at a time: a tab to the next
    /// multiple of 8, a CR none, any other byte one.
    @Test func columnsCountAsFoldDoes() {
        var random = SplitMix64(seed: 0xC01)
        let pieces = ["\t", "\r", "a", "abcdefgh", "  ", "é", "0x1030a40ac"]
        for _ in 0..<4000 {
            let bytes = Array(Self.line(pieces, [""], count: Int(random.next() % 12), &random).utf8)
            var expected = 0
            for b in bytes {
                if b == 0x09 { expected = (expected / 8 + 1) * 8 } else if b != 0x0D { expected += 1 }
            }
            #expect(LineWrap.columns(bytes, 0..<bytes.count) == expected, "\(bytes)")
        }
    }

    /// The pieces a symbol column is cut into, read from bytes as the standard library reads
    /// their Strings: a line number (`Int`), an offset (`UInt64`), a `0x` address fitting 64
    /// bits, and whether the text in the last brackets names a file (the part before its first
    /// colon, as `split` finds it, holds a dot or is `<...>`).
    @Test func symbolColumnPiecesReadAsTheirStringsAre() {
        var random = SplitMix64(seed: 0x5C01)
        let digits = ["0", "1", "9", "12", "+", "-", " ", "a", "f", "F", "x", "00000000", "18446744073709551615", "é"]
        let fileBits = [":", "::", ".", "a", "<", ">", "(", " + ", "in ", "File.m", "12", " "]
        for _ in 0..<6000 {
            let text = Self.line(digits, [""], count: Int(random.next() % 5), &random)
            let bytes = Array(text.utf8)[...]
            #expect(FrameLine.integer(bytes) == Int(text), "\(text.debugDescription)")
            if !text.hasPrefix("+"), !text.hasPrefix("-") {
                #expect(FrameLine.unsigned(bytes) == UInt64(text), "\(text.debugDescription)")
            }
            let word = Array(("0x" + text).utf8)[...]
            #expect(FrameLine.isHexAddress(word) == (UInt64(text, radix: 16) != nil), "0x\(text.debugDescription)")

            let file = Self.line(fileBits, [""], count: Int(random.next() % 6), &random)
            let fileBytes = Array(file.utf8)[...]
            let name = fileBytes.split(separator: UInt8(ascii: ":")).first ?? fileBytes
            let expected =
                !fileBytes.isEmpty && !file.contains("(") && !file.contains(" + ") && !file.hasPrefix("in ")
                && ((name.first == UInt8(ascii: "<") && name.last == UInt8(ascii: ">") && name.count > 2)
                    || (name.contains(UInt8(ascii: ".")) && name.first != UInt8(ascii: ".")))
            #expect(FrameLine.looksLikeFile(fileBytes) == expected, "\(file.debugDescription)")
        }
    }

    @Test func lastTokensAreTheTokenArraysLast() {
        var random = SplitMix64(seed: 0x1A57)
        let pieces = ["a", "bc", " ", "\t", "\u{A0}", "\u{C2}", "é", "(x)", "         ", "        \u{A0}"]
        for _ in 0..<4000 {
            let bytes = Array(Self.line(pieces, [""], count: Int(random.next() % 9), &random).utf8)
            let lower = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
            let range = lower..<bytes.count
            #expect(ByteText.lastToken(bytes, range) == ByteText.tokens(bytes, range).last, "\(bytes)")
        }
    }

    /// The sniffers' line openings found over the lines the parser has are those found by
    /// scanning for line breaks: under every line ending, a byte order mark, margins.
    @Test func lineOpeningsFromKnownLinesAreTheScannedOnes() {
        var random = SplitMix64(seed: 0x0BE7)
        let pieces =
            FormatSniffer.LineOpenings.asked + [
                "\n", "\r", "\r\n", "\r\r\n", " ", "\t", "> ", "\u{A0}", "x", "Thread 0:", "0 App 0x1",
            ]
        for _ in 0..<3000 {
            var text = Self.line(pieces, [""], count: Int(random.next() % 14), &random)
            if random.next() % 8 == 0 { text = "\u{FEFF}" + text }
            let bytes = Array(text.utf8)
            let scanned = FormatSniffer.LineOpenings(bytes)
            let known = FormatSniffer.LineOpenings(bytes, lines: ByteText.lines(bytes))
            for opening in FormatSniffer.LineOpenings.asked {
                #expect(scanned.contains(opening) == known.contains(opening), "\(opening) in \(text.debugDescription)")
            }
        }
    }

    @Test func framesNamingOneImageShareItsName() {
        let text = """
            0   libsystem_kernel.dylib        \t       0x1030a40ac 0x1030a0000 + 16556
            1   Core Data                     \t       0x1030a414c 0x1030a0000 + 16716
            2   libsystem_kernel.dylib        \t       0x1030a4214 0x1030a0000 + 16916
            3   libsystem_kernel.dyli         \t       0x1030a4214 0x1030a0000 + 16916
            """
        let bytes = Array(text.utf8)
        var names = FrameLine.Names()
        let frames = ByteText.lines(bytes).compactMap { FrameLine.parse(bytes, $0.range, names: &names) }
        #expect(
            frames.map(\.imageName) == [
                "libsystem_kernel.dylib", "Core Data", "libsystem_kernel.dylib", "libsystem_kernel.dyli",
            ])
        // The second libsystem_kernel frame holds the first one's String (too long to be stored
        // inline), not a copy of it.
        let first = frames[0].imageName!.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        let third = frames[2].imageName!.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        #expect(first != nil && first == third)
    }
}
