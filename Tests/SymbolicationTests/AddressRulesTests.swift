// Pointer-authentication bits: arm64e signs return addresses by putting a code in the bits above
// the virtual-address bits, whose width is the OS's (39 bits on iOS, 47 on macOS), and bit 55
// says which half of the address space the pointer is in (set for the kernel's). Stripping must
// find the image the address belongs to whatever the width, and must not damage an address that
// is already canonical, kernel addresses included.

import SymbolicateModel
import Testing

@testable import Symbolication

struct AddressRulesTests {
    static let app = BinaryImage(loadAddress: 0x1_02BC_4000, size: 0x10000, name: "App")
    static let kernel = BinaryImage(loadAddress: 0xFFFF_FE00_0700_4000, size: 0x100_0000, name: "kernel")
    static let x86Kernel = BinaryImage(loadAddress: 0xFFFF_FF80_0020_0000, size: 0x100_0000, name: "mach_kernel")

    func strip(_ address: UInt64, _ images: [BinaryImage] = [app, kernel, x86Kernel]) -> UInt64 {
        AddressRules.stripPointerAuthentication(address, images: ImageMap(images))
    }

    @Test func canonicalAddressesStayAsTheyAre() {
        #expect(strip(0x1_02BC_80E0) == 0x1_02BC_80E0)
        #expect(strip(0xFFFF_FE00_0700_5000) == 0xFFFF_FE00_0700_5000)
        #expect(strip(0xFFFF_FF80_0021_0C20) == 0xFFFF_FF80_0021_0C20)
    }

    @Test func codesAboveBit47AreRemoved() {
        #expect(strip(0x1E00_0001_02BC_8120) == 0x1_02BC_8120)
        #expect(strip(0x0023_8001_02BC_8120) == 0x1_02BC_8120)
    }

    /// With a 39-bit address space the code starts at bit 39: a signed address can stay below
    /// 2^47 and still be outside every image until the bits above 39 are cleared.
    @Test func codesBelowBit47AreRemovedWhenTheAddressSpaceIsNarrower() {
        #expect(strip(0x3E01_02BC_80E0) == 0x1_02BC_80E0)
        #expect(strip(0x0000_0F81_02BC_80E0, [Self.app]) == 0x1_02BC_80E0)
    }

    /// A kernel pointer (bit 55 set) is stripped by setting the bits above the address, not by
    /// clearing them.
    @Test func kernelPointersAreStrippedToTheKernelHalf() {
        #expect(strip(0x8EAD_FE00_0700_5000) == 0xFFFF_FE00_0700_5000)
    }

    /// An address no image holds keeps today's answer: user addresses lose the bits above 47,
    /// a kernel address keeps its own.
    @Test func addressesInNoImage() {
        #expect(strip(0x1E00_0000_0000_1000, [Self.app]) == 0x1000)
        #expect(strip(0xFFFF_FE00_0000_1000, [Self.app]) == 0xFFFF_FE00_0000_1000)
    }
}
