// BinaryImageLine: parses one line of a text report's `Binary Images:` section in the iOS
// form `0xLO - 0xHI Name arch <uuid32hex> /path`, the macOS form `0xLO - 0xHI +Name (ver)
// <UUID-WITH-DASHES> /path`, macOS 12's `Name (*) <uuid> /path`, and the older mixes of both
// (`Name x86_64 (1.0 - 1)`, `+bundle.id (x86_64)`). Names may hold spaces.

import SymbolicateModel

enum BinaryImageLine {
    static func isArchName(_ s: Substring) -> Bool {
        let known: Set<Substring> = ["arm64", "arm64e", "arm64_32", "x86_64", "x86_64h", "i386", "armv7", "armv7s",
                                     "armv7k", "armv6", "armv6m", "armv7m", "armv7em", "arm", "ppc", "ppc64"]
        return known.contains(s)
    }

    static func parse(_ bytes: [UInt8], _ line: Range<Int>) -> BinaryImage? {
        let tokens = ByteText.tokens(bytes, line, limit: 4)
        guard tokens.count >= 3, let lo = ByteText.hexAddress(bytes, tokens[0]) else { return nil }
        var hiToken = 2
        if ByteText.string(bytes, tokens[1]) != "-" {
            // `0xLO -0xHI` or `0xLO-0xHI` are not Apple's; only the spaced form is accepted.
            return nil
        }
        guard let hi = ByteText.hexAddress(bytes, tokens[hiToken]) else { return nil }
        hiToken += 1
        let restRange = ByteText.trim(bytes, tokens[hiToken - 1].upperBound..<line.upperBound)
        let rest = ByteText.string(bytes, restRange)
        guard !rest.isEmpty else { return nil }
        var describe = Substring(rest)
        var uuid: BuildID? = nil
        var path: String? = nil
        if let open = describe.firstIndex(of: "<"), let close = describe[open...].firstIndex(of: ">") {
            let inner = describe[describe.index(after: open)..<close]
            uuid = BuildID(string: inner)
            let after = describe[describe.index(after: close)...].trimmingCharacters(in: " \t")
            path = after.isEmpty ? nil : after
            describe = describe[..<open]
        } else if let slash = describe.firstRange(of: " /") {
            path = String(describe[describe.index(after: slash.lowerBound)...])
            describe = describe[..<slash.lowerBound]
        }
        var head = Substring(describe.trimmingCharacters(in: " \t"))
        var marked = false
        var version: String? = nil
        var arch: Arch? = nil
        if head.hasPrefix("+") {
            marked = true
            head = head.dropFirst()
        }
        if head.hasSuffix(")"), let open = head.lastIndex(of: "(") {
            let inner = head[head.index(after: open)..<head.index(before: head.endIndex)]
            if inner == "*" {
                marked = true
            } else if isArchName(inner) {
                arch = Arch(String(inner))
            } else {
                version = String(inner)
            }
            head = Substring(head[..<open].trimmingCharacters(in: " \t"))
        }
        if let space = head.lastIndex(of: " ") {
            let last = head[head.index(after: space)...]
            if isArchName(last) {
                arch = Arch(String(last))
                head = Substring(head[..<space].trimmingCharacters(in: " \t"))
            }
        }
        let name = head.trimmingCharacters(in: " \t")
        guard !name.isEmpty || path != nil else { return nil }
        let size: UInt64? = hi >= lo && hi < .max ? hi - lo + 1 : nil
        let imageName = name.isEmpty ? String(path?.split(separator: "/").last ?? "???") : name
        return BinaryImage(
            loadAddress: lo, size: size, name: imageName, arch: arch, uuid: uuid, path: path, version: version,
            isMarked: marked)
    }
}
