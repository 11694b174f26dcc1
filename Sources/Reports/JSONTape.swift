// JSONTape: a JSON document read without recursion into one flat array of values in document
// order, each with its byte range, its key (for object members) and where its subtree ends. It
// is for documents whose nesting is their content: a MetricKit call-stack tree nests two levels
// per frame (`subFrames` array, frame object), so a stack of 10,000 frames is 20,000 levels deep,
// which the tree-building JSONScanner (capped at 256 levels) refuses and which recursion of any
// kind, including the release of nested Swift values, would overflow on a server thread's stack.
// Lexing (strings, numbers, literals) is JSONScanner's; only the nesting is kept here, on a heap
// stack, and walking the tape is a loop too.

import SymbolicateModel

struct JSONTape: Sendable {
    enum Kind: Sendable, Equatable {
        case object
        case array
        case string
        case number
        case bool
        case null
    }

    struct Entry: Sendable {
        var kind: Kind
        var range: Range<Int>
        /// The member's key when the value is an object member.
        var key: String?
        var keyRange: Range<Int>?
        /// A string's decoded text, a number as written, `true` / `false`.
        var text: String?
        /// Index of the entry after this value's subtree (its next sibling, if any).
        var subtreeEnd: Int
    }

    var entries: [Entry]

    /// Nesting deeper than this is refused by default (it bounds memory, not the stack).
    static let maxDepth = 1_000_000

