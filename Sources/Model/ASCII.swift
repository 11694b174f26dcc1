// ASCII: byte-level rules that readers of several formats share (crash-report text and JSON,
// build ids, S3's percent-encoded keys), written once here so that each format reads its digits
// the same way.

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
}
