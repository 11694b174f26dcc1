// JSONScanner: a small JSON reader that keeps, for every value and every object key, the byte
// range it occupies in the document. It lexes (strings, numbers, literals); JSONTape handles the
// nesting without recursion, and `parse` builds the tree from the tape. The `.ips` writer needs those ranges to add keys and
// frames without disturbing a byte of the rest, which Foundation's JSONSerialization cannot
// give (it also loses key order and duplicate keys, both of which we keep). Nesting depth is
// capped so hostile input cannot exhaust the stack; errors are thrown, never trapped.

import SymbolicateModel

struct JSONNode: Sendable {
    struct Member: Sendable {
        var key: String
        var keyRange: Range<Int>
        var value: JSONNode
    }

    enum Kind: Sendable {
        case object([Member])
        case array([JSONNode])
        case string(String)
        /// The number as written.
        case number(String)
        case bool(Bool)
        case null
    }

    var kind: Kind
    var range: Range<Int>

    /// The first member with this key (objects only).
    subscript(key: String) -> JSONNode? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }?.value
    }

    var members: [Member] {
        if case .object(let m) = kind { return m }
        return []
    }

    var elements: [JSONNode] {
        if case .array(let a) = kind { return a }
        return []
    }

    var string: String? {
        if case .string(let s) = kind { return s }
        return nil
    }

    var isObject: Bool {
        if case .object = kind { return true }
        return false
    }

    /// Integer value of a number (or a decimal / 0x string); nil for fractions and other kinds.
    var uint64: UInt64? {
        switch kind {
        case .number(let raw): return ASCII.unsignedInteger(number: raw)
        case .string(let s): return ASCII.unsignedInteger(string: s)
        default: return nil
        }
    }

    var int: Int? {
        if case .number(let raw) = kind { return Int(raw) }
        if case .bool(let b) = kind { return b ? 1 : 0 }
        return nil
    }

    var bool: Bool? {
        switch kind {
        case .bool(let b): return b
        case .number(let raw): return raw != "0"
        default: return nil
        }
    }

    /// A scalar as display text (strings unquoted, numbers as written).
    var scalarText: String? {
        switch kind {
        case .string(let s): return s
        case .number(let raw): return raw
        case .bool(let b): return b ? "true" : "false"
        case .null: return nil
        default: return nil
        }
    }
}

struct JSONScanner {
    static let maxDepth = 256

    let bytes: [UInt8]
    var pos: Int
    let end: Int

    /// Parses one JSON value starting at `start` (after whitespace); returns it and the offset
    /// after it. The document is read into a JSONTape first (no recursion), refused when nested
    /// deeper than `maxDepth`, and the tree is then built from the tape bottom-up, also without
    /// recursion: a hostile document cannot exhaust a thread's stack.
    static func parse(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) throws -> (JSONNode, Int) {
        let (tape, after) = try JSONTape.parse(bytes, from: start, to: end, maxDepth: maxDepth)
        return (tape.tree(), after)
    }

    func fail(_ what: String) -> SymbolicateError {
        SymbolicateError(.badInput, "malformed JSON at byte \(pos): \(what)")
    }

    mutating func skipSpace() {
        while pos < end {
            let b = bytes[pos]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 } else { break }
        }
    }

    /// Reads a number as written; leaves `pos` after it.
    mutating func number() throws -> String {
        let start = pos
        while pos < end {
            let b = bytes[pos]
            let isNumberByte =
                (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
            guard isNumberByte else { break }
            pos += 1
        }
        guard pos > start else { throw fail("unexpected character") }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    mutating func literal(_ word: String) throws {
        guard ByteText.hasPrefix(bytes, at: pos, word, end: end) else { throw fail("expected \(word)") }
        pos += word.utf8.count
    }

    /// Reads a string starting at the opening quote; leaves `pos` after the closing quote.
    mutating func stringBody() throws -> String {
        pos += 1
        let start = pos
        // Fast path: no escapes.
        while pos < end {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: bytes[start..<pos], as: UTF8.self)
                pos += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            pos += 1
        }
        var out: [UInt8] = Array(bytes[start..<min(pos, end)])
        while pos < end {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                pos += 1
                continue
            }
            guard pos + 1 < end else { break }
            let e = bytes[pos + 1]
            pos += 2
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800, scalar < 0xDC00, ByteText.hasPrefix(bytes, at: pos, "\\u", end: end) {
                    pos += 2
                    let low = try hex4()
                    if low >= 0xDC00, low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                }
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: out.append(e)
            }
        }
        throw fail("unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard pos + 4 <= end else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for i in pos..<(pos + 4) {
            guard let d = ASCII.hexDigitValue(bytes[i]) else { throw fail("bad \\u escape") }
            v = v << 4 | UInt32(d)
        }
        pos += 4
        return v
    }
}
