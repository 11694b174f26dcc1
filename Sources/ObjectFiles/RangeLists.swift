// Address ranges of DIEs with DW_AT_ranges: DWARF 2-4 `.debug_ranges` (pairs, base-address
// selection entries) and DWARF 5 `.debug_rnglists` (DW_FORM_rnglistx through the unit's
// DW_AT_rnglists_base, DW_RLE_* entries, indexed addresses in `.debug_addr`). Decoded directly from
// the section bytes; every read is bounds-checked.

struct RangeContext {
    var format: DwarfFormat
    /// The unit's DW_AT_low_pc: the base for offset pairs.
    var baseAddress: UInt64
    var addrBase: UInt64?
    var rnglistsBase: UInt64?
    var debugRanges: ByteReader?
    var debugRnglists: ByteReader?
    var debugAddr: ByteReader?

    /// The half-open ranges of a DW_AT_ranges value of `form`.
    func ranges(form: UInt16, value: UInt64) throws -> [(start: UInt64, end: UInt64)] {
        var out: [(start: UInt64, end: UInt64)] = []
        try ranges(form: form, value: value, into: &out)
        return out
    }

    /// The same ranges appended to `out`: a unit's reader keeps one array for every DIE with
    /// DW_AT_ranges instead of allocating one each (and converting it between tuple types).
    func ranges(form: UInt16, value: UInt64, into out: inout [(start: UInt64, end: UInt64)]) throws {
        if form == DW_FORM_rnglistx || format.version >= 5 {
            return try rangeList(form: form, value: value, into: &out)
        }
        guard var r = debugRanges else { throw DecodeError("DW_AT_ranges without a .debug_ranges section") }
        try r.seek(Int(clamping: value))
        var base = baseAddress
        let size = format.addressSize
        while r.remaining >= size * 2 {
            let start = try r.unsigned(size: size)
            let end = try r.unsigned(size: size)
            if start == 0 && end == 0 { break }
            if start == format.maxAddress {
                base = end
                continue
            }
            if end > start { out.append((base &+ start, base &+ end)) }
        }
    }

    private func indexedAddress(_ index: UInt64) throws -> UInt64 {
        guard var r = debugAddr else { throw DecodeError("indexed address without a .debug_addr section") }
        let base = addrBase ?? format.defaultIndexBase
        let (off, overflow) = base.addingReportingOverflow(index &* UInt64(format.addressSize))
        guard !overflow, index < UInt64(Int32.max) else { throw DecodeError("address index \(index) is out of range") }
        try r.seek(Int(clamping: off))
        return try r.unsigned(size: format.addressSize)
    }

    private func rangeList(form: UInt16, value: UInt64, into out: inout [(start: UInt64, end: UInt64)]) throws {
        guard var r = debugRnglists else { throw DecodeError("DW_AT_ranges without a .debug_rnglists section") }
        var offset = value
        if form == DW_FORM_rnglistx {
            let base = rnglistsBase ?? format.defaultRnglistsBase
            guard value < UInt64(Int32.max) else { throw DecodeError("range list index \(value) is out of range") }
            try r.seek(Int(clamping: base &+ value &* UInt64(format.offsetSize)))
            offset = base &+ (try r.unsigned(size: format.offsetSize))
        }
        try r.seek(Int(clamping: offset))
        var base = baseAddress
        func add(_ s: UInt64, _ e: UInt64) { if e > s { out.append((s, e)) } }
        while true {
            let kind = try r.u8()
            switch kind {
            case DW_RLE_end_of_list: return
            case DW_RLE_base_addressx: base = try indexedAddress(try r.uleb())
            case DW_RLE_startx_endx:
                let s = try indexedAddress(try r.uleb())
                add(s, try indexedAddress(try r.uleb()))
            case DW_RLE_startx_length:
                let s = try indexedAddress(try r.uleb())
                add(s, s &+ (try r.uleb()))
            case DW_RLE_offset_pair:
                let s = try r.uleb()
                let e = try r.uleb()
                add(base &+ s, base &+ e)
            case DW_RLE_base_address: base = try r.unsigned(size: format.addressSize)
            case DW_RLE_start_end:
                let s = try r.unsigned(size: format.addressSize)
                add(s, try r.unsigned(size: format.addressSize))
            case DW_RLE_start_length:
                let s = try r.unsigned(size: format.addressSize)
                add(s, s &+ (try r.uleb()))
            default:
                throw DecodeError("unknown range list entry kind \(kind) at offset \(r.offset)")
            }
        }
    }
}

/// `.debug_aranges`: address ranges per unit (by the unit's header offset in `.debug_info`).
enum AddressRangeTable {
    struct Entry {
        var start: UInt64
        var end: UInt64
        var unit: UInt64
    }

    /// Entries of every set, and the units that have a set (llvm then ignores their DIE ranges).
    static func parse(_ section: ByteReader) throws -> (entries: [Entry], units: Set<UInt64>) {
        var r = section
        var entries: [Entry] = []
        var units: Set<UInt64> = []
        while r.remaining > 0 {
            let setStart = r.offset
            let (length, offsetSize) = try r.initialLength()
            guard length <= UInt64(r.remaining) else {
                throw DecodeError("address range set at \(setStart) runs past its section")
            }
            let end = r.offset + Int(length)
            _ = try r.u16()
            let unit = try r.unsigned(size: offsetSize)
            let addressSize = Int(try r.u8())
            _ = try r.u8()
            guard addressSize == 4 || addressSize == 8 else {
                throw DecodeError("address range set with address size \(addressSize)")
            }
            let misalign = (r.offset - setStart) % (2 * addressSize)
            if misalign != 0 { try r.skip(2 * addressSize - misalign) }
            while r.offset + 2 * addressSize <= end {
                let start = try r.unsigned(size: addressSize)
                let size = try r.unsigned(size: addressSize)
                if start == 0 && size == 0 { break }
                if size > 0, start &+ size > start {
                    entries.append(Entry(start: start, end: start &+ size, unit: unit))
                }
            }
            units.insert(unit)
            try r.seek(end)
        }
        return (entries, units)
    }

    /// llvm's DWARFDebugAranges::construct: disjoint intervals, each owned by the unit that
    /// continues the previous interval when it can, else by the lowest unit offset covering it.
    static func construct(_ entries: [Entry]) -> [Entry] {
        var points: [(address: UInt64, unit: UInt64, isStart: Bool)] = []
        points.reserveCapacity(entries.count * 2)
        for e in entries where e.start < e.end {
            points.append((e.start, e.unit, true))
            points.append((e.end, e.unit, false))
        }
        points.sort { $0.address < $1.address }
        var valid: [UInt64: Int] = [:]
        var out: [Entry] = []
        var previous: UInt64 = .max
        for p in points {
            if previous < p.address, !valid.isEmpty {
                if let last = out.last, last.end == previous, valid[last.unit] != nil {
                    out[out.count - 1].end = p.address
                } else if let lowest = valid.keys.min() {
                    out.append(Entry(start: previous, end: p.address, unit: lowest))
                }
            }
            if p.isStart {
                valid[p.unit, default: 0] += 1
            } else if let n = valid[p.unit] {
                valid[p.unit] = n > 1 ? n - 1 : nil
            }
            previous = p.address
        }
        return out
    }
}
