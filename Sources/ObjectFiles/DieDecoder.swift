// Our own DIE reader: decodes the DIEs of `.debug_info` straight from the mapped bytes through
// the abbreviation tables, one linear pass per unit, sizing every form of DWARF 2-5 (block and
// exprloc lengths, implicit_const, indirect, the strx/addrx families, data16, the GNU split-DWARF
// forms) to skip what we do not need. It replaces libdwarf for the DIE walk, where libdwarf
// re-read whole subtrees to find siblings (clang writes no DW_AT_sibling) and allocated every DIE;
// libdwarf stays as the cross-check (DebugInfoReader.Backend.libdwarf). Attribute values are
// resolved as libdwarf resolves them, into the same DieAttributes. Unlike libdwarf it holds no
// global state: each thread walks its units with its own decoder over shared immutable tables.

/// The sections and tables a decoder reads; immutable, shared by every decoder of one file.
// @unchecked: ByteReaders over immutable storage; nothing here is written after init.
struct DwarfInfoFile: @unchecked Sendable {
    let info: ByteReader
    let str: ByteReader?
    let lineStr: ByteReader?
    let strOffsets: ByteReader?
    let addr: ByteReader?
    let units: [DwarfUnitHeader]
    /// `.debug_abbrev`, whose tables each decoder parses as its units name them (a file from
    /// dsymutil has one table per unit, so holding them all would grow with the file).
    let abbrev: ByteReader?

    init(sections: [String: ByteReader]) throws {
        guard let info = sections[".debug_info"] else { throw DecodeError("no .debug_info section") }
        self.info = info
        str = sections[".debug_str"]
        lineStr = sections[".debug_line_str"]
        strOffsets = sections[".debug_str_offsets"]
        addr = sections[".debug_addr"]
        units = try DwarfUnitHeader.all(info)
        abbrev = sections[".debug_abbrev"]
        if !units.isEmpty, abbrev == nil { throw DecodeError("no .debug_abbrev section") }
    }

    private init(_ other: DwarfInfoFile, _ rebase: (ByteReader) -> ByteReader) {
        info = rebase(other.info)
        str = other.str.map(rebase)
        lineStr = other.lineStr.map(rebase)
        strOffsets = other.strOffsets.map(rebase)
        addr = other.addr.map(rebase)
        units = other.units
        abbrev = other.abbrev.map(rebase)
    }

    /// The same file with every section read through `rebase` (a reading thread's own views).
    func rebased(_ rebase: (ByteReader) -> ByteReader) -> DwarfInfoFile { DwarfInfoFile(self, rebase) }

    /// The index of the unit whose DIEs contain `offset`, if any.
    func unitIndex(containing offset: Int) -> Int? {
        let lo = units.partitioningIndex { $0.end > offset }
        guard lo < units.count, units[lo].firstDie <= offset else { return nil }
        return lo
    }
}

/// A unit ready to be read: its header, abbreviations and the bases its unit DIE states.
struct DwarfUnitContext {
    var header: DwarfUnitHeader
    var table: AbbreviationTable
    var addrBase: UInt64?
    var strOffsetsBase: UInt64?
}

/// What every DIE states without its attributes. The walk reads most DIEs only this far, so
/// it stays a few bytes: no attribute storage is set up, copied or released for them.
struct DieHeader {
    var offset: Int
    var tag: UInt16
    var hasChildren: Bool
}

/// The raw value of one attribute before strings, indexed addresses and references are resolved.
private struct RawValue {
    var form: UInt16
    var value: UInt64
}

private struct RawAttributes {
    var lowPC: RawValue?
    var highPC: RawValue?
    var ranges: RawValue?
    var abstractOrigin: RawValue?
    var specification: RawValue?
    var linkageName: RawValue?
    var name: RawValue?
    var callFile: RawValue?
    var callLine: RawValue?
    var stmtList: RawValue?
    var compDir: RawValue?
    var addrBase: RawValue?
    var rnglistsBase: RawValue?
    var strOffsetsBase: RawValue?
}

