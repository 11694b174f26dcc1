// libelf behind one small wrapper: the only file that sees <libelf.h> / <gelf.h>. `ElfImage` is
// an `Elf` handle over bytes already in memory (`elf_memory`), owned by one value that keeps the
// bytes alive and calls `elf_end` when it goes away; section headers, program headers, notes,
// section contents (inflated with `elf_compress` when SHF_COMPRESSED) and symbols come out as
// Swift values and bounds-checked copies. libelf is not documented as safe for one handle used
// from several threads, so a handle is never shared: callers open one per task. `elf_compress`
// rewrites the section header inside the image it was given, so a handle that inflates works on
// its own copy of the bytes, never on storage that other handles read. Every libelf failure is
// thrown as a SymbolicateError naming the file and libelf's own message.

internal import CElf
internal import Compression
import SymbolicateModel

/// One section header, with its name resolved through the section-name string table.
struct ElfSection {
    var index: Int
    var name: String
    var type: UInt32
    var flags: UInt64
    var size: UInt64
    var link: UInt32

    static let typeSymtab = UInt32(SHT_SYMTAB)
    static let typeDynsym = UInt32(SHT_DYNSYM)
    static let typeNobits = UInt32(SHT_NOBITS)
    static let flagExecutable = UInt64(SHF_EXECINSTR)

    var isCompressed: Bool { flags & UInt64(SHF_COMPRESSED) != 0 }
}

/// One entry of `.symtab` / `.dynsym`; `name` is nil when the string table has no such string.
struct ElfSymbol {
    var name: String?
    var info: UInt8
    var sectionIndex: UInt16
    var value: UInt64
    var size: UInt64
}

/// An open libelf handle over `bytes`; one owner, closed in `deinit`.
struct ElfImage: ~Copyable {
    let path: String
    let is64: Bool
    let machine: UInt16
    /// `e_type`: ET_REL, ET_EXEC, ET_DYN, ET_CORE.
    let fileType: UInt16
    /// Every section header, in index order (index 0 is the null section).
    let sections: [ElfSection]
    private let elf: OpaquePointer
    /// Holds the storage libelf reads from for as long as the handle lives.
    private let bytes: ByteReader
    /// True when `bytes` is this handle's own copy, so `elf_compress` may rewrite it.
    private let inflating: Bool

    /// `elf_version` must be called once per process before any other libelf call.
    private static let libraryReady: Bool = elf_version(UInt32(EV_CURRENT)) != UInt32(EV_NONE)

