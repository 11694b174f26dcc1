// The skeleton of `.debug_info` that our own DIE reader walks: every unit header (DWARF 2-5,
// 32- and 64-bit) and the abbreviation tables of `.debug_abbrev` the units name, each parsed once
// for the whole file so that readers on several threads can share them without locks. A unit
// that claims more bytes than its section holds, a version we do not know, or an abbreviation
// table past its section or with absurd counts ends in a DecodeError that says which.

/// What the encoding of a unit's values depends on, as LLVM's `dwarf::FormParams`: the DWARF
/// version, the size of an address, and the size of a section offset (4 in the 32-bit format, 8
/// in the 64-bit one; DWARF 5 section 7.4). Sizes and default bases that follow from these are
/// computed here, once, for every reader of the unit (forms, range lists, indexed sections).
struct DwarfFormat: Sendable, Equatable {
    var version: UInt16
    var addressSize: Int
    var offsetSize: Int

    /// The largest address: the tombstone lld and dsymutil write as the address of code the
    /// linker dropped, and the base-address selection mark of DWARF 2-4's `.debug_ranges`
    /// (DWARF 4 section 2.17.3).
    var maxAddress: UInt64 { addressSize >= 8 ? .max : (UInt64(1) << (addressSize * 8)) - 1 }

    /// The size of DW_FORM_ref_addr: an offset, but DWARF 2 wrote it with the size of an address.
    var refAddrSize: Int { version <= 2 ? addressSize : offsetSize }

    /// Where a unit's entries start in `.debug_addr` and `.debug_str_offsets` when its unit DIE
    /// states no DW_AT_addr_base / DW_AT_str_offsets_base: just past the section's first header
    /// (DWARF 5 sections 7.27 and 7.26: unit length, version and two more bytes; 8 bytes, 16 in
    /// the 64-bit format).
    var defaultIndexBase: UInt64 { offsetSize == 8 ? 16 : 8 }

    /// Where a unit's offsets start in `.debug_rnglists` when its unit DIE states no
    /// DW_AT_rnglists_base: just past the section's first header (DWARF 5 section 7.28: unit
    /// length, version, address size, segment selector size, offset entry count; 12 bytes, 20 in
    /// the 64-bit format).
    var defaultRnglistsBase: UInt64 { offsetSize == 8 ? 20 : 12 }
}

/// One unit header of `.debug_info` (DWARF 5 section 7.5.1).
struct DwarfUnitHeader: Sendable {
    /// Offset of the header in `.debug_info`; references of the ref1..ref_udata forms are relative to it.
    var offset: Int
    /// One past the unit's last byte.
    var end: Int
    var format: DwarfFormat
    var unitType: UInt8
    var abbrevOffset: UInt64
    /// Offset of the unit's first DIE.
    var firstDie: Int

    /// Reads the header at `r.offset`; leaves `r` at the unit's first DIE.
    static func read(_ r: inout ByteReader) throws -> DwarfUnitHeader {
        let offset = r.offset
        var length = UInt64(try r.u32())
        var offsetSize = 4
        if length == UInt64(DWARF64_escape) {
            length = try r.u64()
            offsetSize = 8
        } else if length >= 0xffff_fff0 {
            throw DecodeError("unit at \(offset) has the reserved initial length 0x\(String(length, radix: 16))")
        }
        guard length <= UInt64(r.remaining) else {
            throw DecodeError(
                "unit at \(offset) claims \(length) bytes, past the end of .debug_info (\(r.remaining) left)")
        }
        let end = r.offset + Int(length)
        let version = try r.u16()
        guard (2...5).contains(version) else {
            throw DecodeError("unit at \(offset) has unsupported DWARF version \(version)")
        }
        var unitType = DW_UT_compile
        let addressSize: Int
        let abbrevOffset: UInt64
        if version >= 5 {
            unitType = try r.u8()
            addressSize = Int(try r.u8())
            abbrevOffset = try r.unsigned(size: offsetSize)
            switch unitType {
            case DW_UT_skeleton, DW_UT_split_compile: try r.skip(8)  // dwo_id
            case DW_UT_type, DW_UT_split_type: try r.skip(8 + offsetSize)  // type_signature, type_offset
            default: break
            }
        } else {
            abbrevOffset = try r.unsigned(size: offsetSize)
            addressSize = Int(try r.u8())
        }
        guard addressSize == 4 || addressSize == 8 else {
            throw DecodeError("unit at \(offset) has address size \(addressSize)")
        }
        guard r.offset <= end else { throw DecodeError("unit at \(offset) is shorter than its header") }
        return DwarfUnitHeader(
            offset: offset, end: end,
            format: DwarfFormat(version: version, addressSize: addressSize, offsetSize: offsetSize),
            unitType: unitType, abbrevOffset: abbrevOffset, firstDie: r.offset)
    }

    /// Every unit of `.debug_info`, in section order.
    static func all(_ info: ByteReader) throws -> [DwarfUnitHeader] {
        var r = info
        var out: [DwarfUnitHeader] = []
        while r.remaining > 0 {
            let h = try read(&r)
            out.append(h)
            try r.seek(h.end)
        }
        return out
    }
}

/// One attribute specification of an abbreviation: attribute, form, and the value of
/// DW_FORM_implicit_const (which lives in the abbreviation, not the DIE).
struct AttributeSpec: Sendable {
    /// The attribute; names past 16 bits (none is defined) become 0 and are skipped.
    var name: UInt16
    /// The form; forms past 16 bits become 0, which is refused when a DIE uses it.
    var form: UInt16
    var implicitConst: Int64
}