final class DieDecoder {
    let file: DwarfInfoFile
    /// Bases of units reached through cross-unit references (DW_FORM_ref_addr), by unit index.
    private var contexts: [Int: DwarfUnitContext] = [:]
    /// Abbreviation tables parsed lately, by offset: units that share a table parse it once.
    private var tables: [UInt64: AbbreviationTable] = [:]
    private static let tablesKept = 64
    /// DW_FORM_indirect may name another indirect form; more levels than this is corrupt.
    private static let maxIndirection = 4

    init(file: DwarfInfoFile) { self.file = file }

    /// Unit `index` with its unit DIE and that DIE's attributes (nil when the unit holds no DIE),
    /// and a reader positioned after that DIE.
    func openUnit(
        _ index: Int
    ) throws -> (context: DwarfUnitContext, die: (header: DieHeader, attributes: DieAttributes)?, reader: ByteReader) {
        let header = file.units[index]
        let table = try abbreviations(at: header.abbrevOffset)
        var context = DwarfUnitContext(header: header, table: table)
        var r = try file.info.sub(0, header.end)
        try r.seek(header.firstDie)
        guard r.remaining > 0 else { return (context, nil, r) }
        let dieOffset = r.offset
        let code = try r.uleb()
        guard code != 0 else { return (context, nil, r) }
        guard let abbrev = context.table.abbreviation(code) else {
            throw DecodeError("unit DIE at \(header.firstDie) uses abbreviation code \(code), which its table lacks")
        }
        var raw = RawAttributes()
        try read(&r, dieOffset, abbrev, context: context, raw: &raw)
        context.addrBase = raw.addrBase.map(\.value)
        context.strOffsetsBase = raw.strOffsetsBase.map(\.value)
        let die = DieHeader(offset: dieOffset, tag: abbrev.tag, hasChildren: abbrev.hasChildren)
        return (context, (die, try resolve(raw, context)), r)
    }

    /// The next DIE of the unit at `r`; nil for a null entry (the end of a list of siblings).
    /// Its attributes are decoded into `attributes` only when `decode(tag)` asks for them (the
    /// Bool says so); otherwise they are skipped by size, so that the walk sets up attribute
    /// storage only for the DIEs it looks at.
    @inline(__always)
    func next(
        _ r: inout ByteReader, _ context: DwarfUnitContext, into attributes: inout DieAttributes,
        decode: (UInt16) -> Bool
    ) throws -> (DieHeader, Bool)? {
        let dieOffset = r.offset
        let code = try r.uleb()
        guard code != 0 else { return nil }
        guard let abbrev = context.table.abbreviation(code) else {
            throw DecodeError("DIE at \(r.offset) uses abbreviation code \(code), which its table lacks")
        }
        let header = DieHeader(offset: dieOffset, tag: abbrev.tag, hasChildren: abbrev.hasChildren)
        guard decode(abbrev.tag) else {
            try skipAttributes(&r, dieOffset, abbrev, context)
            return (header, false)
        }
        var raw = RawAttributes()
        try read(&r, dieOffset, abbrev, context: context, raw: &raw)
        attributes = try resolve(raw, context)
        return (header, true)
    }

    /// Moves `r` past the attributes of a DIE nobody looks at.
    private func skipAttributes(
        _ r: inout ByteReader, _ start: Int, _ abbrev: Abbreviation, _ context: DwarfUnitContext
    ) throws {
        let format = context.header.format
        if let fixed = abbrev.fixedSize {
            try r.skip(fixed.size(in: format))
            return
        }
        try context.table.specs.withUnsafeBufferPointer { specs in
            for i in abbrev.specs {
                let form = specs[i].form
                if form == DW_FORM_indirect {
                    try DieDecoder.skip(try DieDecoder.indirectForm(&r, start), &r, format)
                } else {
                    try DieDecoder.skip(form, &r, format)
                }
            }
        }
    }

