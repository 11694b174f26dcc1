// What ObjectSlice asks of a Mach-O or an ELF reader, named once: the build's identity (build id,
// arch, __TEXT or executable segment), whether the file is linked at all, and its DWARF sections
// and symbol table. A slice's BuildInfo and its symbol table are then made by one piece of code
// whatever the format.

import SymbolicateModel

protocol ObjectFileReader {
    /// LC_UUID's bytes, or the NT_GNU_BUILD_ID note's; nil when the file has none.
    var buildIDBytes: [UInt8]? { get }
    var arch: Arch { get }
    var textAddress: UInt64 { get }
    var textSize: UInt64 { get }
    var hasDebugInfo: Bool { get }
    /// A relocatable object (MH_OBJECT, ET_REL): its addresses are not yet those of any image.
    var isRelocatable: Bool { get }
    var is64: Bool { get }
    /// The DWARF sections under their `.debug_` names.
    func debugSections() throws -> [String: ByteReader]
    func symbols() throws -> [RawSymbol]
}

extension MachOFile: ObjectFileReader {
    var buildIDBytes: [UInt8]? { uuid }
    var isRelocatable: Bool { fileType == MH_OBJECT }
}

extension ELFFile: ObjectFileReader {
    var buildIDBytes: [UInt8]? { buildID }
    var isRelocatable: Bool { fileType == ET_REL }
}

extension ObjectSlice.Format {
    var reader: any ObjectFileReader {
        switch self {
        case .machO(let m): return m
        case .elf(let e): return e
        }
    }
}
