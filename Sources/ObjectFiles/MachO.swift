// The Mach-O reader: header, load commands (LC_UUID, LC_SEGMENT(_64) with their sections,
// LC_SYMTAB) and the nlist symbol table of one thin slice. Every field is read through a
// bounds-checked ByteReader, so a truncated or corrupt file ends in a DecodeError. The `__DWARF`
// sections are handed to the DWARF reader under their ELF-style names (`.debug_info`, ...).

import SymbolicateModel

struct MachOSection {
    var segment: String
    var name: String
    var address: UInt64
    var size: UInt64
    var fileOffset: UInt32
    var flags: UInt32

    var isCode: Bool { flags & S_ATTR_PURE_INSTRUCTIONS != 0 }
}

struct MachOFile {
    var is64: Bool
    var cpuType: UInt32
    /// MH_OBJECT, MH_EXECUTE, MH_DYLIB, MH_DSYM, ...
    var fileType: UInt32
    var cpuSubtype: UInt32
    var uuid: [UInt8]?
    var textAddress: UInt64 = 0
    var textSize: UInt64 = 0
    /// Every section, in load-command order (nlist `n_sect` is a 1-based index into this).
    var sections: [MachOSection] = []
    var symtab: (symoff: UInt32, nsyms: UInt32, stroff: UInt32, strsize: UInt32)?
    /// The slice's bytes; section and symbol-table offsets are relative to its start.
    var data: ByteReader

    init(_ data: ByteReader) throws {
        self.data = data
        var r = data
        let magic = try r.u32()
        guard magic == ContentKind.MH_MAGIC || magic == ContentKind.MH_MAGIC_64 else {
            throw DecodeError("not a little-endian Mach-O file (magic 0x\(String(magic, radix: 16)))")
        }
        is64 = magic == ContentKind.MH_MAGIC_64
        cpuType = try r.u32()
        cpuSubtype = try r.u32()
        fileType = try r.u32()
        let ncmds = try r.u32()
        let sizeofcmds = try r.u32()
        _ = try r.u32()  // flags
        if is64 { _ = try r.u32() }
        guard Int(sizeofcmds) <= r.remaining else {
            throw DecodeError("load commands (\(sizeofcmds) bytes) run past the end of the file")
        }
        var commands = try r.sub(r.offset, Int(sizeofcmds))
        guard ncmds <= sizeofcmds / 8 else {
            throw DecodeError("\(ncmds) load commands cannot fit in \(sizeofcmds) bytes")
        }
        for i in 0..<ncmds {
            let at = commands.offset
            let cmd = try commands.u32()
            let size = try commands.u32()
            guard size >= 8, Int(size) <= commands.remaining + 8 else {
                throw DecodeError("load command \(i) has a bad size \(size)")
            }
            var body = try commands.sub(at + 8, Int(size) - 8)
            try commands.seek(at + Int(size))
            switch cmd {
            case LC_UUID:
                uuid = try body.bytes(16)
            case LC_SYMTAB:
                symtab = (try body.u32(), try body.u32(), try body.u32(), try body.u32())
            case LC_SEGMENT, LC_SEGMENT_64:
                try readSegment(&body, is64: cmd == LC_SEGMENT_64)
            default:
                break
            }
        }
    }

    private mutating func readSegment(_ r: inout ByteReader, is64: Bool) throws {
        let segname = try r.fixedString(16)
        let vmaddr = is64 ? try r.u64() : UInt64(try r.u32())
        let vmsize = is64 ? try r.u64() : UInt64(try r.u32())
        try r.skip(is64 ? 16 : 8)  // fileoff, filesize
        try r.skip(8)  // maxprot, initprot
        let nsects = try r.u32()
        _ = try r.u32()  // flags
        if segname == "__TEXT" {
            textAddress = vmaddr
            textSize = vmsize
        }
        guard Int(nsects) <= r.remaining / (is64 ? 80 : 68) else {
            throw DecodeError("segment \(segname) claims \(nsects) sections that do not fit")
        }
        for _ in 0..<nsects {
            let sectname = try r.fixedString(16)
            let seg = try r.fixedString(16)
            let addr = is64 ? try r.u64() : UInt64(try r.u32())
            let size = is64 ? try r.u64() : UInt64(try r.u32())
            let offset = try r.u32()
            try r.skip(12)  // align, reloff, nreloc
            let flags = try r.u32()
            try r.skip(is64 ? 12 : 8)
            sections.append(
                MachOSection(segment: seg, name: sectname, address: addr, size: size, fileOffset: offset, flags: flags))
        }
    }

