// Arch from a Mach-O cpu type and subtype (mach/machine.h), the one rule for every place that
// is given the numbers: Mach-O headers, and crash reports that state them (KSCrash's
// `cpu_type`/`cpu_subtype`). The constants carry machine.h's names.

// swift-format-ignore-file: AlwaysUseLowerCamelCase

extension Arch {
    static let CPU_ARCH_ABI64: UInt64 = 0x0100_0000
    static let CPU_ARCH_ABI64_32: UInt64 = 0x0200_0000
    public static let CPU_TYPE_X86: UInt64 = 7
    public static let CPU_TYPE_ARM: UInt64 = 12
    static let CPU_SUBTYPE_MASK: UInt64 = 0xff00_0000
    static let CPU_SUBTYPE_ARM64E: UInt64 = 2
    static let CPU_SUBTYPE_X86_64_H: UInt64 = 8
    static let CPU_SUBTYPE_ARM_V6: UInt64 = 6
    static let CPU_SUBTYPE_ARM_V7F: UInt64 = 10
    static let CPU_SUBTYPE_ARM_V7S: UInt64 = 11
    static let CPU_SUBTYPE_ARM_V7K: UInt64 = 12
    static let CPU_SUBTYPE_ARM_V6M: UInt64 = 14
    static let CPU_SUBTYPE_ARM_V7M: UInt64 = 15
    static let CPU_SUBTYPE_ARM_V7EM: UInt64 = 16

    /// The arch of `cpuType`/`cpuSubtype`; an unknown pair is named `cpu-TYPE-SUBTYPE`.
    public init(cpuType: UInt64, cpuSubtype: UInt64) {
        let sub = cpuSubtype & ~Self.CPU_SUBTYPE_MASK
        switch cpuType {
        case Self.CPU_TYPE_ARM | Self.CPU_ARCH_ABI64: self = sub == Self.CPU_SUBTYPE_ARM64E ? .arm64e : .arm64
        case Self.CPU_TYPE_ARM | Self.CPU_ARCH_ABI64_32: self = .arm64_32
        case Self.CPU_TYPE_X86 | Self.CPU_ARCH_ABI64: self = sub == Self.CPU_SUBTYPE_X86_64_H ? .x86_64h : .x86_64
        case Self.CPU_TYPE_X86: self = .i386
        case Self.CPU_TYPE_ARM:
            switch sub {
            case Self.CPU_SUBTYPE_ARM_V6: self = .armv6
            case Self.CPU_SUBTYPE_ARM_V7S: self = .armv7s
            case Self.CPU_SUBTYPE_ARM_V7K: self = .armv7k
            case Self.CPU_SUBTYPE_ARM_V7F: self = Arch("armv7f")
            case Self.CPU_SUBTYPE_ARM_V6M: self = Arch("armv6m")
            case Self.CPU_SUBTYPE_ARM_V7M: self = Arch("armv7m")
            case Self.CPU_SUBTYPE_ARM_V7EM: self = Arch("armv7em")
            default: self = .armv7
            }
        default: self = Arch("cpu-\(cpuType)-\(sub)")
        }
    }
}