struct Abbreviation: Sendable {
    var tag: UInt16
    var hasChildren: Bool
    var specs: Range<Int>
    /// The size of a DIE's attributes when every form of the abbreviation has a size known from
    /// the unit's format alone (the type, member and variable DIEs the walk skips, mostly), so
    /// that such a DIE is skipped with one bounds check instead of one per attribute; nil when a
    /// form's size is in the data (LEB128, strings, blocks, indirect).
    var fixedSize: FixedSize?

    /// Bytes, plus so many addresses, offsets and DW_FORM_ref_addr references of the unit's sizes.
    struct FixedSize: Sendable {
        var bytes: Int32 = 0
        var addresses: Int32 = 0
        var offsets: Int32 = 0
        var refAddrs: Int32 = 0

        func size(in f: DwarfFormat) -> Int {
            Int(bytes) + Int(addresses) * f.addressSize + Int(offsets) * f.offsetSize + Int(refAddrs) * f.refAddrSize
        }

        /// Adds `form`; false when its size is in the data (the sizes of DieDecoder.skip).
        mutating func add(_ form: UInt16) -> Bool {
            switch form {
            case DW_FORM_flag_present, DW_FORM_implicit_const: break
            case DW_FORM_data1, DW_FORM_ref1, DW_FORM_flag, DW_FORM_strx1, DW_FORM_addrx1: bytes += 1
            case DW_FORM_data2, DW_FORM_ref2, DW_FORM_strx2, DW_FORM_addrx2: bytes += 2
            case DW_FORM_strx3, DW_FORM_addrx3: bytes += 3
            case DW_FORM_data4, DW_FORM_ref4, DW_FORM_strx4, DW_FORM_addrx4, DW_FORM_ref_sup4: bytes += 4
            case DW_FORM_data8, DW_FORM_ref8, DW_FORM_ref_sig8, DW_FORM_ref_sup8: bytes += 8
            case DW_FORM_data16: bytes += 16
            case DW_FORM_addr: addresses += 1
            case DW_FORM_ref_addr: refAddrs += 1
            case DW_FORM_strp, DW_FORM_line_strp, DW_FORM_sec_offset, DW_FORM_strp_sup, DW_FORM_GNU_ref_alt,
                DW_FORM_GNU_strp_alt:
                offsets += 1
            default: return false
            }
            return true
        }
    }
}

/// The abbreviations of one table, by code: dense codes in an array, any others in a dictionary.
struct AbbreviationTable: Sendable {
    private(set) var abbreviations: [Abbreviation] = []
    private(set) var specs: [AttributeSpec] = []
    private var dense: [Int32] = []
    private var sparse: [UInt64: Int32] = [:]

    /// More abbreviations or attributes than any producer writes means a corrupt table.
    static let maxAbbreviations = 1 << 20
    static let maxAttributesPerAbbreviation = 1 << 10
    private static let maxDenseCode: UInt64 = 1 << 16

    func abbreviation(_ code: UInt64) -> Abbreviation? {
        if code < UInt64(dense.count) {
            let i = dense[Int(code)]
            return i >= 0 ? abbreviations[Int(i)] : nil
        }
        return sparse[code].map { abbreviations[Int($0)] }
    }

    /// Parses the table at `offset` up to its terminating code 0 (or the section's end). The
    /// first definition of a code wins.
    static func parse(_ section: ByteReader, at offset: UInt64) throws -> AbbreviationTable {
        var r = section
        guard offset < UInt64(r.count) else {
            throw DecodeError("abbreviation table offset \(offset) is past the end of .debug_abbrev (\(r.count) bytes)")
        }
        try r.seek(Int(offset))
        var table = AbbreviationTable()
        while r.remaining > 0 {
            let code = try r.uleb()
            if code == 0 { break }
            guard table.abbreviations.count < maxAbbreviations else {
                throw DecodeError("abbreviation table at \(offset) has more than \(maxAbbreviations) entries")
            }
            let tag = try r.uleb()
            let children = try r.u8()
            let first = table.specs.count
            var fixed: Abbreviation.FixedSize? = Abbreviation.FixedSize()
            while true {
                let name = try r.uleb()
                let form = try r.uleb()
                if name == 0 && form == 0 { break }
                var implicit: Int64 = 0
                if form == UInt64(DW_FORM_implicit_const) { implicit = try r.sleb() }
                guard table.specs.count - first < maxAttributesPerAbbreviation else {
                    throw DecodeError(
                        "abbreviation \(code) at \(offset) has more than \(maxAttributesPerAbbreviation) attributes")
                }
                let spec = AttributeSpec(
                    name: name <= 0xffff ? UInt16(name) : 0, form: form <= 0xffff ? UInt16(form) : 0,
                    implicitConst: implicit)
                table.specs.append(spec)
                if fixed?.add(spec.form) == false { fixed = nil }
            }
            let index = Int32(table.abbreviations.count)
            table.abbreviations.append(
                Abbreviation(
                    tag: tag <= 0xffff ? UInt16(tag) : 0, hasChildren: children == DW_CHILDREN_yes,
                    specs: first..<table.specs.count, fixedSize: fixed))
            if code < maxDenseCode {
                if Int(code) >= table.dense.count {
                    table.dense += repeatElement(-1, count: Int(code) + 1 - table.dense.count)
                }
                if table.dense[Int(code)] < 0 { table.dense[Int(code)] = index }
            } else if table.sparse[code] == nil {
                table.sparse[code] = index
            }
        }
        return table
    }
}
