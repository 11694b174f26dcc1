// The ELF constants ELF.swift and ObjectFile.swift read, under the names of the System V ABI
// (<elf.h>), for the fields our own code interprets; LibElf.swift reads the rest through libelf.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

// MARK: e_type
let ET_REL: UInt16 = 1

// MARK: e_machine
let EM_386: UInt16 = 3
let EM_ARM: UInt16 = 40
let EM_X86_64: UInt16 = 62
let EM_AARCH64: UInt16 = 183

// MARK: Symbol types (ELF64_ST_TYPE) and bindings (ELF64_ST_BIND)
let STT_NOTYPE: UInt8 = 0
let STT_OBJECT: UInt8 = 1
let STT_FUNC: UInt8 = 2
let STT_FILE: UInt8 = 4
let STT_GNU_IFUNC: UInt8 = 10
let STB_LOCAL: UInt8 = 0

// MARK: Special section indices
let SHN_UNDEF: Int = 0
/// SHN_LORESERVE: indices from here on are reserved (SHN_ABS, SHN_COMMON, ...).
let SHN_LORESERVE: Int = 0xff00
