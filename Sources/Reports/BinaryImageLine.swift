// BinaryImageLine: parses one line of a text report's `Binary Images:` section in the iOS
// form `0xLO - 0xHI Name arch <uuid32hex> /path`, the macOS form `0xLO - 0xHI +Name (ver)
// <UUID-WITH-DASHES> /path`, macOS 12's `Name (*) <uuid> /path`, and the older mixes of both
// (`Name x86_64 (1.0 - 1)`, `+bundle.id (x86_64)`). Names may hold spaces. Spindump marks the
// kernel's images with `*` before the load address and writes `???` for an end address it does
// not know (the image then has no size).

import SymbolicateModel

enum BinaryImageLine {
    static let archNames: Set<String> = [
        "arm64", "arm64e", "arm64_32", "x86_64", "x86_64h", "i386", "armv7", "armv7s", "armv7k", "armv6", "armv6m",
        "armv7m", "armv7em", "arm", "ppc", "ppc64",
    ]

    static func isArchName(_ s: String) -> Bool { archNames.contains(s) }

    static func parse(_ bytes: [UInt8], _ line: Range<Int>) -> BinaryImage? {
        guard let t0 = ByteText.nextToken(bytes, line),
            let t1 = ByteText.nextToken(bytes, t0.upperBound..<line.upperBound),
            let t2 = ByteText.nextToken(bytes, t1.upperBound..<line.upperBound)
        else { return nil }
        let tokens = (t0, t1, t2)
        guard tokens.1.count == 1, bytes[tokens.1.lowerBound] == UInt8(ascii: "-") else {
            return nil
        }
        var low = tokens.0
        if bytes[low.lowerBound] == UInt8(ascii: "*") { low = (low.lowerBound + 1)..<low.upperBound }
        guard let lo = ByteText.hexAddress(bytes, low) else { return nil }
        let hi = ByteText.hexAddress(bytes, tokens.2)
        guard hi != nil || bytes[tokens.2].elementsEqual("???".utf8) else { return nil }
        let rest = ByteText.trim(bytes, tokens.2.upperBound..<line.upperBound)
        guard !rest.isEmpty else { return nil }
        var head = rest
        var uuid: BuildID? = nil
        var path: String? = nil
        if let open = bytes[rest].firstIndex(of: UInt8(ascii: "<")),
            let close = bytes[open..<rest.upperBound].firstIndex(of: UInt8(ascii: ">"))
        {
            uuid = BuildID(reportedHex: bytes[(open + 1)..<close])
            let after = ByteText.trim(bytes, (close + 1)..<rest.upperBound)
            path = after.isEmpty ? nil : ByteText.string(bytes, after)
            head = ByteText.trim(bytes, rest.lowerBound..<open)
        } else {
            // No UUID: the path starts at the first ` /`.
            var k = rest.lowerBound
            while k + 1 < rest.upperBound, !(bytes[k] == 0x20 && bytes[k + 1] == UInt8(ascii: "/")) { k += 1 }
            if k + 1 < rest.upperBound {
                path = ByteText.string(bytes, ByteText.trim(bytes, (k + 1)..<rest.upperBound))
                head = ByteText.trim(bytes, rest.lowerBound..<k)
            }
        }
        var marked = false
        var version: String? = nil
        var arch: Arch? = nil
        if let first = head.first, bytes[first] == UInt8(ascii: "+") {
            marked = true
            head = (first + 1)..<head.upperBound
        }
        if let last = head.last, bytes[last] == UInt8(ascii: ")"),
            let open = bytes[head].lastIndex(of: UInt8(ascii: "("))
        {
            let inner = ByteText.string(bytes, (open + 1)..<last)
            if inner == "*" {
                marked = true
            } else if isArchName(inner) {
                arch = Arch(inner)
            } else {
                version = inner
            }
            head = ByteText.trim(bytes, head.lowerBound..<open)
        }
        // The arch is the last word after the name, however the gap is spaced (space, tab, U+00A0).
        if let last = ByteText.lastToken(bytes, head), last.lowerBound > head.lowerBound {
            let word = ByteText.string(bytes, last)
            if isArchName(word) {
                arch = Arch(word)
                head = ByteText.trim(bytes, head.lowerBound..<last.lowerBound)
            }
        }
        let name = ByteText.string(bytes, ByteText.trim(bytes, head))
        guard !name.isEmpty || path != nil else { return nil }
        let size: UInt64? = hi.flatMap { $0 >= lo && $0 < .max ? $0 - lo + 1 : nil }
        let imageName = name.isEmpty ? (path.flatMap(PathParts.last) ?? "???") : name
        return BinaryImage(
            loadAddress: lo, size: size, name: imageName, arch: arch, uuid: uuid, path: path, version: version,
            isMarked: marked)
    }
}