    /// Opens the ELF file in `shared` (named `path` in errors); with `inflating`, over a private
    /// copy of the bytes, so that compressed sections can be read.
    init(_ shared: ByteReader, path: String, inflating: Bool = false) throws {
        guard Self.libraryReady else {
            throw SymbolicateError(.internal, "libelf does not support ELF version \(EV_CURRENT)", path: path)
        }
        guard shared.count > Int(EI_NIDENT), let sharedBase = shared.pointer else {
            throw SymbolicateError(
                .badInput, "corrupt ELF file: \(shared.count) bytes is too short for an ELF header", path: path)
        }
        let bytes =
            inflating
            ? ByteStorage(copying: [UnsafeRawBufferPointer(start: sharedBase, count: shared.count)]).reader() : shared
        guard let base = bytes.pointer else {
            throw SymbolicateError(.internal, "cannot copy the \(shared.count)-byte ELF file", path: path)
        }
        _ = elf_errno()  // a failure reports its own cause, not an earlier one on this thread
        guard
            let elf = elf_memory(UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: CChar.self)), bytes.count)
        else { throw Self.failure("cannot open", path: path) }
        guard elf_kind(elf) == ELF_K_ELF else {
            elf_end(elf)
            throw SymbolicateError(
                .badInput, "corrupt ELF file: unknown class, byte order or version in the identification bytes",
                path: path)
        }
        var ehdr = GElf_Ehdr()
        guard gelf_getehdr(elf, &ehdr) != nil else {
            let error = Self.failure("cannot read the ELF header", path: path)
            elf_end(elf)
            throw error
        }
        do {
            try Self.checkHeaderTables(elf, ehdr, fileSize: UInt64(bytes.count), path: path)
            sections = try Self.readSections(elf, path: path)
        } catch {
            elf_end(elf)
            throw error
        }
        self.elf = elf
        self.bytes = bytes
        self.inflating = inflating
        self.path = path
        self.is64 = gelf_getclass(elf) == ELFCLASS64
        self.machine = ehdr.e_machine
        self.fileType = ehdr.e_type
    }

    deinit { elf_end(elf) }

    private static func failure(_ what: String, path: String) -> SymbolicateError {
        let reason = elf_errmsg(-1).map { String(cString: $0) } ?? "unknown error"
        _ = elf_errno()
        return SymbolicateError(.badInput, "corrupt ELF file: \(what) (libelf: \(reason))", path: path)
    }

    private func failure(_ what: String) -> SymbolicateError { Self.failure(what, path: path) }

    /// libelf reads a section or program header table that does not fit in the file as empty
    /// (or shorter); such a file is corrupt, as are entry sizes other than the format's.
    private static func checkHeaderTables(_ elf: OpaquePointer, _ ehdr: GElf_Ehdr, fileSize: UInt64, path: String)
        throws
    {
        func corrupt(_ what: String) -> SymbolicateError {
            SymbolicateError(.badInput, "corrupt ELF file: \(what)", path: path)
        }
        /// One table: its entries have the format's size, and as many as it holds fit in the file.
        func check(
            _ what: String, type: Elf_Type, offset: UInt64, entrySize: UInt16, count: () throws -> UInt64
        ) throws {
            let entry = UInt64(gelf_fsize(elf, type, 1, UInt32(EV_CURRENT)))
            guard entry > 0 else { throw failure("cannot size the \(what)s", path: path) }
            guard UInt64(entrySize) == entry else {
                throw corrupt("\(what) entries of \(entrySize) bytes (the format's are \(entry))")
            }
            let claimed = try count()
            guard offset <= fileSize, claimed <= (fileSize - offset) / entry else {
                throw corrupt("\(claimed) \(what)s at offset \(offset) do not fit in the \(fileSize)-byte file")
            }
        }
        if ehdr.e_shoff != 0 {
            try check("section header", type: ELF_T_SHDR, offset: ehdr.e_shoff, entrySize: ehdr.e_shentsize) {
                var count = 0
                guard elf_getshdrnum(elf, &count) == 0 else {
                    throw failure("cannot count the section headers", path: path)
                }
                return max(UInt64(ehdr.e_shnum), UInt64(count), 1)
            }
        }
        if ehdr.e_phoff != 0, ehdr.e_phnum != 0 {
            try check("program header", type: ELF_T_PHDR, offset: ehdr.e_phoff, entrySize: ehdr.e_phentsize) {
                var count = Int(ehdr.e_phnum)
                if ehdr.e_phnum == UInt16(PN_XNUM) {
                    guard elf_getphdrnum(elf, &count) == 0 else {
                        throw failure("cannot count the program headers", path: path)
                    }
                }
                return UInt64(count)
            }
        }
    }

    private static func readSections(_ elf: OpaquePointer, path: String) throws -> [ElfSection] {
        var count = 0
        guard elf_getshdrnum(elf, &count) == 0 else { throw failure("cannot count the section headers", path: path) }
        guard count > 0 else { return [] }
        var namesIndex = 0
        guard elf_getshdrstrndx(elf, &namesIndex) == 0 else {
            throw failure("cannot find the section-name table", path: path)
        }
        var out = [ElfSection(index: 0, name: "", type: UInt32(SHT_NULL), flags: 0, size: 0, link: 0)]
        out.reserveCapacity(count)
        var scn = elf_nextscn(elf, nil)
        while let s = scn {
            var shdr = GElf_Shdr()
            guard gelf_getshdr(s, &shdr) != nil else {
                throw failure("cannot read section header \(out.count)", path: path)
            }
            let index = elf_ndxscn(s)
            guard index == out.count else { throw failure("section headers out of order at \(index)", path: path) }
            let name = elf_strptr(elf, namesIndex, Int(shdr.sh_name)).map { String(cString: $0) } ?? ""
            out.append(
                ElfSection(
                    index: index, name: name, type: shdr.sh_type, flags: shdr.sh_flags, size: shdr.sh_size,
                    link: shdr.sh_link))
            scn = elf_nextscn(elf, s)
        }
        _ = elf_errno()  // names missing from the string table are left empty, not failures
        return out
    }

    /// How many program headers the file has (a count past PN_XNUM read from section 0).
    private func programHeaderCount() throws -> Int {
        var count = 0
        guard elf_getphdrnum(elf, &count) == 0 else { throw failure("cannot count the program headers") }
        return count
    }

    private func programHeader(_ index: Int) throws -> GElf_Phdr {
        var phdr = GElf_Phdr()
        guard index <= Int(Int32.max), gelf_getphdr(elf, Int32(index), &phdr) != nil else {
            throw failure("cannot read program header \(index)")
        }
        return phdr
    }

    /// The address of the image's first mapping: the lowest PT_LOAD p_vaddr, rounded down to a
    /// 4 KiB page as the loader maps it. Crash reporters on Linux (the Swift runtime, Breakpad,
    /// Android) give a module's base as the start of that mapping.
    func lowestMapping() throws -> UInt64? {
        var lowest: UInt64?
        for i in 0..<(try programHeaderCount()) {
            let phdr = try programHeader(i)
            guard phdr.p_type == UInt32(PT_LOAD) else { continue }
            if lowest.map({ phdr.p_vaddr < $0 }) ?? true { lowest = phdr.p_vaddr }
        }
        return lowest.map { $0 & ~0xFFF }
    }

    /// The lowest executable PT_LOAD (by address): its address and size in memory.
    func executableSegment() throws -> (address: UInt64, size: UInt64)? {
        var lowest: (address: UInt64, size: UInt64)?
        for i in 0..<(try programHeaderCount()) {
            let phdr = try programHeader(i)
            guard phdr.p_type == UInt32(PT_LOAD), phdr.p_flags & UInt32(PF_X) != 0 else { continue }
            if lowest.map({ phdr.p_vaddr < $0.address }) ?? true { lowest = (phdr.p_vaddr, phdr.p_memsz) }
        }
        return lowest
    }

    /// The NT_GNU_BUILD_ID note ("GNU") of the SHT_NOTE sections, else of the PT_NOTE segments
    /// (files whose section headers were removed).
    func buildID() throws -> [UInt8]? {
        for section in sections where section.type == UInt32(SHT_NOTE) {
            guard let scn = elf_getscn(elf, section.index), let data = elf_getdata(scn, nil) else {
                throw failure("cannot read note section \(section.name)")
            }
            if let id = try buildID(in: data, what: "note section \(section.name)") { return id }
        }
        for i in 0..<(try programHeaderCount()) {
            let phdr = try programHeader(i)
            guard phdr.p_type == UInt32(PT_NOTE), phdr.p_offset <= UInt64(Int64.max), phdr.p_filesz <= UInt64(Int.max)
            else { continue }
            let type = phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR
            guard let data = elf_getdata_rawchunk(elf, Int64(phdr.p_offset), Int(phdr.p_filesz), type) else {
                _ = elf_errno()  // a note segment outside the file: the sections were the real source
                continue
            }
            if let id = try buildID(in: data, what: "note segment \(i)") { return id }
        }
        return nil
    }

    private func buildID(in data: UnsafeMutablePointer<Elf_Data>, what: String) throws -> [UInt8]? {
        let size = data.pointee.d_size
        guard size > 0 else { return nil }
        guard let buf = data.pointee.d_buf else { throw failure("\(what) has no data") }
        var offset = 0
        while offset < size {
            var nhdr = GElf_Nhdr()
            var nameOffset = 0
            var descOffset = 0
            let next = gelf_getnote(data, offset, &nhdr, &nameOffset, &descOffset)
            guard next > offset else {
                throw SymbolicateError(
                    .badInput, "corrupt ELF file: malformed note at offset \(offset) of \(what)", path: path)
            }
            let nameSize = Int(nhdr.n_namesz)
            let descSize = Int(nhdr.n_descsz)
            guard nameOffset <= size, nameSize <= size - nameOffset, descOffset <= size, descSize <= size - descOffset
            else {
                throw SymbolicateError(
                    .badInput, "corrupt ELF file: note at offset \(offset) of \(what) overruns it", path: path)
            }
            let name = UnsafeRawBufferPointer(start: buf + nameOffset, count: nameSize)
            if nhdr.n_type == UInt32(NT_GNU_BUILD_ID), name.elementsEqual("GNU\0".utf8) {
                return Array(UnsafeRawBufferPointer(start: buf + descOffset, count: descSize))
            }
            offset = next
        }
        return nil
    }

    /// The section's bytes (a window of the file's bytes when libelf reads them in place, else a
    /// copy); SHF_COMPRESSED sections are inflated by libelf first (zstd
    /// ones by Zstd), after their header's claimed size is checked against Zlib's limits. SHT_NOBITS sections are empty.
    func contents(_ section: ElfSection) throws -> ByteReader {
        guard section.type != ElfSection.typeNobits else { return ByteStorage(bytes: []).reader() }
        guard let scn = elf_getscn(elf, section.index) else { throw failure("cannot find section \(section.name)") }
        var shdr = GElf_Shdr()
        guard gelf_getshdr(scn, &shdr) != nil else {
            throw failure("cannot read the header of section \(section.name)")
        }
        var limit = bytes.count
        if shdr.sh_flags & UInt64(SHF_COMPRESSED) != 0 {
            guard inflating else {
                throw SymbolicateError(
                    .internal,
                    "section \(section.name) is compressed but the ELF file was opened without a copy to inflate in",
                    path: path)
            }
            var chdr = GElf_Chdr()
            guard gelf_getchdr(scn, &chdr) != nil else {
                throw failure("cannot read the compression header of \(section.name)")
            }
            if chdr.ch_type == Self.ELFCOMPRESS_ZSTD { return try zstdContents(scn, section, size: chdr.ch_size) }
            guard chdr.ch_type == UInt32(ELFCOMPRESS_ZLIB) else {
                throw SymbolicateError(
                    .badInput, "corrupt ELF file: section \(section.name) uses unsupported compression \(chdr.ch_type)",
                    path: path)
            }
            guard chdr.ch_size <= UInt64(Zlib.maxOutput), chdr.ch_size <= max(section.size, 1) * UInt64(Zlib.maxRatio)
            else {
                throw SymbolicateError(
                    .badInput,
                    "corrupt ELF file: section \(section.name) claims an implausible inflated size of \(chdr.ch_size) bytes",
                    path: path)
            }
            guard elf_compress(scn, 0, 0) >= 0 else { throw failure("cannot inflate section \(section.name)") }
            limit = Int(chdr.ch_size)
        }
        guard var data = elf_getdata(scn, nil) else { throw failure("cannot read section \(section.name)") }
        var chunks: [UnsafeRawBufferPointer] = []
        var total = 0
        while true {
            let size = data.pointee.d_size
            guard size <= limit - total else {
                throw SymbolicateError(
                    .badInput, "corrupt ELF file: section \(section.name) is larger than \(limit) bytes", path: path)
            }
            if size > 0 {
                guard let buf = data.pointee.d_buf else { throw failure("section \(section.name) has no data") }
                chunks.append(UnsafeRawBufferPointer(start: buf, count: size))
                total += size
            }
            guard let next = elf_getdata(scn, data) else { break }
            data = next
        }
        // A section libelf hands back in place (uncompressed, in the host's byte order: its data
        // points into the file's bytes) is a window of those bytes, not a copy: the DWARF of a
        // large ELF file is then in memory once. Anything else (inflated, converted) is copied
        // out of libelf's buffers, which go with the Elf handle.
        if chunks.count == 1, let base = bytes.pointer, let start = chunks[0].baseAddress, start >= base,
            start + chunks[0].count <= base + bytes.count
        {
            var window = try bytes.sub(start - base, chunks[0].count)
            window.bigEndian = false
            return window
        }
        return ByteStorage(copying: chunks).reader()
    }

    /// The gABI's ELFCOMPRESS_ZSTD, which libelf 0.188's headers do not name.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    static let ELFCOMPRESS_ZSTD: UInt32 = 2

    /// A SHF_COMPRESSED section in zstd, which libelf cannot decompress: its raw bytes after the
    /// compression header (Elf32_Chdr or Elf64_Chdr), decompressed by Zstd to exactly `size` bytes.
    private func zstdContents(_ scn: OpaquePointer, _ section: ElfSection, size: UInt64) throws -> ByteReader {
        guard let raw = elf_rawdata(scn, nil), let buf = raw.pointee.d_buf else {
            throw failure("cannot read section \(section.name)")
        }
        let header = is64 ? MemoryLayout<Elf64_Chdr>.size : MemoryLayout<Elf32_Chdr>.size
        guard raw.pointee.d_size > header else {
            throw SymbolicateError(
                .badInput, "corrupt ELF file: section \(section.name) ends inside its compression header", path: path)
        }
        let input = UnsafeRawBufferPointer(start: buf + header, count: raw.pointee.d_size - header)
        do {
            return ByteStorage(bytes: try Zstd.decompress(input, expectedSize: size)).reader()
        } catch {
            throw SymbolicateError(.badInput, "corrupt ELF file: section \(section.name): \(error.message)", path: path)
        }
    }

    /// Every entry of a SHT_SYMTAB / SHT_DYNSYM section, names read through its linked string table.
    func symbols(in table: ElfSection) throws -> [ElfSymbol] {
        guard table.type != ElfSection.typeNobits else { return [] }
        guard let scn = elf_getscn(elf, table.index), let data = elf_getdata(scn, nil) else {
            throw failure("cannot read symbol table \(table.name)")
        }
        let entrySize = gelf_fsize(elf, ELF_T_SYM, 1, UInt32(EV_CURRENT))
        guard entrySize > 0 else { throw failure("cannot size the symbols of \(table.name)") }
        let count = min(data.pointee.d_size / entrySize, Int(Int32.max))
        guard count == 0 || data.pointee.d_buf != nil else { throw failure("symbol table \(table.name) has no data") }
        var out: [ElfSymbol] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            var sym = GElf_Sym()
            guard gelf_getsym(data, Int32(i), &sym) != nil else {
                throw failure("cannot read symbol \(i) of \(table.name)")
            }
            let name = elf_strptr(elf, Int(table.link), Int(sym.st_name)).map { String(cString: $0) }
            out.append(
                ElfSymbol(
                    name: name, info: sym.st_info, sectionIndex: sym.st_shndx, value: sym.st_value, size: sym.st_size))
        }
        _ = elf_errno()  // names missing from the string table are skipped, not failures
        return out
    }
}
