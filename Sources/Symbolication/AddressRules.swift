// The address rule that does not depend on symbols: how arm64e pointer-authentication bits are
// removed (which image a frame belongs to is ImageMap's rule, in the model). The code sits in the
// bits above the virtual-address bits, whose width depends on the OS (47 bits on macOS, 39 on
// iOS, 36 on older devices), and bit 55, which it never covers, says which half of the address
// space the pointer is in: clear for user space, whose stripped addresses have the bits above
// cleared, set for the kernel's, whose have them set (as the XPAC instruction strips them). An
// address some image of the report already holds is left alone; otherwise the widest address
// width that lands it inside an image is the one kept.

import SymbolicateModel

enum AddressRules {
    /// Virtual-address widths, widest first.
    static let addressMasks: [UInt64] = [0x0000_7FFF_FFFF_FFFF, 0x0000_007F_FFFF_FFFF, 0x0000_000F_FFFF_FFFF]
    /// Set in kernel pointers, clear in user-space ones, signed or not.
    static let kernelHalf: UInt64 = 1 << 55

    /// `address` without pointer-authentication bits. An address an image holds comes back
    /// unchanged; one no width places in an image keeps 47 bits of address.
    static func stripPointerAuthentication(_ address: UInt64, images: ImageMap) -> UInt64 {
        if images.index(containing: address) != nil { return address }
        let isKernel = address & kernelHalf != 0
        func stripped(_ mask: UInt64) -> UInt64 { isKernel ? address | ~mask : address & mask }
        for mask in addressMasks {
            let candidate = stripped(mask)
            if candidate != address, images.index(containing: candidate) != nil { return candidate }
        }
        return stripped(addressMasks[0])
    }

    /// Where the call that returns to `address` is looked up: one byte back (inside the call on
    /// x86, whose instructions have any length, and on arm64, whose have 4 bytes); on 32-bit ARM,
    /// whose return addresses carry the Thumb bit and whose calls are 2 or 4 bytes long, the even
    /// address 2 bytes back (as PLCrashReporter's and Sentry's heuristics have it).
    static func callSite(ofReturnAddress address: UInt64, arch: Arch) -> UInt64 {
        callSite(ofReturnAddress: address, is32BitARM: arch.is32BitARM)
    }

    /// `callSite(ofReturnAddress:arch:)` with the arch's kind at hand (asked once per image).
    static func callSite(ofReturnAddress address: UInt64, is32BitARM: Bool) -> UInt64 {
        guard is32BitARM else { return address > 0 ? address - 1 : address }
        let aligned = address & ~1
        return aligned >= 2 ? aligned - 2 : aligned
    }
}
