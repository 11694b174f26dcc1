// One named section of an ELF file, as debuginfod's `/buildid/ID/section/NAME` hands it out: the
// section's bytes as the file holds them (a compressed section stays compressed, as elfutils'
// server sends it). The file is mapped, not read; only the section is copied, and a section
// larger than the caller allows is refused before it is copied. A file that is not ELF, or has
// no such section, or holds only its header (SHT_NOBITS, as a stripped executable's .debug_info
// in a separate debug file does), answers nil: the caller tries the other file.

import SymbolicateModel

public enum ELFSectionReader {
    /// The ELF magic, `\x7fELF` (EI_MAG0 ... EI_MAG3).
    static let magic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]

    /// The bytes of section `name` of the ELF file at `path`, or nil; more than `maxBytes` is a
    /// limit error.
    public static func contents(of name: String, inFileAt path: String, maxBytes: Int) throws -> [UInt8]? {
        let storage = try ByteStorage(path: path)
        let reader = storage.reader()
        guard reader.count > magic.count, let base = reader.pointer,
            Array(UnsafeRawBufferPointer(start: base, count: magic.count)) == magic
        else { return nil }
        let image = try ElfImage(reader, path: path)
        guard let section = image.sections.first(where: { $0.name == name && $0.index != 0 }),
            section.type != ElfSection.typeNobits
        else { return nil }
        guard section.size <= UInt64(maxBytes) else {
            throw SymbolicateError(
                .limit, "section \(name) is \(section.size) bytes, more than the \(maxBytes) sent at once", path: path)
        }
        var bytes = try image.contents(section)
        return try bytes.bytes(bytes.count)
    }
}
