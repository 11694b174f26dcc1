// The address rule that does not depend on symbols: how arm64e pointer-authentication bits are
// removed (which image a frame belongs to is ImageMap's rule, in the model). PAC bits sit above the virtual-address bits,
// whose width depends on the OS (36 to 47 bits); the mask kept is the widest one that lands the
// address inside an image of the report.

import SymbolicateModel

enum AddressRules {
    static let addressMasks: [UInt64] = [0x0000_7FFF_FFFF_FFFF, 0x0000_007F_FFFF_FFFF, 0x0000_000F_FFFF_FFFF]

    /// `address` without pointer-authentication bits. Addresses that are already canonical
    /// user-space addresses come back unchanged.
    static func stripPointerAuthentication(_ address: UInt64, images: [BinaryImage]) -> UInt64 {
        guard address > addressMasks[0] else { return address }
        for mask in addressMasks {
            let stripped = address & mask
            if images.contains(where: { $0.contains(stripped) }) { return stripped }
        }
        return address & addressMasks[0]
    }
}