    /// The form a DW_FORM_indirect attribute names (at `r`), following further indirections.
    private static func indirectForm(_ r: inout ByteReader, _ start: Int) throws -> UInt16 {
        var form = DW_FORM_indirect
        var levels = 0
        while form == DW_FORM_indirect {
            levels += 1
            guard levels <= DieDecoder.maxIndirection else {
                throw DecodeError("DIE at \(start) nests DW_FORM_indirect")
            }
            let f = try r.uleb()
            form = f <= 0xffff ? UInt16(f) : 0
        }
        return form
    }

    /// The abbreviation table at `offset` of `.debug_abbrev`, parsed once while it stays among
    /// the last few used.
    private func abbreviations(at offset: UInt64) throws -> AbbreviationTable {
        if let known = tables[offset] { return known }
        guard let section = file.abbrev else { throw DecodeError("no .debug_abbrev section") }
        let table = try AbbreviationTable.parse(section, at: offset)
        if tables.count >= DieDecoder.tablesKept { tables.removeAll(keepingCapacity: true) }
        tables[offset] = table
        return table
    }

    /// The attributes of the DIE at global offset `offset` (a DW_AT_abstract_origin or
    /// DW_AT_specification target); nil when it is a null entry.
    func attributes(at offset: UInt64) throws -> DieAttributes? {
        guard offset < UInt64(file.info.count), let index = file.unitIndex(containing: Int(offset)) else {
            throw DecodeError("reference to offset \(offset), which is not inside a unit's DIEs")
        }
        let context: DwarfUnitContext
        if let known = contexts[index] {
            context = known
        } else {
            context = try openUnit(index).context
            contexts[index] = context
        }
        var r = try file.info.sub(0, context.header.end)
        try r.seek(Int(offset))
        var attributes = DieAttributes()
        guard try next(&r, context, into: &attributes, decode: { _ in true }) != nil else { return nil }
        return attributes
    }

    private func read(
        _ r: inout ByteReader, _ start: Int, _ abbrev: Abbreviation, context: DwarfUnitContext,
        raw: inout RawAttributes
    ) throws {
        let format = context.header.format
        for i in abbrev.specs {
            // Indexed, not sliced: a slice of the specs would retain their array for every DIE.
            let spec = context.table.specs[i]
            let form = spec.form == DW_FORM_indirect ? try DieDecoder.indirectForm(&r, start) : spec.form
            guard DieDecoder.isWanted(spec.name) else {
                try DieDecoder.skip(form, &r, format)
                continue
            }
            let v = RawValue(form: form, value: try DieDecoder.value(form, spec, &r, format))
            switch spec.name {
            case DW_AT_low_pc: raw.lowPC = v
            case DW_AT_high_pc: raw.highPC = v
            case DW_AT_ranges: raw.ranges = v
            case DW_AT_abstract_origin: raw.abstractOrigin = v
            case DW_AT_specification: raw.specification = v
            case DW_AT_linkage_name, DW_AT_MIPS_linkage_name: raw.linkageName = v
            case DW_AT_name: raw.name = v
            case DW_AT_call_file: raw.callFile = v
            case DW_AT_call_line: raw.callLine = v
            case DW_AT_stmt_list: raw.stmtList = v
            case DW_AT_comp_dir: raw.compDir = v
            case DW_AT_addr_base: raw.addrBase = v
            case DW_AT_rnglists_base: raw.rnglistsBase = v
            case DW_AT_str_offsets_base: raw.strOffsetsBase = v
            default: break
            }
        }
    }

    private static func isWanted(_ name: UInt16) -> Bool {
        switch name {
        case DW_AT_low_pc, DW_AT_high_pc, DW_AT_ranges, DW_AT_abstract_origin, DW_AT_specification, DW_AT_linkage_name,
            DW_AT_MIPS_linkage_name, DW_AT_name, DW_AT_call_file, DW_AT_call_line, DW_AT_stmt_list, DW_AT_comp_dir,
            DW_AT_addr_base, DW_AT_rnglists_base, DW_AT_str_offsets_base:
            return true
        default:
            return false
        }
    }

