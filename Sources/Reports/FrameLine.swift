// FrameLine: parses one backtrace line of an Apple text report in any of the forms seen in the
// wild: `N  Image  0xADDR 0xBASE + OFFSET`, already symbolicated `N  Image  0xADDR symbol + off
// (File.m:12)`, KSCrash's `0xBASE + off (symbol + off)`, image names with spaces, `<redacted>`
// and `???`. It records where the symbol column starts so the writer can replace exactly that.
// Inside a backtrace, a line that opens with a frame number but does not parse is a frame that
// cannot be read: it is kept as a malformed frame, so one bad line never drops the frames after it.
// Lines that repeat a frame's number and address are the inline levels an earlier symbolication
// wrote: every reader of a backtrace's lines folds them into their frame with one rule (`fold`);
// sample trees, whose levels follow their node's line, fold theirs alike (SampleTree.folded).

import SymbolicateModel

/// What follows the address column of a frame line.
struct SymbolText: Sendable, Equatable {
    var symbol: String
    var offset: UInt64?
    var file: String?
    var line: Int?
}

enum FrameLine {
    /// Tokens examined when looking for the address column; image names are never longer.
    static let maxLeadingTokens = 48

    /// Frame numbers have at most this many digits; a longer number does not open a frame line.
    static let maxNumber: UInt64 = 1_000_000

    /// The frame a line inside a backtrace holds: the parsed frame, or, for a line that opens
    /// with a frame number (digits, then whitespace) but does not parse, a malformed frame with
    /// that number and the image name when one follows. Nil for a line that does not open with a
    /// frame number: the backtrace ends there. Parsers and writers walk backtraces with this one
    /// rule, so that they number the frames alike.
    static func read(_ bytes: [UInt8], _ line: Range<Int>) -> Frame? {
        var names = Names()
        return read(bytes, line, names: &names)
    }

    /// `read`, with the image names of the backtraces read so far in `names`: frames naming
    /// one image share one String.
    static func read(_ bytes: [UInt8], _ line: Range<Int>, names: inout Names) -> Frame? {
        parse(bytes, line, names: &names) ?? malformed(bytes, line)
    }

    /// The image names a report's frame lines repeat, each made into a String once (as
    /// `ByteText.string` reads it) and found again by its bytes: a report's frames name a few
    /// images over and over, and frames that share a name's String compare it at once.
    struct Names {
        static let size = 16
        /// Each name's bytes as the document had them, and its String.
        private var entries: [(bytes: [UInt8], name: String)] = []
        private var next = 0

        mutating func name(_ bytes: [UInt8], _ range: Range<Int>) -> String {
            for entry in entries where ByteText.equal(entry.bytes, bytes, range) { return entry.name }
            let name = ByteText.string(bytes, range)
            let entry = (Array(bytes[range.clamped(to: 0..<bytes.count)]), name)
            if entries.count < Self.size {
                entries.append(entry)
            } else {
                entries[next] = entry
                next = (next + 1) % Self.size
            }
            return name
        }
    }

    /// `frame`, read from the line that starts at `lineStart`, as the next frame of `frames` (the
    /// backtrace so far), whose last frame was read from the line right before, starting at
    /// `lastLineStart` (nil when the line before was no frame line). A line that repeats the
    /// number and address of that frame is the frame, and the frame before was an inline level an
    /// earlier symbolication wrote: it leaves `frames`, and its lines (with the levels before it)
    /// become this frame's `levelLines`, which a writer that symbolicates the frame replaces.
    static func fold(_ frame: consuming Frame, lineStart: Int, into frames: inout [Frame], lastLineStart: Int?)
        -> Frame
    {
        guard let previous = frames.last, let lastLineStart, !previous.isMalformed, !frame.isMalformed,
            previous.number == frame.number, previous.address == frame.address
        else { return frame }
        frames.removeLast()
        frame.levelLines = (previous.levelLines?.lowerBound ?? lastLineStart)..<lineStart
        return frame
    }

    /// The frames of a backtrace given as text on its own (an `.ips` `asiBacktraces` string):
    /// every line `read` takes, other lines skipped, inline levels folded into their frame;
    /// ranges point into `bytes`. The `.ips` parser and writer both read such a string with it,
    /// so that they number its frames alike.
    static func backtrace(_ bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var lastLineStart: Int? = nil
        for line in ByteText.lines(bytes) {
            guard let read = read(bytes, line.range) else {
                lastLineStart = nil
                continue
            }
            let frame = fold(read, lineStart: line.range.lowerBound, into: &frames, lastLineStart: lastLineStart)
            frames.append(frame)
            lastLineStart = line.range.lowerBound
        }
        return frames
    }

