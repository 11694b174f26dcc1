// ByteText: the byte-level primitives every text parser here uses. Reports are handled as
// bytes, never re-encoded, so that parsers can record exact byte ranges for the writer and a
// report with odd encodings (CR or CRLF line ends, U+00A0 no-break spaces, stray invalid
// UTF-8) still parses and round-trips byte for byte. Every read is bounds-checked.

import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#endif

/// One line of a document: `range` excludes the line ending, `end` includes it.
struct TextLine: Sendable {
    var range: Range<Int>
    var end: Int
}

enum ByteText {
    /// The length of the UTF-8 byte order mark the document opens with (Windows editors save one),
    /// else 0. It is no part of the first line: it is skipped where lines are read and kept, as
    /// every byte before the first rewritten frame, by the writers.
    static func byteOrderMarkLength(_ bytes: [UInt8]) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// Splits `bytes[from...]` into lines at LF, CRLF or a lone CR, in one pass; a byte order mark
    /// at the start of the document is not part of the first line. CRs before an LF are one line
    /// ending with it: CR CR LF is what a CRLF file converted to CRLF once more ends its lines
    /// with (a second Windows conversion, a mail gateway), not a line and a blank one.
    static func lines(_ bytes: [UInt8], from start: Int = 0) -> [TextLine] {
        var result: [TextLine] = []
        var lineStart = min(max(start, byteOrderMarkLength(bytes)), bytes.count)
        let n = bytes.count
        bytes.withUnsafeBufferPointer { buffer in
            var breaks = LineBreaks(buffer)
            while lineStart < n {
                let i = breaks.next(from: lineStart)
                guard i < n else { break }
                let next = buffer[i] == 0x0A ? i + 1 : crlfEnd(bytes, i) ?? i + 1
                result.append(TextLine(range: lineStart..<i, end: next))
                lineStart = next
            }
        }
        if lineStart < n { result.append(TextLine(range: lineStart..<n, end: n)) }
        return result
    }

    /// The next line break (CR or LF) of a buffer, found with `memchr` (which reads many bytes
    /// at a time) for each of the two bytes and kept until passed: every byte is searched at
    /// most once for each, so splitting a document stays linear whatever its line endings.
    struct LineBreaks {
        private let buffer: UnsafeBufferPointer<UInt8>
        private var nextLF = -1
        private var nextCR = -1

        init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

        /// The index of the first CR or LF at or after `i`, else the buffer's count.
        mutating func next(from i: Int) -> Int {
            let n = buffer.count
            guard i < n, let base = buffer.baseAddress else { return n }
            let from = max(i, 0)
            if nextLF < from { nextLF = Self.find(0x0A, base, from, n) }
            if nextCR < from { nextCR = Self.find(0x0D, base, from, n) }
            return min(nextLF, nextCR)
        }

        private static func find(_ byte: Int32, _ base: UnsafePointer<UInt8>, _ from: Int, _ end: Int) -> Int {
            guard let hit = memchr(base + from, byte, end - from) else { return end }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
        }
    }

