// ASCII: byte-level rules that readers of several formats share (crash-report text and JSON,
// build ids, S3's percent-encoded keys, addresses in JSON requests), written once here so that
// each format reads its digits the same way.

public enum ASCII {
    /// The value of hex digit `byte` (`0`-`9`, `A`-`F`, `a`-`f`); nil for any other byte.
    @inlinable
    public static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// `value` as reports and JSON answers write an address: `0x` and lowercase hex digits.
    public static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

    /// Appends the decimal digits of `value` to `out` (what `"\(value)"` writes, without a string).
    public static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
        // The highest power of ten not above the value, then one digit per power, most
        // significant first.
        var power: UInt64 = 1
        while power <= value / 10 { power &*= 10 }
        repeat {
            out.append(UInt8(truncatingIfNeeded: value / power % 10) &+ 0x30)
            power /= 10
        } while power > 0
    }

    /// An address or size that a JSON document writes as a number: its digits, or a double with
    /// no fraction below 2^64 (`4.3e9`); nil for anything else.
    public static func unsignedInteger(number text: String) -> UInt64? {
        if let value = UInt64(text) { return value }
        guard let d = Double(text), d >= 0, d < 18_446_744_073_709_551_616.0, d == d.rounded() else { return nil }
        return UInt64(d)
    }

    /// An address or size that a JSON document writes as a string: hex digits after `0x` or `0X`,
    /// else decimal digits; nil for anything else.
    public static func unsignedInteger(string text: some StringProtocol) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    /// `text` with every byte percent-encoded (`%2F`, uppercase hex) but RFC 3986's unreserved
    /// characters (letters, digits, `-`, `.`, `_`, `~`) and the bytes in `keeping`. Bytes, not
    /// characters: a non-ASCII character is each of its UTF-8 bytes encoded. A String, not any
    /// StringProtocol: a generic function called from another module runs unspecialized, and
    /// its first call looks the collection's associated types up at run time (0.1 M instructions).
    public static func percentEncoded(_ text: String, keeping: Set<UInt8> = []) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || keeping.contains(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986's unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~".
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5a, 0x61...0x7a, 0x30...0x39: return true
        case 0x2d, 0x2e, 0x5f, 0x7e: return true
        default: return false
        }
    }
}