    /// The frame a line holds, or nil when it is not a frame line. `isReturnAddress` is left
    /// true; the caller decides by the frame's position.
    static func parse(_ bytes: [UInt8], _ line: Range<Int>) -> Frame? {
        var names = Names()
        return parse(bytes, line, names: &names)
    }

    /// `parse`, with image names shared through `names`. The tokens (runs of non-blanks) are
    /// read one at a time up to the address column: the frame number, the image name's, then
    /// the first `0x` token after at least one of them (the image name may hold spaces), among
    /// the first `maxLeadingTokens`; a line of just two tokens may have its address second.
    static func parse(_ bytes: [UInt8], _ line: Range<Int>, names: inout Names) -> Frame? {
        // The tokens up to the address and the column's shape, read in one pass over the buffer.
        typealias Scan = (number: UInt64, name: Range<Int>?, address: UInt64, columnStart: Int, isPlain: Bool)
        let scan: Scan? = bytes.withUnsafeBufferPointer { b in
            let end = min(line.upperBound, b.count)
            guard let first = ByteText.nextToken(b, line), let number = ByteText.decimal(b, first),
                number < maxNumber, let second = ByteText.nextToken(b, first.upperBound..<end)
            else { return nil }
            var addressToken = second
            let address: UInt64
            var name: Range<Int>? = nil
            if let value = ByteText.hexAddress(b, second), ByteText.nextToken(b, second.upperBound..<end) == nil {
                address = value
            } else {
                var last = second
                var k = 2
                var found: UInt64? = nil
                while k < maxLeadingTokens, let token = ByteText.nextToken(b, last.upperBound..<end) {
                    if let value = ByteText.hexAddress(b, token) {
                        found = value
                        addressToken = token
                        break
                    }
                    last = token
                    k += 1
                }
                guard let found else { return nil }
                address = found
                name = second.lowerBound..<last.upperBound
            }
            var columnStart = addressToken.upperBound
            while case let w = ByteText.spaceWidth(b, columnStart, end), w > 0 { columnStart += w }
            // The unsymbolicated `0xBASE + OFFSET` column needs no string work.
            var isPlain = false
            if let base = ByteText.nextToken(b, columnStart..<end), ByteText.hexAddress(b, base) != nil,
                let plus = ByteText.nextToken(b, base.upperBound..<end), plus.count == 1,
                b[plus.lowerBound] == UInt8(ascii: "+"),
                let offset = ByteText.nextToken(b, plus.upperBound..<end), ByteText.decimal(b, offset) != nil,
                ByteText.nextToken(b, offset.upperBound..<end) == nil
            {
                isPlain = true
            }
            return (number, name, address, columnStart, isPlain)
        }
        guard let scan else { return nil }
        let columnStart = scan.columnStart
        let imageName = scan.name.map { names.name(bytes, $0) }
        let (number, address) = (scan.number, scan.address)
        let column = columnStart..<line.upperBound
        var frame = Frame(
            number: Int(number), imageName: imageName, address: address, isReturnAddress: true, symbolColumn: column)
        if scan.isPlain { return frame }
        if let symbolic = describe(bytes, ByteText.trim(bytes, column)) {
            frame.symbol = symbolic.symbol
            frame.symbolOffset = symbolic.offset
            frame.sourceFile = symbolic.file
            frame.sourceLine = symbolic.line
        }
        return frame
    }

    /// A line that opens with a frame number and whitespace, read as a malformed frame: the
    /// number, and as the image name the text after it up to the first tab or run of spaces
    /// (where Apple's layout pads the image column), else to the end of the line.
    static func malformed(_ bytes: [UInt8], _ line: Range<Int>) -> Frame? {
        let start = ByteText.trim(bytes, line).lowerBound
        var i = start
        while i < line.upperBound, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        guard let number = ByteText.decimal(bytes, start..<i), number < maxNumber,
            ByteText.spaceWidth(bytes, i, line.upperBound) > 0
        else { return nil }
        let nameStart = ByteText.trim(bytes, i..<line.upperBound).lowerBound
        var nameEnd = nameStart
        while nameEnd < line.upperBound {
            let w = ByteText.spaceWidth(bytes, nameEnd, line.upperBound)
            if w > 0, bytes[nameEnd] == 0x09 || ByteText.spaceWidth(bytes, nameEnd + w, line.upperBound) > 0 { break }
            nameEnd += max(w, 1)
        }
        let name = ByteText.trim(bytes, nameStart..<nameEnd)
        return Frame(
            number: Int(number), imageName: name.isEmpty ? nil : ByteText.string(bytes, name), address: 0,
            isReturnAddress: true, isMalformed: true)
    }

