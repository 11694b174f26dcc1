// The ELF reader: header, program headers (lowest executable PT_LOAD, PT_NOTE), section headers
// (names, build-id notes, `.symtab` / `.dynsym`, `.debug_*` sections, inflating compressed ones).
// Parsed by hand with bounds-checked reads rather than through libelf: the format is small, this
// keeps hostile input on the throwing path, and it needs no lock.

import SymbolicateModel

struct ELFSection {
    var nameOffset: UInt32
    var name: String
    var type: UInt32
    var flags: UInt64
    var address: UInt64
    var offset: UInt64
    var size: UInt64
    var link: UInt32
    var entrySize: UInt64
}

struct ELFFile {
    var is64: Bool
    var machine: UInt16
    var sections: [ELFSection] = []
    var buildID: [UInt8]?
    var textAddress: UInt64 = 0
    var textSize: UInt64 = 0
    var data: ByteReader

    init(_ data: ByteReader) throws {
        var r = data
        let ident = try r.bytes(16)
        guard ident[0] == 0x7f, ident[1] == 0x45, ident[2] == 0x4c, ident[3] == 0x46 else {
            throw DecodeError("not an ELF file")
        }
        guard ident[4] == 1 || ident[4] == 2 else { throw DecodeError("unknown ELF class \(ident[4])") }
        guard ident[5] == 1 || ident[5] == 2 else { throw DecodeError("unknown ELF byte order \(ident[5])") }
        is64 = ident[4] == 2
        r.bigEndian = ident[5] == 2
        self.data = data
        self.data.bigEndian = r.bigEndian
        _ = try r.u16()  // e_type
        machine = try r.u16()
        _ = try r.u32()
        _ = try word(&r)  // entry
        let phoff = try word(&r)
        let shoff = try word(&r)
        _ = try r.u32()
        _ = try r.u16()
        let phentsize = Int(try r.u16())
        let phnum = Int(try r.u16())
        let shentsize = Int(try r.u16())
        var shnum = Int(try r.u16())
        var shstrndx = Int(try r.u16())

        try readProgramHeaders(offset: phoff, count: phnum, entrySize: phentsize)

        if shoff != 0 {
            guard shentsize >= (is64 ? 64 : 40) else { throw DecodeError("bad section header size \(shentsize)") }
            if shnum == 0 || shstrndx == 0xffff {
                let first = try sectionHeader(at: shoff, entrySize: shentsize)
                if shnum == 0 { shnum = Int(min(first.size, 1 << 20)) }
                if shstrndx == 0xffff { shstrndx = Int(first.link) }
            }
            guard UInt64(shnum) * UInt64(shentsize) <= UInt64(data.count) else {
                throw DecodeError("\(shnum) section headers cannot fit in the file")
            }
            for i in 0..<shnum {
                sections.append(try sectionHeader(at: shoff &+ UInt64(i * shentsize), entrySize: shentsize))
            }
            if shstrndx < sections.count {
                let names = try self.data.sub(sections[shstrndx].offset, sections[shstrndx].size)
                for i in sections.indices {
                    sections[i].name = (try? names.string(at: Int(sections[i].nameOffset))) ?? ""
                }
            }
            if buildID == nil {
                for s in sections where s.type == 7 && s.name == ".note.gnu.build-id" {
                    buildID = try findBuildID(try self.data.sub(s.offset, s.size))
                }
            }
        }
    }

    private func word(_ r: inout ByteReader) throws -> UInt64 {
        is64 ? try r.u64() : UInt64(try r.u32())
    }

    private func sectionHeader(at offset: UInt64, entrySize: Int) throws -> ELFSection {
        var r = try data.sub(offset, UInt64(entrySize))
        let name = try r.u32()
        let type = try r.u32()
        let flags = try word(&r)
        let addr = try word(&r)
        let off = try word(&r)
        let size = try word(&r)
        let link = try r.u32()
        _ = try r.u32()
        _ = try word(&r)
        let entsize = try word(&r)
        return ELFSection(nameOffset: name, name: "", type: type, flags: flags, address: addr, offset: off, size: size, link: link, entrySize: entsize)
    }

    private mutating func readProgramHeaders(offset: UInt64, count: Int, entrySize: Int) throws {
        guard offset != 0, count > 0 else { return }
        guard entrySize >= (is64 ? 56 : 32) else { throw DecodeError("bad program header size \(entrySize)") }
        var lowest: (UInt64, UInt64)?
        for i in 0..<count {
            var r = try data.sub(offset &+ UInt64(i * entrySize), UInt64(entrySize))
            let type = try r.u32()
            var flags: UInt32 = 0
            if is64 { flags = try r.u32() }
            let off = try word(&r)
            let vaddr = try word(&r)
            _ = try word(&r)
            let filesz = try word(&r)
            let memsz = try word(&r)
            if !is64 { flags = try r.u32() }
            if type == 1, flags & 1 != 0, lowest.map({ vaddr < $0.0 }) ?? true { lowest = (vaddr, memsz) }
            if type == 4, buildID == nil, let notes = try? data.sub(off, filesz) {
                buildID = try findBuildID(notes)
            }
        }
        if let lowest {
            textAddress = lowest.0
            textSize = lowest.1
        }
    }