    /// The fixed size of `form` in a unit of format `f`; nil when the size is in the data.
    @inline(__always)
    private static func fixedSize(_ form: UInt16, _ f: DwarfFormat) -> Int? {
        switch form {
        case DW_FORM_flag_present, DW_FORM_implicit_const: return 0
        case DW_FORM_data1, DW_FORM_ref1, DW_FORM_flag, DW_FORM_strx1, DW_FORM_addrx1: return 1
        case DW_FORM_data2, DW_FORM_ref2, DW_FORM_strx2, DW_FORM_addrx2: return 2
        case DW_FORM_strx3, DW_FORM_addrx3: return 3
        case DW_FORM_data4, DW_FORM_ref4, DW_FORM_strx4, DW_FORM_addrx4, DW_FORM_ref_sup4: return 4
        case DW_FORM_data8, DW_FORM_ref8, DW_FORM_ref_sig8, DW_FORM_ref_sup8: return 8
        case DW_FORM_data16: return 16
        case DW_FORM_addr: return f.addressSize
        case DW_FORM_ref_addr: return f.refAddrSize
        case DW_FORM_strp, DW_FORM_line_strp, DW_FORM_sec_offset, DW_FORM_strp_sup, DW_FORM_GNU_ref_alt,
            DW_FORM_GNU_strp_alt:
            return f.offsetSize
        default: return nil
        }
    }

    /// Moves `r` past a value of `form`.
    private static func skip(_ form: UInt16, _ r: inout ByteReader, _ f: DwarfFormat) throws {
        if let n = fixedSize(form, f) {
            try r.skip(n)
            return
        }
        switch form {
        case DW_FORM_udata, DW_FORM_sdata, DW_FORM_ref_udata, DW_FORM_strx, DW_FORM_addrx, DW_FORM_loclistx,
            DW_FORM_rnglistx, DW_FORM_GNU_addr_index, DW_FORM_GNU_str_index:
            _ = try r.uleb()
        case DW_FORM_string: _ = try r.cStringLength()
        case DW_FORM_block1: try r.skip(Int(try r.u8()))
        case DW_FORM_block2: try r.skip(Int(try r.u16()))
        case DW_FORM_block4: try r.skip(Int(try r.u32()))
        case DW_FORM_block, DW_FORM_exprloc: try r.skip(Int(clamping: try r.uleb()))
        default: throw DecodeError("DIE attribute at \(r.offset) has unknown form 0x\(String(form, radix: 16))")
        }
    }

    /// The value of `form` as a number: constants, offsets, indices, references (unit-relative
    /// as written), and for DW_FORM_string the offset of the string in `.debug_info`.
    private static func value(_ form: UInt16, _ spec: AttributeSpec, _ r: inout ByteReader, _ f: DwarfFormat) throws
        -> UInt64
    {
        switch form {
        case DW_FORM_implicit_const: return UInt64(bitPattern: spec.implicitConst)
        case DW_FORM_flag_present: return 1
        case DW_FORM_strx3, DW_FORM_addrx3:
            let lo = UInt64(try r.u16())
            return lo | UInt64(try r.u8()) << 16
        case DW_FORM_data16:
            let v = try r.u64()
            try r.skip(8)
            return v
        case DW_FORM_sdata: return UInt64(bitPattern: try r.sleb())
        case DW_FORM_string:
            // Readers of a unit's DIEs start at the section's start, so this is the section offset.
            let at = UInt64(r.offset)
            _ = try r.cStringLength()
            return at
        case DW_FORM_block1, DW_FORM_block2, DW_FORM_block4, DW_FORM_block, DW_FORM_exprloc:
            try skip(form, &r, f)
            return 0
        default:
            if let n = fixedSize(form, f) { return try r.unsigned(size: n) }
            switch form {
            case DW_FORM_udata, DW_FORM_ref_udata, DW_FORM_strx, DW_FORM_addrx, DW_FORM_loclistx, DW_FORM_rnglistx,
                DW_FORM_GNU_addr_index, DW_FORM_GNU_str_index:
                return try r.uleb()
            default:
                throw DecodeError("DIE attribute at \(r.offset) has unknown form 0x\(String(form, radix: 16))")
            }
        }
    }
}