    /// Interprets a symbol column: nil for the unsymbolicated `0xBASE + OFFSET` form (unless it
    /// carries a KSCrash `(symbol + off)` suffix), else the symbol, offset and file it states.
    static func describe(_ text: String) -> SymbolText? {
        describe(Array(text.utf8)[...])
    }

    /// `describe` of `bytes[range]` as `ByteText.string` reads it (a no-break space is a space),
    /// read as bytes: a report's columns are split without making a String of each first.
    static func describe(_ bytes: [UInt8], _ range: Range<Int>) -> SymbolText? {
        let range = range.clamped(to: 0..<bytes.count)
        if ByteText.firstRange(of: "\u{A0}", in: bytes, range) != nil { return describe(ByteText.string(bytes, range)) }
        return describe(bytes[range])
    }

    /// The column's first three words (split at runs of spaces) and, when the column goes on after
    /// the space that ends the third, the rest: the `0xBASE + OFFSET (symbol + off)` form.
    private static func describe(_ text: ArraySlice<UInt8>) -> SymbolText? {
        guard !text.isEmpty else { return nil }
        let space = UInt8(ascii: " ")
        var words: (Range<Int>, Range<Int>, Range<Int>) = (0..<0, 0..<0, 0..<0)
        var count = 0
        var i = text.startIndex
        var rest: Range<Int>? = nil
        while i < text.endIndex {
            if text[i] == space {
                i += 1
                continue
            }
            let start = i
            while i < text.endIndex, text[i] != space { i += 1 }
            switch count {
            case 0: words.0 = start..<i
            case 1: words.1 = start..<i
            default: words.2 = start..<i
            }
            count += 1
            if count == 3 {
                if i + 1 < text.endIndex { rest = (i + 1)..<text.endIndex }
                break
            }
        }
        if count == 3, isHexAddress(text[words.0]), words.1.count == 1, text[words.1.lowerBound] == UInt8(ascii: "+") {
            guard let rest else { return nil }
            var tail = rest
            while let f = tail.first, text[f] == space || text[f] == 0x09 { tail = (f + 1)..<tail.upperBound }
            while let l = tail.last, text[l] == space || text[l] == 0x09 { tail = tail.lowerBound..<l }
            guard tail.count > 2, text[tail.lowerBound] == UInt8(ascii: "("),
                text[tail.upperBound - 1] == UInt8(ascii: ")")
            else { return nil }
            return symbolText(text[(tail.lowerBound + 1)..<(tail.upperBound - 1)])
        }
        return symbolText(text)
    }

    /// `0x` and at least one hex digit, fitting 64 bits.
    static func isHexAddress(_ word: ArraySlice<UInt8>) -> Bool {
        guard word.count > 2, word.first == UInt8(ascii: "0"), word[word.startIndex + 1] == UInt8(ascii: "x") else {
            return false
        }
        let digits = word.dropFirst(2)
        // Hex digits only (the usual word): 64 bits hold 16 of them past the leading zeros.
        if digits.allSatisfy({ ASCII.hexDigitValue($0) != nil }) {
            return digits.drop { $0 == UInt8(ascii: "0") }.count <= 16
        }
        return UInt64(String(decoding: digits, as: UTF8.self), radix: 16) != nil
    }

