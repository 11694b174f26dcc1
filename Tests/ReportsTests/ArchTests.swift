// Arch as reports name it: the `Code Type:` line and an `.ips` `cpuType` ("ARM-64 (Native)",
// "X86-64", "ARM"), and which archs are 32-bit ARM, whose return addresses carry the Thumb bit.

import TestSupport
import Testing

@testable import SymbolicateModel

struct ArchTests {
    @Test(arguments: [
        ("ARM-64 (Native)", Arch.arm64), ("ARM-64E", .arm64e), ("arm64e", .arm64e), ("X86-64 (Translated)", .x86_64),
        ("ARM", .armv7), ("ARMv7s", .armv7s), ("ARM64_32", .arm64_32), ("X86", .i386),
    ])
    func codeTypesName(_ text: String, _ arch: Arch) {
        #expect(Arch(codeType: text) == arch)
    }

    /// The name a code type starts with, read from bytes, as the String reading finds it: the
    /// first piece `split` at `(` gives, trimmed of blanks, uppercased.
    @Test func codeTypeNamesReadAsTheirStringIs() {
        var random = SplitMix64(seed: 0xC0DE)
        let pieces = ["ARM-64", "arm", "64e", " ", "(", ")", "Native", "x86_64", "ı", "é", "ß", "_"]
        for _ in 0..<4000 {
            let text = (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            let expected = (text.split(separator: "(").first.map { $0.trimmingCharacters(in: " ") } ?? "").uppercased()
            #expect(Arch.codeTypeName(text) == expected, "\(text.debugDescription)")
        }
    }

    @Test func unknownCodeTypesNameNothing() {
        #expect(Arch(codeType: "PPC") == nil)
        #expect(Arch(codeType: "") == nil)
    }

    @Test func thirtyTwoBitARM() {
        for arch in [Arch.armv7, .armv7s, .armv7k, .armv6] { #expect(arch.is32BitARM, "\(arch)") }
        for arch in [Arch.arm64, .arm64e, .arm64_32, .x86_64, .i386] { #expect(!arch.is32BitARM, "\(arch)") }
    }
}