    /// Reads the JSON value starting at `start` (after whitespace) and ending by `end`; returns
    /// the tape and the offset after the value. Throws on malformed JSON and on nesting deeper
    /// than `maxDepth`.
    static func parse(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil, maxDepth: Int = JSONTape.maxDepth)
        throws -> (JSONTape, Int)
    {
        var scanner = JSONScanner(bytes: bytes, pos: start, end: min(end ?? bytes.count, bytes.count))
        var entries: [Entry] = []
        // Open containers: their entry index; `true` once the container has its first element.
        var open: [(index: Int, hasElement: Bool)] = []
        scanner.skipSpace()
        var pendingKey: (String, Range<Int>)? = nil

        func close(_ scanner: JSONScanner, _ entries: inout [Entry], _ open: inout [(index: Int, hasElement: Bool)]) {
            guard let top = open.popLast() else { return }
            entries[top.index].range = entries[top.index].range.lowerBound..<scanner.pos
            entries[top.index].subtreeEnd = entries.count
        }

        repeat {
            // Inside a container: the separator before this element, or the container's end.
            if let top = open.last {
                scanner.skipSpace()
                guard scanner.pos < scanner.end else { throw scanner.fail("unterminated container") }
                let isObject = entries[top.index].kind == .object
                let b = scanner.bytes[scanner.pos]
                if b == UInt8(ascii: isObject ? "}" : "]") {
                    scanner.pos += 1
                    close(scanner, &entries, &open)
                    continue
                }
                if top.hasElement {
                    guard b == UInt8(ascii: ",") else {
                        throw scanner.fail("expected ',' or '\(isObject ? "}" : "]")'")
                    }
                    scanner.pos += 1
                    scanner.skipSpace()
                }
                open[open.count - 1].hasElement = true
                if isObject {
                    guard scanner.pos < scanner.end, scanner.bytes[scanner.pos] == UInt8(ascii: "\"") else {
                        throw scanner.fail("expected a key")
                    }
                    let keyStart = scanner.pos
                    let key = try scanner.stringBody()
                    pendingKey = (key, keyStart..<scanner.pos)
                    scanner.skipSpace()
                    guard scanner.pos < scanner.end, scanner.bytes[scanner.pos] == UInt8(ascii: ":") else {
                        throw scanner.fail("expected ':'")
                    }
                    scanner.pos += 1
                }
                scanner.skipSpace()
            }
            guard scanner.pos < scanner.end else { throw scanner.fail("unexpected end of input") }
            let valueStart = scanner.pos
            var entry = Entry(
                kind: .null, range: valueStart..<valueStart, key: pendingKey?.0, keyRange: pendingKey?.1, text: nil,
                subtreeEnd: 0)
            pendingKey = nil
            switch scanner.bytes[valueStart] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard open.count < maxDepth else { throw scanner.fail("nesting deeper than \(maxDepth)") }
                entry.kind = scanner.bytes[valueStart] == UInt8(ascii: "{") ? .object : .array
                scanner.pos += 1
                open.append((entries.count, false))
                entries.append(entry)
                continue
            case UInt8(ascii: "\""):
                entry.kind = .string
                entry.text = try scanner.stringBody()
            case UInt8(ascii: "t"):
                try scanner.literal("true")
                entry.kind = .bool
                entry.text = "true"
            case UInt8(ascii: "f"):
                try scanner.literal("false")
                entry.kind = .bool
                entry.text = "false"
            case UInt8(ascii: "n"):
                try scanner.literal("null")
            default:
                entry.kind = .number
                entry.text = try scanner.number()
            }
            entry.range = valueStart..<scanner.pos
            entry.subtreeEnd = entries.count + 1
            entries.append(entry)
        } while !open.isEmpty
        return (JSONTape(entries: entries), scanner.pos)
    }

    /// The value as a JSONNode tree, built from the last entry to the first so that every
    /// child exists before its container: a loop, whatever the depth.
    func tree() -> JSONNode {
        var built = [JSONNode?](repeating: nil, count: entries.count)
        for i in entries.indices.reversed() {
            let e = entries[i]
            let kind: JSONNode.Kind
            switch e.kind {
            case .object:
                kind = .object(
                    children(i).map { c in
                        JSONNode.Member(
                            key: entries[c].key ?? "", keyRange: entries[c].keyRange ?? entries[c].range,
                            value: built[c].take() ?? JSONNode(kind: .null, range: entries[c].range))
                    })
            case .array:
                kind = .array(children(i).map { built[$0].take() ?? JSONNode(kind: .null, range: entries[$0].range) })
            case .string: kind = .string(e.text ?? "")
            case .number: kind = .number(e.text ?? "")
            case .bool: kind = .bool(e.text == "true")
            case .null: kind = .null
            }
            built[i] = JSONNode(kind: kind, range: e.range)
        }
        return built.first.flatMap { $0 } ?? JSONNode(kind: .null, range: 0..<0)
    }

    // MARK: Walking

    /// The indices of the children of entry `i` (members of an object, elements of an array).
    func children(_ i: Int) -> [Int] {
        guard entries.indices.contains(i), entries[i].kind == .object || entries[i].kind == .array else { return [] }
        var out: [Int] = []
        var k = i + 1
        while k < entries[i].subtreeEnd {
            out.append(k)
            k = max(entries[k].subtreeEnd, k + 1)
        }
        return out
    }

    /// The first member of object `i` with this key.
    func member(_ i: Int, _ key: String) -> Int? {
        guard entries.indices.contains(i), entries[i].kind == .object else { return nil }
        var k = i + 1
        while k < entries[i].subtreeEnd {
            if entries[k].key == key { return k }
            k = max(entries[k].subtreeEnd, k + 1)
        }
        return nil
    }

    /// The same for an object that may be absent: nil when `i` is nil.
    func member(_ i: Int?, _ key: String) -> Int? {
        guard let i else { return nil }
        return member(i, key)
    }

    func kind(_ i: Int) -> Kind { entries[i].kind }

    /// A number (or a decimal / 0x string) as an Int, when it fits.
    func int(_ i: Int?) -> Int? {
        uint64(i).flatMap { Int(exactly: $0) }
    }

    func string(_ i: Int?) -> String? {
        guard let i, entries[i].kind == .string else { return nil }
        return entries[i].text
    }

    /// A number (or a decimal / 0x string) as an unsigned integer; nil for anything else.
    func uint64(_ i: Int?) -> UInt64? {
        guard let i, let text = entries[i].text else { return nil }
        switch entries[i].kind {
        case .number: return ASCII.unsignedInteger(number: text)
        case .string: return ASCII.unsignedInteger(string: text)
        default: return nil
        }
    }

    func bool(_ i: Int?) -> Bool? {
        guard let i else { return nil }
        switch entries[i].kind {
        case .bool: return entries[i].text == "true"
        case .number: return entries[i].text != "0"
        default: return nil
        }
    }

    /// A scalar as display text (strings unquoted, numbers as written).
    func scalarText(_ i: Int?) -> String? {
        guard let i else { return nil }
        switch entries[i].kind {
        case .string, .number, .bool: return entries[i].text
        default: return nil
        }
    }
}