    private func findBuildID(_ notes: ByteReader) throws -> [UInt8]? {
        var r = notes
        while r.remaining >= 12 {
            let namesz = Int(try r.u32())
            let descsz = Int(try r.u32())
            let type = try r.u32()
            let name = try r.bytes(namesz)
            try r.skip((4 - namesz % 4) % 4)
            let desc = try r.bytes(descsz)
            try r.skip(min((4 - descsz % 4) % 4, r.remaining))
            if type == 3, name.starts(with: [0x47, 0x4e, 0x55]) { return desc }
        }
        return nil
    }

    var arch: Arch {
        switch machine {
        case 62: return .x86_64
        case 183: return Arch("aarch64")
        case 3: return .i386
        case 40: return Arch("arm")
        default: return Arch("elf-machine-\(machine)")
        }
    }

    var hasDebugInfo: Bool {
        sections.contains { ($0.name == ".debug_info" || $0.name == ".zdebug_info") && $0.size > 0 && $0.type != 8 }
    }

    /// The contents of a section, inflated when it is compressed.
    func contents(_ s: ELFSection) throws -> ByteReader {
        guard s.type != 8 else { return try data.sub(0, 0) }  // SHT_NOBITS
        var raw = try data.sub(s.offset, s.size)
        if s.flags & 0x800 != 0 {  // SHF_COMPRESSED
            let type = try raw.u32()
            if is64 { _ = try raw.u32() }
            let size = try word(&raw)
            _ = try word(&raw)
            guard type == 1 else { throw DecodeError("section \(s.name) uses unsupported compression \(type)") }
            let bytes = try Zlib.inflate(try raw.sub(raw.offset, raw.remaining), expectedSize: size)
            return ByteStorage(bytes: bytes).reader()
        }
        if s.name.hasPrefix(".zdebug_") {
            let magic = try raw.bytes(4)
            guard magic == Array("ZLIB".utf8) else { return try data.sub(s.offset, s.size) }
            var be = raw
            be.bigEndian = true
            let size = try be.u64()
            let bytes = try Zlib.inflate(try raw.sub(12, raw.count - 12), expectedSize: size)
            return ByteStorage(bytes: bytes).reader()
        }
        return raw
    }

    func debugSections() throws -> [String: ByteReader] {
        var out: [String: ByteReader] = [:]
        for s in sections where s.name.hasPrefix(".debug_") || s.name.hasPrefix(".zdebug_") {
            let name = s.name.hasPrefix(".z") ? "." + s.name.dropFirst(2) : s.name
            out[name] = try contents(s)
        }
        return out
    }

    /// Function and object symbols of `.symtab` (or `.dynsym` when there is none), as
    /// llvm-symbolizer takes them: defined in a section, named, not mapping symbols (`$x`).
    func symbols() throws -> [RawSymbol] {
        let table = sections.first { $0.type == 2 } ?? sections.first { $0.type == 11 }
        guard let table, Int(table.link) < sections.count else { return [] }
        let strings = try contents(sections[Int(table.link)])
        let entrySize = is64 ? 24 : 16
        var r = try contents(table)
        var out: [RawSymbol] = []
        var index = 0
        var fileName: String?
        while r.remaining >= entrySize {
            let nameOffset: UInt32
            let info: UInt8
            let shndx: UInt16
            let value: UInt64
            let size: UInt64
            if is64 {
                nameOffset = try r.u32()
                info = try r.u8()
                _ = try r.u8()
                shndx = try r.u16()
                value = try r.u64()
                size = try r.u64()
            } else {
                nameOffset = try r.u32()
                value = UInt64(try r.u32())
                size = UInt64(try r.u32())
                info = try r.u8()
                _ = try r.u8()
                shndx = try r.u16()
            }
            index += 1
            let type = info & 0xf
            if type == 4 {  // STT_FILE
                fileName = try? strings.string(at: Int(nameOffset))
                continue
            }
            guard type == 0 || type == 1 || type == 2 || type == 10 else { continue }
            guard shndx != 0, shndx < 0xff00, Int(shndx) < sections.count else { continue }
            guard let name = try? strings.string(at: Int(nameOffset)) else { continue }
            if type == 0, name.isEmpty || name.hasPrefix("$") { continue }
            let section = sections[Int(shndx)]
            let local = info >> 4 == 0
            out.append(RawSymbol(
                address: value, size: size, name: name, order: index, isCode: section.flags & 4 != 0,
                file: local ? fileName : nil))
        }
        return out
    }
}