    var arch: Arch { Arch(cpuType: UInt64(cpuType), cpuSubtype: UInt64(cpuSubtype)) }

    /// The `__DWARF` sections as `.debug_*` names with their bytes.
    func debugSections() throws -> [String: ByteReader] {
        var out: [String: ByteReader] = [:]
        for s in sections where s.segment == "__DWARF" && s.size > 0 {
            let name: String
            switch s.name {
            case "__debug_str_offs": name = ".debug_str_offsets"
            default:
                guard s.name.hasPrefix("__") else { continue }
                name = "." + s.name.dropFirst(2)
            }
            out[name] = try data.sub(UInt64(s.fileOffset), s.size)
        }
        return out
    }

    var hasDebugInfo: Bool {
        sections.contains { $0.segment == "__DWARF" && $0.name == "__debug_info" && $0.size > 0 }
    }

    /// Defined, non-debugging nlist symbols in sections, as llvm-symbolizer sees them: names
    /// without the leading underscore, each sized to the next symbol of its section or the
    /// section's end.
    func symbols() throws -> [RawSymbol] {
        guard let st = symtab, st.nsyms > 0 else { return [] }
        let entrySize = is64 ? 16 : 12
        guard UInt64(st.nsyms) * UInt64(entrySize) <= UInt64(data.count) else {
            throw DecodeError("symbol table (\(st.nsyms) entries) runs past the end of the file")
        }
        var r = try data.sub(Int(st.symoff), Int(st.nsyms) * entrySize)
        let strings = try data.sub(Int(st.stroff), Int(st.strsize))
        var found: [(address: UInt64, section: Int, name: String, external: Bool)] = []
        for _ in 0..<st.nsyms {
            let strx = try r.u32()
            let type = try r.u8()
            let sect = try r.u8()
            _ = try r.u16()
            let value = is64 ? try r.u64() : UInt64(try r.u32())
            guard type & N_STAB == 0, type & N_TYPE == N_SECT, sect > 0, Int(sect) <= sections.count else { continue }
            guard Int(strx) < strings.count,
                let name = try? strings.string(at: Int(strx), droppingPrefix: UInt8(ascii: "_"))
            else { continue }
            found.append((value, Int(sect) - 1, name, type & N_EXT != 0))
        }
        // Sizes: distance to the next distinct address in the same section, or to its end.
        var bySection: [Int: [UInt64]] = [:]
        for f in found { bySection[f.section, default: []].append(f.address) }
        for k in bySection.keys { bySection[k]?.sort() }
        var out: [RawSymbol] = []
        out.reserveCapacity(found.count)
        for (index, f) in found.enumerated() {
            let s = sections[f.section]
            let sectionEnd = s.address &+ s.size
            var end = sectionEnd
            if let addrs = bySection[f.section] {
                let lo = addrs.partitioningIndex { $0 > f.address }
                if lo < addrs.count { end = addrs[lo] }
            }
            let size = end > f.address ? end - f.address : 0
            out.append(RawSymbol(address: f.address, size: size, name: f.name, order: index, isCode: s.isCode))
        }
        return out
    }
}

/// One entry of a symbol table before it becomes ranges.
struct RawSymbol {
    var address: UInt64
    /// 0 when unknown: the symbol then reaches the next one.
    var size: UInt64
    var name: String
    /// Position in the file's table (ties between aliases go to the later one, as in llvm-symbolizer).
    var order: Int
    var isCode: Bool
    /// ELF local symbols: the name of the STT_FILE symbol before them (llvm-symbolizer prints it
    /// as the file when DWARF has none).
    var file: String? = nil
}
