// The Mach-O constants MachO.swift reads, under the names <mach-o/loader.h>, <mach-o/nlist.h>,
// <mach-o/fat.h> and <mach/machine.h> give them, so the reader can be checked against Apple's
// headers line by line.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

// Header magic (MH_MAGIC, FAT_MAGIC, ...) is ContentKind's, which sniffs files by it.

// MARK: File types (loader.h)
let MH_OBJECT: UInt32 = 0x1

// MARK: Load commands (loader.h)
let LC_SEGMENT: UInt32 = 0x1
let LC_SYMTAB: UInt32 = 0x2
let LC_UUID: UInt32 = 0x1b
let LC_SEGMENT_64: UInt32 = 0x19

// MARK: Section attributes (loader.h)
/// The section holds only machine instructions.
let S_ATTR_PURE_INSTRUCTIONS: UInt32 = 0x8000_0000

// MARK: CPU types and subtypes (machine.h)
let CPU_ARCH_ABI64: UInt32 = 0x0100_0000
let CPU_ARCH_ABI64_32: UInt32 = 0x0200_0000
let CPU_TYPE_X86: UInt32 = 7
let CPU_TYPE_ARM: UInt32 = 12
let CPU_TYPE_X86_64: UInt32 = CPU_TYPE_X86 | CPU_ARCH_ABI64
let CPU_TYPE_ARM64: UInt32 = CPU_TYPE_ARM | CPU_ARCH_ABI64
let CPU_TYPE_ARM64_32: UInt32 = CPU_TYPE_ARM | CPU_ARCH_ABI64_32
/// The capability bits in the high byte of a subtype (e.g. CPU_SUBTYPE_PTRAUTH_ABI).
let CPU_SUBTYPE_MASK: UInt32 = 0xff00_0000
let CPU_SUBTYPE_ARM64E: UInt32 = 2
let CPU_SUBTYPE_X86_64_H: UInt32 = 8
let CPU_SUBTYPE_ARM_V6: UInt32 = 6
let CPU_SUBTYPE_ARM_V7F: UInt32 = 10
let CPU_SUBTYPE_ARM_V7S: UInt32 = 11
let CPU_SUBTYPE_ARM_V7K: UInt32 = 12
let CPU_SUBTYPE_ARM_V6M: UInt32 = 14
let CPU_SUBTYPE_ARM_V7M: UInt32 = 15
let CPU_SUBTYPE_ARM_V7EM: UInt32 = 16

// MARK: nlist n_type (nlist.h)
/// Set for symbolic debugging (stab) entries.
let N_STAB: UInt8 = 0xe0
let N_TYPE: UInt8 = 0x0e
/// Defined in section n_sect.
let N_SECT: UInt8 = 0x0e
let N_EXT: UInt8 = 0x01
