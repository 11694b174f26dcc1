// Arch: a CPU architecture as reports and Mach-O files name it (arm64, arm64e, x86_64, ...).
// A struct around the name rather than an enum: reports carry names we have never seen, and
// those must survive a round trip.

public struct Arch: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { self.rawValue = name }

    public static let arm64 = Arch("arm64")
    public static let arm64e = Arch("arm64e")
    // Apple's own names for these archs, as reports and dSYMs spell them.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let arm64_32 = Arch("arm64_32")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let x86_64 = Arch("x86_64")
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let x86_64h = Arch("x86_64h")
    public static let i386 = Arch("i386")
    public static let armv7 = Arch("armv7")
    public static let armv7s = Arch("armv7s")
    public static let armv7k = Arch("armv7k")
    public static let armv6 = Arch("armv6")

    public var description: String { rawValue }

    /// 32-bit ARM (ARM and Thumb code): return addresses carry the Thumb bit, and instructions
    /// are 2 or 4 bytes long.
    public var is32BitARM: Bool { self == .armv7 || self == .armv7s || self == .armv7k || self == .armv6 }

    /// True when a symbol file built for `other` can symbolicate an image of this arch
    /// (arm64e code is commonly shipped with arm64 dSYM slices of the same UUID).
    public func isCompatible(with other: Arch) -> Bool {
        if self == other { return true }
        let family: Set<Arch> = [.arm64, .arm64e]
        return family.contains(self) && family.contains(other)
    }

    /// The arch named by a report's `Code Type:` value (`ARM-64 (Native)`, `X86-64`, `ARM`, ...).
    public init?(codeType: String) {
        guard let arch = Arch.codeTypes[Arch.codeTypeName(codeType)] else { return nil }
        self = arch
    }

    /// The archs `Code Type` names, by the name uppercased (one hash, where a switch over
    /// the names compared them one by one).
    static let codeTypes: [String: Arch] = [
        "ARM-64": .arm64, "ARM64": .arm64, "ARM64E": .arm64e, "ARM-64E": .arm64e, "ARM64_32": .arm64_32,
        "X86-64": .x86_64, "X86_64": .x86_64, "X86": .i386, "I386": .i386, "ARM": .armv7, "ARMV7": .armv7,
        "ARMV7S": .armv7s,
    ]

    /// The name a `Code Type` value starts with, uppercased: the text before its first `(`
    /// (after any at its start), without the blanks around it. ASCII text is read as bytes;
    /// other text as Strings (`uppercased` may make ASCII of it).
    static func codeTypeName(_ codeType: String) -> String {
        guard codeType.utf8.allSatisfy({ $0 < 0x80 }) else {
            let t = codeType.split(separator: "(").first.map { $0.trimmingCharacters(in: " ") } ?? ""
            return t.uppercased()
        }
        var name: [UInt8] = []
        for b in codeType.utf8 {
            if b == UInt8(ascii: "(") {
                if name.isEmpty { continue }
                break
            }
            name.append(b >= 0x61 && b <= 0x7A ? b - 0x20 : b)
        }
        let trimmed = name.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed()
        return String(decoding: trimmed, as: UTF8.self)
    }

    public static func < (lhs: Arch, rhs: Arch) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension StringProtocol {
    /// Trims the given characters from both ends (Foundation-free).
    public func trimmingCharacters(in set: Set<Character>) -> String {
        var start = startIndex
        var end = endIndex
        while start < end, set.contains(self[start]) { start = index(after: start) }
        while end > start, set.contains(self[index(before: end)]) { end = index(before: end) }
        return String(self[start..<end])
    }

    /// For ASCII `chars` (what every caller trims: blanks, brackets, quotes) the ends are compared
    /// as UTF-8 bytes, without building a set of Characters each call; a report parse trims
    /// thousands of fields. A combining mark after a trimmed ASCII character is not taken as part
    /// of it there.
    public func trimmingCharacters(in chars: String) -> String {
        // Most fields have nothing to trim: then the text is answered as it is, without the
        // byte array and index walk below (a report's frames ask this of their image names).
        let whole = Substring(self).utf8
        if let first = whole.first, let last = whole.last, first < 0x80, last < 0x80,
            !chars.utf8.contains(first), !chars.utf8.contains(last), chars.utf8.allSatisfy({ $0 < 0x80 })
        {
            return String(self)
        }
        let trimmed = Array(chars.utf8)
        guard trimmed.allSatisfy({ $0 < 0x80 }) else { return trimmingCharacters(in: Set(chars)) }
        let text = Substring(self)
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, trimmed.contains(bytes[start]) { start = bytes.index(after: start) }
        while end > start, trimmed.contains(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return String(text[start..<end])
    }
}