// MARK: Resolving values as libdwarf does (dwarf_formaddr, dwarf_formudata, dwarf_global_formref,
// dwarf_formstring)

extension DieDecoder {
    private func resolve(_ raw: RawAttributes, _ context: DwarfUnitContext) throws -> DieAttributes {
        var out = DieAttributes()
        if let v = raw.lowPC { out.lowPC = try address(v, context) }
        if let v = raw.highPC {
            // An address form gives the end; a constant form gives the size (DWARF 4+).
            if v.form == DW_FORM_addr || v.form == DW_FORM_addrx || (DW_FORM_addrx1...DW_FORM_addrx4).contains(v.form) {
                out.highPC = try address(v, context)
            } else {
                out.highPC = try unsigned(v, context)
                out.highIsOffset = true
            }
        }
        if let v = raw.ranges { out.ranges = (v.form, try unsigned(v, context)) }
        if let v = raw.abstractOrigin { out.abstractOrigin = try reference(v, context) }
        if let v = raw.specification { out.specification = try reference(v, context) }
        if let v = raw.linkageName { out.linkageName = try stringLocation(v, context) }
        if let v = raw.name { out.name = try stringLocation(v, context) }
        if let v = raw.callFile { out.callFile = try unsigned(v, context) }
        if let v = raw.callLine { out.callLine = try unsigned(v, context) }
        if let v = raw.stmtList { out.stmtList = try unsigned(v, context) }
        if let v = raw.compDir { out.compDir = try stringLocation(v, context) }
        if let v = raw.addrBase { out.addrBase = try unsigned(v, context) }
        if let v = raw.rnglistsBase { out.rnglistsBase = try unsigned(v, context) }
        return out
    }

    private func address(_ v: RawValue, _ context: DwarfUnitContext) throws -> UInt64 {
        switch v.form {
        case DW_FORM_addr: return v.value
        case DW_FORM_addrx, DW_FORM_addrx1, DW_FORM_addrx2, DW_FORM_addrx3, DW_FORM_addrx4, DW_FORM_GNU_addr_index:
            guard case .some = file.addr else {
                throw DecodeError("indexed address without a .debug_addr section")
            }
            return try entry(
                v.value, of: .addr, base: context.addrBase, size: context.header.format.addressSize, context,
                what: "address")
        default:
            throw DecodeError("an address attribute has form 0x\(String(v.form, radix: 16))")
        }
    }

    /// Entry `index` of the unit's table in `.debug_addr` (addresses) or `.debug_str_offsets`
    /// (string offsets), `size` bytes each from the unit's DW_AT_addr_base / DW_AT_str_offsets_base,
    /// or, when its unit DIE states none, from just past the section's first header (DWARF 5
    /// sections 7.27 and 7.26: 8 bytes, 16 in the 64-bit format). `what` names the index in errors.
    private enum IndexedSection { case addr, strOffsets }

    private func entry(
        _ index: UInt64, of section: IndexedSection, base: UInt64?, size: Int, _ context: DwarfUnitContext,
        what: String
    ) throws -> UInt64 {
        let start = base ?? context.header.format.defaultIndexBase
        guard index < UInt64(Int32.max) else { throw DecodeError("\(what) index \(index) is out of range") }
        let (off, overflow) = start.addingReportingOverflow(index &* UInt64(size))
        guard !overflow, off <= UInt64(Int.max) else { throw DecodeError("\(what) index \(index) is out of range") }
        // Read where the section lies, not through a copy of its reader (which retains the storage).
        let value: UInt64?
        switch section {
        case .addr: value = try file.addr?.unsigned(at: Int(off), size: size)
        case .strOffsets: value = try file.strOffsets?.unsigned(at: Int(off), size: size)
        }
        guard let value else { throw DecodeError("\(what) index \(index) names a missing section") }
        return value
    }

