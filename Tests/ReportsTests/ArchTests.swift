// Arch as reports name it: the `Code Type:` line and an `.ips` `cpuType` ("ARM-64 (Native)",
// "X86-64", "ARM"), and which archs are 32-bit ARM, whose return addresses carry the Thumb bit.

import SymbolicateModel
import Testing

struct ArchTests {
    @Test(arguments: [
        ("ARM-64 (Native)", Arch.arm64), ("ARM-64E", .arm64e), ("arm64e", .arm64e), ("X86-64 (Translated)", .x86_64),
        ("ARM", .armv7), ("ARMv7s", .armv7s), ("ARM64_32", .arm64_32), ("X86", .i386),
    ])
    func codeTypesName(_ text: String, _ arch: Arch) {
        #expect(Arch(codeType: text) == arch)
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
