// A minimal streaming JSON writer that keeps keys in the order they are written (Foundation's
// JSONSerialization does not), for outputs people read (`--format json`, API answers, logs),
// and the one place JSON strings are quoted.

public struct JSONWriter: Sendable {
    public private(set) var text = ""
    private var needsComma: [Bool] = [false]

    public init() {}

    public mutating func beginObject(_ key: String? = nil) { open(key, "{") }
    public mutating func endObject() { close("}") }
    public mutating func beginArray(_ key: String? = nil) { open(key, "[") }
    public mutating func endArray() { close("]") }

    public mutating func string(_ key: String?, _ value: String?) {
        guard let value else { return null(key) }
        prefix(key)
        JSONWriter.appendQuoted(value, to: &text)
    }

    public mutating func number<T: BinaryInteger>(_ key: String?, _ value: T?) {
        guard let value else { return null(key) }
        prefix(key)
        text += String(value)
    }

    /// A finite floating-point number (`0.25`, `1e-05`, `3.0`); NaN and the infinities, which
    /// JSON cannot say, are written as null.
    public mutating func decimal(_ key: String?, _ value: Double) {
        guard value.isFinite else { return null(key) }
        prefix(key)
        text += "\(value)"
    }

    public mutating func bool(_ key: String?, _ value: Bool) {
        prefix(key)
        text += value ? "true" : "false"
    }

    public mutating func null(_ key: String?) {
        prefix(key)
        text += "null"
    }

    private mutating func open(_ key: String?, _ bracket: String) {
        prefix(key)
        text += bracket
        needsComma.append(false)
    }

    private mutating func close(_ bracket: String) {
        if needsComma.count > 1 { needsComma.removeLast() }
        text += bracket
    }

    private mutating func prefix(_ key: String?) {
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
        if let key {
            JSONWriter.appendQuoted(key, to: &text)
            text += ":"
        }
    }

    /// `s` as a JSON string literal. Control characters (and DEL) are escaped, so a hostile
    /// value cannot break a line-oriented log.
    public static func quote(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }

    /// `appendQuoted` into bytes (UTF-8).
    public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        var text = ""
        appendQuoted(s, to: &text)
        out.append(contentsOf: text.utf8)
    }

    public static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        // Most strings hold nothing to escape: they go in whole.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