    /// The first line ending the document uses ("\n" when it has none).
    static func lineEnding(_ bytes: [UInt8]) -> [UInt8] {
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0A { return [0x0A] }
            if bytes[i] == 0x0D { return Array(bytes[i..<(crlfEnd(bytes, i) ?? i + 1)]) }
            i += 1
        }
        return [0x0A]
    }

    /// The ending of the line holding `index` (LF, CR LF, CR CR LF or a lone CR), or `fallback`
    /// when that line is the last and has none: a line inserted after or before it takes this,
    /// so a file of mixed endings keeps each line's own.
    static func lineEnding(_ bytes: [UInt8], ofLineAt index: Int, fallback: [UInt8]) -> [UInt8] {
        var i = max(0, index)
        while i < bytes.count {
            if bytes[i] == 0x0A { return [0x0A] }
            if bytes[i] == 0x0D { return Array(bytes[i..<(crlfEnd(bytes, i) ?? i + 1)]) }
            i += 1
        }
        return fallback
    }

    /// Where a line ending that starts with the CR at `i` ends when CRs and then an LF follow
    /// (CR LF, CR CR LF): just past the LF; nil for a lone CR.
    private static func crlfEnd(_ bytes: [UInt8], _ i: Int) -> Int? {
        var j = i
        while j < bytes.count, bytes[j] == 0x0D { j += 1 }
        return j < bytes.count && bytes[j] == 0x0A ? j + 1 : nil
    }

    /// Width in bytes of the whitespace starting at `i` (space, tab, U+00A0 as C2 A0), or 0.
    @inline(__always)
    static func spaceWidth(_ bytes: [UInt8], _ i: Int, _ end: Int) -> Int {
        guard i >= 0 else { return 0 }
        return bytes.withUnsafeBufferPointer { spaceWidth($0, i, min(end, $0.count)) }
    }

    /// Where the line holding `i` starts: just after the LF or CR before it, or 0.
    static func lineStart(_ bytes: [UInt8], at i: Int) -> Int {
        var start = min(i, bytes.count)
        while start > 0, bytes[start - 1] != 0x0A, bytes[start - 1] != 0x0D { start -= 1 }
        return start
    }

    /// Width in bytes of what stands before a line's text in a pasted report: indentation
    /// (spaces and tabs) and the `>` marks of a mail or Markdown quote (`> `, `>> `, `> > `).
    /// No line of an Apple report starts with `>`.
    static func marginWidth(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        var i = range.lowerBound
        while i < range.upperBound, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == UInt8(ascii: ">") { i += 1 }
        return i - range.lowerBound
    }

    /// The first index from `start` on that is neither whitespace (as `spaceWidth` counts it)
    /// nor a line end; `bytes.count` when there is none.
    static func skipBlank(_ bytes: [UInt8], from start: Int) -> Int {
        var i = max(0, start)
        while i < bytes.count {
            let w = spaceWidth(bytes, i, bytes.count)
            if w > 0 {
                i += w
            } else if bytes[i] == 0x0A || bytes[i] == 0x0D {
                i += 1
            } else {
                break
            }
        }
        return i
    }

    /// Whitespace-separated tokens of `range`, as byte ranges: one pass over the buffer without a
    /// bounds check a byte, into an array sized once (a report's frame lines are split twice each).
    static func tokens(_ bytes: [UInt8], _ range: Range<Int>, limit: Int = .max) -> [Range<Int>] {
        var result: [Range<Int>] = []
        result.reserveCapacity(min(limit, 16))
        bytes.withUnsafeBufferPointer { b in
            var i = max(range.lowerBound, 0)
            let end = min(range.upperBound, b.count)
            while i < end, result.count < limit {
                let w = spaceWidth(b, i, end)
                if w > 0 {
                    i += w
                    continue
                }
                let s = i
                i += 1
                while i < end, spaceWidth(b, i, end) == 0 { i += 1 }
                result.append(s..<i)
            }
        }
        return result
    }

    /// The first whitespace-separated token of `range` (as `tokens` splits it), without making
    /// an array: for checking a shape token by token.
    static func nextToken(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int>? {
        bytes.withUnsafeBufferPointer { nextToken($0, range) }
    }

    /// The last token of `range` (`tokens(bytes, range).last`), without making the array.
    static func lastToken(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int>? {
        bytes.withUnsafeBufferPointer { b in
            var last: Range<Int>? = nil
            var from = range.lowerBound
            while let token = nextToken(b, from..<range.upperBound) {
                last = token
                from = token.upperBound
            }
            return last
        }
    }

    /// `nextToken` over a buffer, for scans that hold one.
    static func nextToken(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int>? {
        var i = max(range.lowerBound, 0)
        let end = min(range.upperBound, b.count)
        // Eight spaces at a time first: Apple pads the image column with runs of them.
        if let base = b.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= end, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) == 0x2020_2020_2020_2020 {
                i += 8
            }
        }
        while case let w = spaceWidth(b, i, end), w > 0 { i += w }
        guard i < end else { return nil }
        let s = i
        i += 1
        while i < end, spaceWidth(b, i, end) == 0 { i += 1 }
        return s..<i
    }

    /// `spaceWidth` on a buffer whose bounds the caller has checked: 0 <= i, end <= b.count.
    @inline(__always)
    static func spaceWidth(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> Int {
        guard i < end else { return 0 }
        let c = b[i]
        if c == 0x20 || c == 0x09 || c == 0x0B || c == 0x0C { return 1 }
        if c == 0xC2, i + 1 < end, b[i + 1] == 0xA0 { return 2 }
        return 0
    }

    /// `range` without leading and trailing whitespace.
    static func trim(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int> {
        bytes.withUnsafeBufferPointer { trim($0, range) }
    }

    /// `trim` over a buffer, for scans that hold one.
    static func trim(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound
        var hi = min(range.upperBound, b.count)
        while lo >= 0, lo < hi {
            let w = spaceWidth(b, lo, hi)
            if w == 0 { break }
            lo += w
        }
        while hi > lo, hi > 0 {
            let c = b[hi - 1]
            if c == 0x20 || c == 0x09 || c == 0x0B || c == 0x0C {
                hi -= 1
            } else if c == 0xA0, hi - 2 >= lo, hi >= 2, b[hi - 2] == 0xC2 {
                hi -= 2
            } else {
                break
            }
        }
        return lo..<hi
    }

    static func isBlank(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        trim(bytes, range).isEmpty
    }

    /// True when `range` of `bytes` holds exactly the bytes of `word`.
    static func equal(_ word: [UInt8], _ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        guard word.count == range.count, range.lowerBound >= 0, range.upperBound <= bytes.count else { return false }
        return word.withUnsafeBufferPointer { w in
            bytes.withUnsafeBufferPointer { b in
                guard let wp = w.baseAddress, let bp = b.baseAddress else { return true }
                return memcmp(wp, bp + range.lowerBound, range.count) == 0
            }
        }
    }

    /// True when every byte of `range` is ASCII (below 0x80).
    static func isASCII(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var i = max(range.lowerBound, 0)
            let end = min(range.upperBound, b.count)
            while i < end {
                if b[i] >= 0x80 { return false }
                i += 1
            }
            return true
        }
    }

    /// The text of `range`, decoded leniently; U+00A0 becomes a plain space.
    static func string(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        let lo = max(0, min(range.lowerBound, bytes.count))
        let hi = max(lo, min(range.upperBound, bytes.count))
        // A no-break space is C2 A0; memchr finds the C2s (most text has none).
        let hasNoBreakSpace = bytes.withUnsafeBufferPointer { b -> Bool in
            guard let base = b.baseAddress else { return false }
            var i = lo
            while i + 1 < hi, let hit = memchr(base + i, 0xC2, hi - 1 - i) {
                let k = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if b[k + 1] == 0xA0 { return true }
                i = k + 1
            }
            return false
        }
        let s = String(decoding: bytes[lo..<hi], as: UTF8.self)
        return hasNoBreakSpace ? s.replacing("\u{A0}", with: " ") : s
    }

    /// True when `bytes[at...]` starts with `prefix`.
    static func hasPrefix(_ bytes: [UInt8], at: Int, _ prefix: String, end: Int? = nil) -> Bool {
        // Walks the prefix's UTF-8 in place: the sniffers ask this of every line of a report,
        // and copying the prefix into an array each time cost more than the comparison.
        let limit = min(end ?? bytes.count, bytes.count)
        guard at >= 0 else { return false }
        var k = at
        for b in prefix.utf8 {
            guard k < limit, bytes[k] == b else { return false }
            k += 1
        }
        return true
    }

    /// The first place `needle` occurs within `range` of `bytes`.
    static func firstRange(of needle: String, in bytes: [UInt8], _ range: Range<Int>) -> Range<Int>? {
        var needle = needle
        return needle.withUTF8 { n in
            bytes.withUnsafeBufferPointer { b in
                let lo = max(range.lowerBound, 0)
                let hi = min(range.upperBound, b.count)
                guard let first = n.first, hi - lo >= n.count else { return nil }
                var i = lo
                while i <= hi - n.count {
                    if b[i] == first, matches(n, in: b, at: i) { return i..<(i + n.count) }
                    i += 1
                }
                return nil
            }
        }
    }

    /// The last place `needle` occurs within `range` of `bytes`.
    static func lastRange(of needle: String, in bytes: [UInt8], _ range: Range<Int>) -> Range<Int>? {
        var needle = needle
        return needle.withUTF8 { n in
            bytes.withUnsafeBufferPointer { b in
                let lo = max(range.lowerBound, 0)
                let hi = min(range.upperBound, b.count)
                guard !n.isEmpty, hi - lo >= n.count else { return nil }
                var i = hi - n.count
                while i >= lo {
                    if matches(n, in: b, at: i) { return i..<(i + n.count) }
                    i -= 1
                }
                return nil
            }
        }
    }

    private static func matches(_ needle: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>, at i: Int)
        -> Bool
    {
        var k = 0
        while k < needle.count, bytes[i + k] == needle[k] { k += 1 }
        return k == needle.count
    }

    /// Parses `0x` followed by 1-16 hex digits filling the whole range.
    static func hexAddress(_ bytes: [UInt8], _ range: Range<Int>) -> UInt64? {
        bytes.withUnsafeBufferPointer { hexAddress($0, range) }
    }

    /// `hexAddress` over a buffer.
    static func hexAddress(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
        guard range.count >= 3, range.count <= 18, range.upperBound <= b.count, range.lowerBound >= 0 else {
            return nil
        }
        guard b[range.lowerBound] == 0x30, b[range.lowerBound + 1] | 0x20 == 0x78 else { return nil }
        var value: UInt64 = 0
        for i in (range.lowerBound + 2)..<range.upperBound {
            guard let d = ASCII.hexDigitValue(b[i]) else { return nil }
            value = value << 4 | UInt64(d)
        }
        return value
    }

    /// Parses a decimal number filling the whole range (at most 19 digits).
    static func decimal(_ bytes: [UInt8], _ range: Range<Int>) -> UInt64? {
        bytes.withUnsafeBufferPointer { decimal($0, range) }
    }

    /// `decimal` over a buffer.
    static func decimal(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
        guard !range.isEmpty, range.count <= 19, range.upperBound <= b.count, range.lowerBound >= 0 else {
            return nil
        }
        var value: UInt64 = 0
        for i in range {
            let c = b[i]
            guard c >= 0x30, c <= 0x39 else { return nil }
            value = value * 10 + UInt64(c - 0x30)
        }
        return value
    }
}

extension BidirectionalCollection where Element: Equatable {
    /// Where the bracket that closes just past the end of this collection was opened: the last
    /// `open` that no `close` after it balances (`a (b (c) d` → the `(` before `b`).
    func lastUnbalanced(_ open: Element, closedBy close: Element) -> Index? {
        var depth = 1
        var i = endIndex
        while i > startIndex {
            formIndex(before: &i)
            if self[i] == close { depth += 1 }
            if self[i] == open {
                depth -= 1
                if depth == 0 { return i }
            }
        }
        return nil
    }

    /// Where the bracket opened just before the start of this collection closes: the first
    /// `close` that no `open` before it balances (`a (b) c) d` → the `)` after `c`).
    func firstUnbalanced(_ close: Element, openedBy open: Element) -> Index? {
        var depth = 1
        var i = startIndex
        while i < endIndex {
            if self[i] == open { depth += 1 }
            if self[i] == close {
                depth -= 1
                if depth == 0 { return i }
            }
            formIndex(after: &i)
        }
        return nil
    }
}
