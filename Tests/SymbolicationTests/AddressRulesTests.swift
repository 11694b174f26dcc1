// Pointer-authentication bits: arm64e signs return addresses by putting a code in the bits above
// the virtual-address bits, whose width is the OS's (39 bits on iOS, 47 on macOS), and bit 55
// says which half of the address space the pointer is in (set for the kernel's). Stripping must
// find the image the address belongs to whatever the width, and must not damage an address that
// is already canonical, kernel addresses included. And a return address is looked up inside the
// call before it: one byte back on x86 and arm64, and on 32-bit ARM, whose return addresses carry
// the Thumb bit and whose calls may be 2 bytes long, at the even address 2 bytes back.

import SymbolicateModel
import Synchronization
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

    /// Answers nothing and remembers the address it was asked about.
    final class Recorder: SymbolSource {
        let build: BuildInfo
        let asked = Mutex<UInt64?>(nil)
        init(_ arch: Arch) {
            build = BuildInfo(
                uuid: BuildID(bytes: [UInt8](repeating: 1, count: 16)), arch: arch, name: "App",
                textVMAddress: 0x4000, textSize: 0x10000, kind: .debugInfo, path: "/App")
        }
        func lookup(_ address: UInt64) -> [SymbolTable.Resolved]? {
            asked.withLock { $0 = address }
            return nil
        }
    }

    func lookedUp(_ offset: UInt64, _ arch: Arch, returnAddress: Bool = true, adjust: Bool = true) -> UInt64? {
        let source = Recorder(arch)
        let symbolicator = Symbolicator(
            locator: SymbolLocatorChain([]), options: SymbolicationOptions(adjustReturnAddresses: adjust))
        _ = symbolicator.lookup(offset, in: source, isReturnAddress: returnAddress)
        return source.asked.withLock { $0 }
    }

    @Test func returnAddressesAreLookedUpInsideTheCall() {
        #expect(lookedUp(0xB6D8, .arm64) == 0xF6D7)
        #expect(lookedUp(0xB6D8, .x86_64) == 0xF6D7)
        // Thumb: the return address of a 4-byte BL at 0xF6D4 is 0xF6D9.
        #expect(lookedUp(0xB6D9, .armv7) == 0xF6D6)
        #expect(lookedUp(0xB6D9, .armv7k) == 0xF6D6)
        // ARM mode, or a 2-byte BLX in Thumb: still inside the call.
        #expect(lookedUp(0xB6D8, .armv7s) == 0xF6D6)
        // The PC and --no-adjust are looked up as they are.
        #expect(lookedUp(0xB6D8, .armv7, returnAddress: false) == 0xF6D8)
        #expect(lookedUp(0xB6D9, .armv7, adjust: false) == 0xF6D9)
    }
}
