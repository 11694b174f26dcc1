// LineWrap: undoes the line breaks a mail client, a chat tool or `fold` inserts into a report
// before it is parsed. Lines are cut where they would pass a width (fold counts bytes and takes
// a tab to the next multiple of 8), so a break is a line that, with the next line's first word,
// would be wider than the widest line of the document that could have been broken.
//
// - Apple text reports and the text after a JSON header: a line and the lines that continue it
//   are joined when the joined line reads as a frame or Binary Images line and each continuation
//   reads as nothing else (no frame, image, header field or thread header); the joined frame is
//   one line in the output.
// - JSON (`.ips`, MetricKit): the breaks inside strings and between two characters of one token
//   are deleted, and a one-line header cut over several lines is put back on one line, only when
//   the document then parses.
// - `sample` and spindump trees, whose indentation is their structure, are left as they are:
//   the report only says that it looks wrapped.
// A report that was not wrapped comes back byte for byte.

import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#endif

enum LineWrap {
    /// The bytes to parse and what was done to them.
    struct Unwrapped {
        var bytes: [UInt8]
        var notes: [String] = []
        /// The lines of `bytes` (`ByteText.lines`) when the unwrapping found them and left the
        /// bytes as they were: the parser reads them instead of finding them again.
        var lines: [TextLine]? = nil
    }

    /// Wider than this, a document was not wrapped for a mail or a chat.
    static let maxWrapWidth = 200
    /// Lines a wrapped frame or image line may have been cut into.
    static let maxPieces = 32
    /// Bytes of a wrapped one-line JSON header.
    static let maxHeaderBytes = 64 << 10