    /// The value of `digits` as `Int(String(decoding: digits, as: UTF8.self))` reads it: an
    /// optional sign, then decimal digits only; nil past Int's range.
    static func integer(_ digits: ArraySlice<UInt8>) -> Int? {
        var rest = digits
        var negative = false
        if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty else { return nil }
        var value = 0
        for b in rest {
            guard b >= 0x30, b <= 0x39 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) =
                negative
                ? times.subtractingReportingOverflow(Int(b - 0x30)) : times.addingReportingOverflow(Int(b - 0x30))
            guard !o1, !o2 else { return nil }
            value = next
        }
        return value
    }

    /// The value of `digits` as `UInt64(String(decoding: digits, as: UTF8.self))` reads it,
    /// for text without a sign: decimal digits only; nil past UInt64's range.
    static func unsigned(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty else { return nil }
        var value: UInt64 = 0
        for b in digits {
            guard b >= 0x30, b <= 0x39 else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times.addingReportingOverflow(UInt64(b - 0x30))
            guard !o1, !o2 else { return nil }
            value = next
        }
        return value
    }

    /// Splits `symbol + off (File.m:12)`, `symbol (File.m:12)`, `symbol + off` or `symbol`, and
    /// the forms atos and Xcode's symbolicator print, with the image: `symbol (in Image) (File.m:12)`,
    /// `symbol (in Image) + off`. A file may be `<compiler-generated>` (line 0's file).
    static func symbolText(_ text: String) -> SymbolText {
        symbolText(Array(text.utf8)[...])
    }

    /// `symbolText` over bytes: every place the text is cut is an ASCII byte, which no UTF-8
    /// sequence contains, so each piece decodes as it would have within the whole.
    private static func symbolText(_ text: ArraySlice<UInt8>) -> SymbolText {
        let (open, close) = (UInt8(ascii: "("), UInt8(ascii: ")"))
        var body = text
        var file: String? = nil
        var line: Int? = nil
        if body.last == close, let paren = body.dropLast().lastUnbalanced(open, closedBy: close) {
            let inner = body[(paren + 1)..<(body.endIndex - 1)]
            let before = body[..<paren]
            if before.last == UInt8(ascii: " "), looksLikeFile(inner) {
                if let colon = inner.lastIndex(of: UInt8(ascii: ":")),
                    let n = integer(inner[(colon + 1)...])
                {
                    file = String(decoding: inner[..<colon], as: UTF8.self)
                    line = n
                } else {
                    file = String(decoding: inner, as: UTF8.self)
                }
                body = before.dropLast()
            }
        }
        var offset: UInt64? = nil
        if let plus = lastPlus(body) {
            let digits = body[(plus + 3)...]
            if !digits.isEmpty, let v = unsigned(digits) {
                offset = v
                body = body[..<plus]
            }
        }
        if body.last == close, let paren = body.dropLast().lastUnbalanced(open, closedBy: close),
            body[paren...].starts(with: "(in ".utf8), body[..<paren].last == UInt8(ascii: " ")
        {
            body = body[..<paren].dropLast()
        }
        return SymbolText(symbol: String(decoding: body, as: UTF8.self), offset: offset, file: file, line: line)
    }

    /// The index of the space before the last ` + ` of `s` when only digits and spaces follow it.
    private static func lastPlus(_ s: ArraySlice<UInt8>) -> Int? {
        var i = s.endIndex
        while i > s.startIndex {
            i -= 1
            let c = s[i]
            if c == UInt8(ascii: "+") {
                guard i > s.startIndex, s[i - 1] == UInt8(ascii: " ") else { return nil }
                guard i + 1 < s.endIndex, s[i + 1] == UInt8(ascii: " ") else { return nil }
                return i - 1
            }
            if !((c >= 0x30 && c <= 0x39) || c == UInt8(ascii: " ")) { return nil }
        }
        return nil
    }

    static func looksLikeFile(_ s: ArraySlice<UInt8>) -> Bool {
        guard !s.isEmpty, !s.contains(UInt8(ascii: "(")), !s.starts(with: "in ".utf8) else { return false }
        // No ` + ` in it.
        var k = s.startIndex
        while k + 2 < s.endIndex {
            if s[k] == 0x20, s[k + 1] == UInt8(ascii: "+"), s[k + 2] == 0x20 { return false }
            k += 1
        }
        // The text before the first colon (the whole, when it starts with one: `split` drops an
        // empty first piece, and the piece after it is then the name).
        var name = s
        if let colon = s.firstIndex(of: UInt8(ascii: ":")) {
            if colon > s.startIndex {
                name = s[..<colon]
            } else {
                let after = s[(colon + 1)...].drop { $0 == UInt8(ascii: ":") }
                name = after.isEmpty ? s : after.prefix { $0 != UInt8(ascii: ":") }
            }
        }
        if name.first == UInt8(ascii: "<"), name.last == UInt8(ascii: ">"), name.count > 2 { return true }
        return name.contains(UInt8(ascii: ".")) && name.first != UInt8(ascii: ".")
    }
}

extension Backtrace {
    /// Appends `frame`, read from the line that starts at `lineStart`, with the levels before it
    /// folded in (`FrameLine.fold`). `firstIsPC`: the backtrace's first frame is a pc (a thread's),
    /// every other frame a return address.
    mutating func appendFolding(_ frame: consuming Frame, lineStart: Int, lastLineStart: Int?, firstIsPC: Bool) {
        var frame = FrameLine.fold(frame, lineStart: lineStart, into: &frames, lastLineStart: lastLineStart)
        frame.isReturnAddress = !(firstIsPC && frames.isEmpty)
        frames.append(consume frame)
    }
}
