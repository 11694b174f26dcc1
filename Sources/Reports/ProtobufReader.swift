// ProtobufReader: a bounds-checked reader of the protobuf wire format (varints, 64- and 32-bit
// fixed values, length-delimited fields), enough to walk PLCrashReporter's `.plcrash` reports.
// Why our own: no Swift protobuf package can be fetched here and the toolchain carries none, and
// the subset a crash report needs is small; Debian's `protoc` is the referee (`--encode` makes the
// tests' fixtures from our schema subset, `--decode` reads them back). Every read checks its
// bounds and throws, naming the field: a varint past 10 bytes, a length past the end, a wire type
// that is not the one a field needs, an end-group without a start. Unknown fields are skipped
// (groups too, with a depth limit), so a report from a newer PLCrashReporter is read.

import SymbolicateModel

struct ProtobufReader {
    /// Wire types (encoding.md: "Message Structure").
    enum WireType: UInt8 {
        case varint = 0
        case i64 = 1
        case len = 2
        case sgroup = 3
        case egroup = 4
        case i32 = 5
    }

    /// One field of a message: its number, wire type, and value (a varint's or fixed value's
    /// integer, or the byte range of a length-delimited value).
    struct Field {
        var number: UInt64
        var wireType: WireType
        var integer: UInt64 = 0
        var range: Range<Int> = 0..<0
    }

    let bytes: [UInt8]
    /// Nested groups deeper than this are refused (they nest without a length).
    static let maxGroupDepth = 64

    /// The fields of the message in `range`, in order. Throws for malformed wire data, naming
    /// `message` (the field path being read).
    func fields(_ range: Range<Int>, message: String) throws -> [Field] {
        var out: [Field] = []
        var i = range.lowerBound
        while i < range.upperBound {
            let (key, afterKey) = try varint(at: i, end: range.upperBound, what: message)
            guard let wire = WireType(rawValue: UInt8(key & 7)) else {
                throw fail("\(message): field \(key >> 3) has wire type \(key & 7), which protobuf does not define")
            }
            var field = Field(number: key >> 3, wireType: wire)
            i = afterKey
            switch wire {
            case .varint:
                (field.integer, i) = try varint(at: i, end: range.upperBound, what: "\(message).\(field.number)")
            case .i64, .i32:
                let size = wire == .i64 ? 8 : 4
                guard range.upperBound - i >= size else { throw fail("\(message).\(field.number): cut short") }
                for k in (0..<size).reversed() { field.integer = field.integer << 8 | UInt64(bytes[i + k]) }
                i += size
            case .len:
                let (length, start) = try varint(at: i, end: range.upperBound, what: "\(message).\(field.number)")
                guard length <= UInt64(range.upperBound - start) else {
                    throw fail("\(message).\(field.number): length \(length) runs past the end of its message")
                }
                field.range = start..<(start + Int(length))
                i = field.range.upperBound
            case .sgroup:
                i = try skipGroup(from: i, end: range.upperBound, number: field.number, what: message)
                continue
            case .egroup:
                throw fail("\(message): an end-group (field \(field.number)) without its start")
            }
            out.append(field)
        }
        return out
    }

    /// A varint at `i`: its value and the offset after it.
    func varint(at start: Int, end: Int, what: String) throws -> (UInt64, Int) {
        var value: UInt64 = 0
        var i = start
        for shift in stride(from: 0, to: 70, by: 7) {
            guard i < end else { throw fail("\(what): a varint cut short") }
            let b = bytes[i]
            i += 1
            if shift == 63, b > 1 { throw fail("\(what): a varint past 64 bits") }
            value |= UInt64(b & 0x7F) << UInt64(shift)
            if b & 0x80 == 0 { return (value, i) }
        }
        throw fail("\(what): a varint longer than 10 bytes")
    }

    /// Skips a group's fields up to its end-group, nested groups included (to a depth).
    private func skipGroup(from start: Int, end: Int, number: UInt64, what: String) throws -> Int {
        var open: [UInt64] = [number]
        var i = start
        while let top = open.last {
            guard open.count <= Self.maxGroupDepth else { throw fail("\(what): groups nested too deep") }
            let (key, after) = try varint(at: i, end: end, what: what)
            i = after
            switch key & 7 {
            case 0: (_, i) = try varint(at: i, end: end, what: what)
            case 1, 5:
                let size = key & 7 == 1 ? 8 : 4
                guard end - i >= size else { throw fail("\(what): cut short in a group") }
                i += size
            case 2:
                let (length, s) = try varint(at: i, end: end, what: what)
                guard length <= UInt64(end - s) else { throw fail("\(what): a length past the end in a group") }
                i = s + Int(length)
            case 3: open.append(key >> 3)
            case 4:
                guard key >> 3 == top else { throw fail("\(what): group \(top) ended by field \(key >> 3)") }
                open.removeLast()
            default: throw fail("\(what): wire type \(key & 7) in a group")
            }
        }
        return i
    }

    func string(_ field: Field) -> String { String(decoding: bytes[field.range], as: UTF8.self) }

    func fail(_ message: String) -> SymbolicateError {
        SymbolicateError(.badInput, "malformed PLCrashReporter report: \(message)")
    }
}
