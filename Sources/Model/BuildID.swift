// BuildID: the identity of one build of one binary: a Mach-O LC_UUID (16 bytes) or an ELF
// build-id note (any length). Reports spell it three ways (`82d13d98219e3040b62a07a297007a7c`,
// `82D13D98-219E-3040-B62A-07A297007A7C`, lowercase with dashes); all parse to the same value.

public struct BuildID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses 32 hex digits with or without dashes (UUID), or any even number of hex digits
    /// (ELF build id). Returns nil for anything else.
    public init?(string: some StringProtocol) {
        self.init(hex: Array(string.utf8)[...])
    }

    /// `init(string:)` of the UTF-8 text `hex` (a non-ASCII byte is no hex digit, as a
    /// non-ASCII character is not); the report parsers read ids from their bytes with it.
    public init?(hex: ArraySlice<UInt8>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(hex.count / 2, 64))
        var high: UInt8? = nil
        for byte in hex {
            if byte == UInt8(ascii: "-") { continue }
            guard let nibble = ASCII.hexDigitValue(byte) else { return nil }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil, !bytes.isEmpty, bytes.count <= 64 else { return nil }
        self.bytes = bytes
    }

    /// A report's id for an image: as `init(string:)`, but nil for the null UUID (all zeros),
    /// which Apple writes for an image it does not know (`??? (*) <00000000-…> ???`, an `.ips`
    /// absolute image). No build has it, so it is no id: such an image is never missing a dSYM.
    public init?(reported string: some StringProtocol) {
        self.init(reportedHex: Array(string.utf8)[...])
    }

    /// `init(reported:)` of the UTF-8 text `hex`.
    public init?(reportedHex hex: ArraySlice<UInt8>) {
        guard let id = BuildID(hex: hex), id.bytes.contains(where: { $0 != 0 }) else { return nil }
        self = id
    }

    /// Whether the id has a length builds have in practice: 16 bytes (a Mach-O UUID, an ELF
    /// `--build-id=md5` or `uuid`), 8 (`fast`, xxHash) or 20 (`sha1`, the default). Any other
    /// length (an `--build-id=0xHEX` picked by hand) is kept, and `list` says it is unusual.
    public var hasUsualLength: Bool { [8, 16, 20].contains(bytes.count) }

    /// `82D13D98-219E-3040-B62A-07A297007A7C` for 16-byte ids, plain uppercase hex otherwise.
    public var uuidString: String {
        guard bytes.count == 16 else { return BuildID.hex(bytes, uppercase: true) }
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, b) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(BuildID.upperDigits[Int(b >> 4)])
            out.append(BuildID.upperDigits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lowercase hex without dashes, as iOS Binary Images lines and file names use it.
    public var compactString: String { BuildID.hex(bytes, uppercase: false) }

    public var description: String { uuidString }

    public static func < (lhs: BuildID, rhs: BuildID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    private static let upperDigits = Array("0123456789ABCDEF".utf8)
    private static let lowerDigits = Array("0123456789abcdef".utf8)

    /// Works on bytes: every report's every image is named by its UUID, and building the string
    /// a Character at a time cost more than the catalog query the UUID is for.
    static func hex(_ bytes: [UInt8], uppercase: Bool) -> String {
        let digits = uppercase ? upperDigits : lowerDigits
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