    private func unsigned(_ v: RawValue, _ context: DwarfUnitContext) throws -> UInt64 {
        switch v.form {
        case DW_FORM_data1, DW_FORM_data2, DW_FORM_data4, DW_FORM_data8, DW_FORM_udata, DW_FORM_sec_offset,
            DW_FORM_sdata, DW_FORM_implicit_const, DW_FORM_rnglistx, DW_FORM_loclistx:
            return v.value
        case DW_FORM_ref1, DW_FORM_ref2, DW_FORM_ref4, DW_FORM_ref8, DW_FORM_ref_udata, DW_FORM_ref_addr:
            return try reference(v, context) ?? 0
        default:
            throw DecodeError("a constant attribute has form 0x\(String(v.form, radix: 16))")
        }
    }

    /// A reference as an offset in `.debug_info`; nil for references into other files
    /// (type signatures, supplementary files), which name no DIE of ours.
    private func reference(_ v: RawValue, _ context: DwarfUnitContext) throws -> UInt64? {
        switch v.form {
        case DW_FORM_ref1, DW_FORM_ref2, DW_FORM_ref4, DW_FORM_ref8, DW_FORM_ref_udata:
            let (off, overflow) = UInt64(context.header.offset).addingReportingOverflow(v.value)
            guard !overflow else { throw DecodeError("reference 0x\(String(v.value, radix: 16)) is out of range") }
            return off
        case DW_FORM_ref_addr: return v.value
        case DW_FORM_ref_sig8, DW_FORM_ref_sup4, DW_FORM_ref_sup8, DW_FORM_GNU_ref_alt: return nil
        default:
            throw DecodeError("a reference attribute has form 0x\(String(v.form, radix: 16))")
        }
    }

    private func string(_ v: RawValue, _ context: DwarfUnitContext) throws -> String {
        guard case .at(let section, let offset) = try stringLocation(v, context) else { return "" }
        return try section.string(at: offset, in: bytes(of: section))
    }

    /// The byte count of `section`, nil when the file lacks it (without copying its reader).
    private func size(of section: DwarfStringSection) -> Int? {
        switch section {
        case .info: return file.info.count
        case .str: return file.str?.count
        case .lineStr: return file.lineStr?.count
        }
    }

    private func bytes(of section: DwarfStringSection) -> ByteReader? {
        switch section {
        case .info: return file.info
        case .str: return file.str
        case .lineStr: return file.lineStr
        }
    }

    /// Where the string of a string attribute lies: its section and offset, checked to be inside
    /// the section (indexed forms resolved through `.debug_str_offsets`).
    private func stringLocation(_ v: RawValue, _ context: DwarfUnitContext) throws -> DieString {
        func at(_ section: DwarfStringSection, _ offset: UInt64) throws -> DieString {
            guard let count = size(of: section) else {
                throw DecodeError("a string attribute points into a missing \(section.name) section")
            }
            guard offset < UInt64(count) else {
                throw DecodeError("string offset \(offset) is past the end of \(section.name) (\(count) bytes)")
            }
            return .at(section, offset)
        }
        switch v.form {
        case DW_FORM_string: return try at(.info, v.value)
        case DW_FORM_strp: return try at(.str, v.value)
        case DW_FORM_line_strp: return try at(.lineStr, v.value)
        case DW_FORM_strx, DW_FORM_strx1, DW_FORM_strx2, DW_FORM_strx3, DW_FORM_strx4, DW_FORM_GNU_str_index:
            guard case .some = file.strOffsets else {
                throw DecodeError("indexed string without a .debug_str_offsets section")
            }
            let offset = try entry(
                v.value, of: .strOffsets, base: context.strOffsetsBase, size: context.header.format.offsetSize, context,
                what: "string")
            return try at(.str, offset)
        default:
            throw DecodeError(
                "a string attribute has form 0x\(String(v.form, radix: 16)), which names no string of this file")
        }
    }
}