    static func unwrap(_ bytes: [UInt8]) -> Unwrapped {
        let lines = ByteText.lines(bytes)
        guard let first = lines.first(where: { !ByteText.isBlank(bytes, $0.range) }) else {
            return Unwrapped(bytes: bytes, lines: lines)
        }
        let width = wrapWidth(bytes, lines)
        guard width <= maxWrapWidth else { return Unwrapped(bytes: bytes, lines: lines) }
        let start = ByteText.trim(bytes, first.range).lowerBound
        if bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") {
            return unwrapJSON(bytes, from: start, width: width)
        }
        let openings = FormatSniffer.LineOpenings(bytes, lines: lines)
        if SampleParser.isSample(openings) || MicrostackshotParser.isMicrostackshot(bytes, openings) {
            return Unwrapped(bytes: bytes, notes: treeLooksWrapped(bytes, lines, width: width), lines: lines)
        }
        return rejoinText(bytes, from: 0, width: width, notes: [])
    }

    // MARK: Widths

    /// The columns `range` takes as fold counts them: a byte each, a tab to the next multiple of 8.
    static func columns(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        bytes.withUnsafeBufferPointer { columns($0, range) }
    }

    private static func columns(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        let range = range.clamped(to: 0..<b.count)
        // Most lines hold no CR: a byte is a column but for tabs, which memchr finds (it reads
        // many bytes at once); a frame line has one.
        if let base = b.baseAddress, !range.isEmpty, memchr(base + range.lowerBound, 0x0D, range.count) == nil {
            var column = 0
            var i = range.lowerBound
            while i < range.upperBound, let tab = memchr(base + i, 0x09, range.upperBound - i) {
                let t = base.distance(to: tab.assumingMemoryBound(to: UInt8.self))
                column = ((column + t - i) / 8 + 1) * 8
                i = t + 1
            }
            return column + range.upperBound - i
        }
        var column = 0
        for i in range {
            if b[i] == 0x09 { column = (column / 8 + 1) * 8 } else if b[i] != 0x0D { column += 1 }
        }
        return column
    }

    /// The widest line that holds a blank after its first word: a line that a breaker could
    /// have cut and did not need to. A line of one long word (a path) may pass the width. Once
    /// a line is wider than `maxWrapWidth` the document was not wrapped, and the scan stops
    /// there, answering that line's width (most reports have such a line: this runs on every
    /// report).
    static func wrapWidth(_ bytes: [UInt8], _ lines: [TextLine]) -> Int {
        bytes.withUnsafeBufferPointer { b in
            // A line of more bytes than that (each a column at least, unless a CR) settles it
            // first: such lines are few, found by their length alone (Binary Images lines with
            // long paths, at a report's end, where the scan below would meet them last).
            for line in lines where line.range.count > maxWrapWidth {
                let width = columns(b, line.range)
                if width > maxWrapWidth, hasTwoWords(b, ByteText.trim(b, line.range)) { return width }
            }
            var widest = 0
            for line in lines where hasTwoWords(b, ByteText.trim(b, line.range)) {
                widest = max(widest, columns(b, line.range))
                if widest > maxWrapWidth { break }
            }
            return widest
        }
    }

    /// True when `range` holds a blank between two words (`ByteText.tokens(limit: 2).count > 1`,
    /// without making the tokens), `range` trimmed.
    private static func hasTwoWords(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var i = max(range.lowerBound, 0)
        let end = min(range.upperBound, b.count)
        while i < end, ByteText.spaceWidth(b, i, end) == 0 { i += 1 }
        return i < end
    }

    /// The columns of the first word of `range` (at least 1: a break before a blank).
    static func firstWordColumns(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        var i = range.lowerBound
        while i < range.upperBound, bytes[i] != 0x20, bytes[i] != 0x09 { i += 1 }
        return max(1, i - range.lowerBound)
    }

    /// True when the break after `line` may have been inserted at `width` columns: `next`'s
    /// first word, with the blank after it (fold counts it), did not fit on it.
    static func isBreak(_ bytes: [UInt8], _ line: TextLine, _ next: TextLine, width: Int) -> Bool {
        guard !line.range.isEmpty, !next.range.isEmpty, line.end == next.range.lowerBound else { return false }
        return columns(bytes, line.range) + firstWordColumns(bytes, next.range) + 1 > width
    }

    // MARK: Text

    /// True when `range` reads as a line of its own in a text report.
    static func readsAsLine(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        if ByteText.isBlank(bytes, range) { return true }
        if FrameLine.parse(bytes, range) != nil || BinaryImageLine.parse(bytes, range) != nil { return true }
        // Header keys start with a capital; a cut symbol (`ctForKeyedSubscript: + 0`) need not.
        if let field = TextReportParser.headerField(bytes, range), field.key.first?.isUppercase == true { return true }
        let text = ByteText.string(bytes, ByteText.trim(bytes, range))
        return TextReportParser.threadHeader(text) != nil || TextReportParser.isBinaryImagesHeader(text)
    }

    /// True when a joined `line` reads as a frame, an image or a thread's header line.
    static func readsAsJoinable(_ line: [UInt8]) -> Bool {
        let all = 0..<line.count
        if FrameLine.parse(line, all) != nil || BinaryImageLine.parse(line, all) != nil { return true }
        switch TextReportParser.threadHeader(ByteText.string(line, ByteText.trim(line, all))) {
        case .thread, .name: return true
        case .other, nil: return false
        }
    }

    /// The columns a frame number and the blanks after it take (Apple pads them to 4 or more:
    /// `1   App`, `100 App`); a cut symbol's `1 in closure` takes 2.
    static func numberColumn(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        var i = range.lowerBound
        while i < range.upperBound, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        var column = i - range.lowerBound
        while case let w = ByteText.spaceWidth(bytes, i, range.upperBound), w > 0 {
            if bytes[i] == 0x09 { return 8 }
            column += 1
            i += w
        }
        return column
    }

    /// The lines of `bytes` from `offset` with every wrapped frame and image line joined.
    static func rejoinText(_ bytes: [UInt8], from offset: Int, width: Int, notes: [String]) -> Unwrapped {
        let lines = ByteText.lines(bytes, from: offset)
        var out: [UInt8] = []
        var cursor = 0
        var joined = 0
        var i = 0
        var inList = false
        while i < lines.count {
            // A parenthesized backtrace `(0x1 0x2 ...)` over several lines: an address cut in
            // two (no blank at the break) is joined again.
            let text = ByteText.trim(bytes, lines[i].range)
            if !inList, let open = bytes[text].firstIndex(of: UInt8(ascii: "(")),
                ByteText.hexAddress(
                    bytes, ByteText.tokens(bytes, (open + 1)..<text.upperBound, limit: 1).first ?? 0..<0)
                    != nil || text.count == 1
            {
                inList = !bytes[text].contains(UInt8(ascii: ")"))
            } else if inList, bytes[text].contains(UInt8(ascii: ")")) || text.isEmpty {
                inList = false
            }
            if inList, i + 1 < lines.count, isBreak(bytes, lines[i], lines[i + 1], width: width),
                let last = lines[i].range.last, ByteText.spaceWidth(bytes, last, last + 1) == 0,
                ByteText.spaceWidth(bytes, lines[i + 1].range.lowerBound, lines[i + 1].range.upperBound) == 0
            {
                out.append(contentsOf: bytes[cursor..<lines[i].range.upperBound])
                cursor = lines[i + 1].range.lowerBound
                joined += 1
                i += 1
                continue
            }
            var pieces = [lines[i]]
            // The next frame's line (numbered one more, even when it does not parse) is no
            // continuation; a cut symbol offset (`+ ` then `12 (File.m:3)`) may be.
            let following = FrameLine.malformed(bytes, lines[i].range).map { $0.number + 1 }
            while pieces.count < maxPieces, i + pieces.count < lines.count,
                case let next = lines[i + pieces.count],
                isBreak(bytes, pieces[pieces.count - 1], next, width: width), !readsAsLine(bytes, next.range),
                following == nil || FrameLine.malformed(bytes, next.range)?.number != following
                    || numberColumn(bytes, next.range) < 4,
                // A last line without its line end is a report cut short, not a continuation.
                next.end > next.range.upperBound
            {
                pieces.append(next)
            }
            // The most pieces whose joined line reads as a frame or an image line.
            var used = 1
            if pieces.count > 1 {
                for count in stride(from: pieces.count, through: 2, by: -1) {
                    let line = pieces[0..<count].flatMap { bytes[$0.range] }
                    if readsAsJoinable(line) {
                        used = count
                        break
                    }
                }
            }
            if used > 1 {
                out.append(contentsOf: bytes[cursor..<pieces[0].range.upperBound])
                for piece in pieces[1..<used] { out.append(contentsOf: bytes[piece.range]) }
                cursor = pieces[used - 1].range.upperBound
                joined += 1
            }
            i += used
        }
        guard joined > 0 else { return Unwrapped(bytes: bytes, notes: notes) }
        out.append(contentsOf: bytes[cursor...])
        return Unwrapped(
            bytes: out,
            notes: notes + ["the report looks line-wrapped at \(width) columns: \(count: joined, "line") rejoined"])
    }

    /// For a sample tree: a note when a line that is not indented (a tree line always is) follows
    /// a line it could have been cut from and reads as nothing of its own.
    static func treeLooksWrapped(_ bytes: [UInt8], _ lines: [TextLine], width: Int) -> [String] {
        for (line, next) in zip(lines, lines.dropFirst())
        where isBreak(bytes, line, next, width: width)
            && ByteText.spaceWidth(bytes, next.range.lowerBound, next.range.upperBound) == 0
            && !readsAsLine(bytes, next.range)
            && ByteText.spaceWidth(bytes, line.range.lowerBound, line.range.upperBound) > 0
        {
            return [
                "the report looks line-wrapped at \(width) columns; its sample trees are read as they are,"
                    + " so send it unwrapped"
            ]
        }
        return []
    }

    // MARK: JSON

    /// `.ips`, a JSON header before text, or a JSON document: the breaks deleted where the
    /// document then parses; else the bytes as they are.
    static func unwrapJSON(_ bytes: [UInt8], from start: Int, width: Int) -> Unwrapped {
        let unchanged = Unwrapped(bytes: bytes)
        guard bytes[start] == UInt8(ascii: "{"), let header = scanValue(bytes, from: start) else {
            return unwrapDocument(bytes, from: start, width: width) ?? unchanged
        }
        // A header pretty-printed over lines opens alone on its line: it was not wrapped.
        let firstLineEnd = bytes[start...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) ?? bytes.count
        let oneLine = ByteText.trim(bytes, start..<firstLineEnd).count > 1
        var out = Array(bytes[..<start])
        let headerBytes =
            oneLine ? delete(header.breaks, in: bytes, start..<header.end) : Array(bytes[start..<header.end])
        guard let (node, after) = try? JSONScanner.parse(headerBytes, from: 0), node.isObject,
            after == headerBytes.count
        else { return unwrapDocument(bytes, from: start, width: width) ?? unchanged }
        guard node["bug_type"] != nil else { return unwrapDocument(bytes, from: start, width: width) ?? unchanged }
        out += headerBytes
        let headerJoined = oneLine && !header.breaks.isEmpty
        let bodyStart = ByteText.skipBlank(bytes, from: header.end)
        let notes =
            headerJoined ? ["the report looks line-wrapped at \(width) columns: its JSON header rejoined"] : []
        if bodyStart < bytes.count, bytes[bodyStart] == UInt8(ascii: "{") {
            let rest = Array(bytes[header.end...])
            let local = bodyStart - header.end
            if let body = unwrapDocument(rest, from: local, width: width) {
                return Unwrapped(bytes: out + body.bytes, notes: body.notes)
            }
            guard headerJoined else { return unchanged }
            return Unwrapped(bytes: out + rest, notes: notes)
        }
        let rest = Array(bytes[header.end...])
        let text = rejoinText(rest, from: 0, width: width, notes: notes)
        guard headerJoined || text.bytes != rest else { return unchanged }
        return Unwrapped(bytes: out + text.bytes, notes: text.notes)
    }

    /// The JSON value at `start` with the breaks inside its strings and inside its tokens
    /// deleted (JSON has no such breaks of its own), when it then parses; nil otherwise.
    static func unwrapDocument(_ bytes: [UInt8], from start: Int, width: Int) -> Unwrapped? {
        guard let value = scanValue(bytes, from: start), !value.inserted.isEmpty else { return nil }
        let repaired = delete(value.inserted, in: bytes, 0..<bytes.count)
        guard (try? JSONScanner.parse(repaired, from: start)) != nil else { return nil }
        return Unwrapped(
            bytes: repaired, notes: ["the report looks line-wrapped at \(width) columns: its JSON rejoined"])
    }

    /// A JSON value's extent from the `{` or `[` at `start`: where it ends, every line break
    /// in it, and the breaks that cannot be JSON's own (inside a string, between two characters
    /// of a number or a word). Nil when it does not close within the bounds.
    static func scanValue(_ bytes: [UInt8], from start: Int) -> (
        end: Int, breaks: [Range<Int>], inserted: [Range<Int>]
    )? {
        var depth = 0
        var inString = false
        var escaped = false
        var breaks: [Range<Int>] = []
        var inserted: [Range<Int>] = []
        var i = start
        let limit = bytes.count
        func isTokenByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A)
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
        }
        while i < limit {
            let b = bytes[i]
            if b == 0x0A || b == 0x0D {
                var j = i
                if b == 0x0D, j + 1 < limit, bytes[j + 1] == 0x0A { j += 1 }
                let range = i..<(j + 1)
                breaks.append(range)
                if inString || (i > start && j + 1 < limit && isTokenByte(bytes[i - 1]) && isTokenByte(bytes[j + 1])) {
                    inserted.append(range)
                }
                i = j + 1
                continue
            }
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                depth += 1
            } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return (i + 1, breaks, inserted) }
            }
            i += 1
        }
        return nil
    }

    /// `bytes[range]` without the byte ranges in `cuts` (sorted, inside `range`).
    static func delete(_ cuts: [Range<Int>], in bytes: [UInt8], _ range: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var cursor = range.lowerBound
        for cut in cuts where cut.lowerBound >= cursor && cut.upperBound <= range.upperBound {
            out += bytes[cursor..<cut.lowerBound]
            cursor = cut.upperBound
        }
        out += bytes[cursor..<range.upperBound]
        return out
    }
}
