// Address ranges of DIEs with DW_AT_ranges: DWARF 2-4 `.debug_ranges` (pairs, base-address
// selection entries) and DWARF 5 `.debug_rnglists` (DW_FORM_rnglistx through the unit's
// DW_AT_rnglists_base, DW_RLE_* entries, indexed addresses in `.debug_addr`). Decoded directly from
// the section bytes; every read is bounds-checked.

struct RangeContext {
    var version: UInt16
    var addressSize: Int
    var offsetSize: Int
    /// The unit's DW_AT_low_pc: the base for offset pairs.
    var baseAddress: UInt64
    var addrBase: UInt64?
    var rnglistsBase: UInt64?
    var debugRanges: ByteReader?
    var debugRnglists: ByteReader?
    var debugAddr: ByteReader?

    private var maxAddress: UInt64 { addressSize >= 8 ? .max : (UInt64(1) << (addressSize * 8)) - 1 }

    /// The half-open ranges of a DW_AT_ranges value of `form`.
    func ranges(form: UInt16, value: UInt64) throws -> [(start: UInt64, end: UInt64)] {
        if form == 0x23 || version >= 5 {
            return try rangeList(form: form, value: value)
        }
        guard var r = debugRanges else { throw DecodeError("DW_AT_ranges without a .debug_ranges section") }
        try r.seek(Int(clamping: value))
        var base = baseAddress
        var out: [(UInt64, UInt64)] = []
        while r.remaining >= addressSize * 2 {
            let start = try r.unsigned(size: addressSize)
            let end = try r.unsigned(size: addressSize)
            if start == 0 && end == 0 { break }
            if start == maxAddress {
                base = end
                continue
            }
            if end > start { out.append((base &+ start, base &+ end)) }
        }
        return out
    }

    private func indexedAddress(_ index: UInt64) throws -> UInt64 {
        guard var r = debugAddr else { throw DecodeError("indexed address without a .debug_addr section") }
        let base = addrBase ?? UInt64(offsetSize == 8 ? 16 : 8)
        let (off, overflow) = base.addingReportingOverflow(index &* UInt64(addressSize))
        guard !overflow, index < UInt64(Int32.max) else { throw DecodeError("address index \(index) is out of range") }
        try r.seek(Int(clamping: off))
        return try r.unsigned(size: addressSize)
    }

    private func rangeList(form: UInt16, value: UInt64) throws -> [(start: UInt64, end: UInt64)] {
        guard var r = debugRnglists else { throw DecodeError("DW_AT_ranges without a .debug_rnglists section") }
        var offset = value
        if form == 0x23 {
            let base = rnglistsBase ?? UInt64(offsetSize == 8 ? 20 : 12)
            guard value < UInt64(Int32.max) else { throw DecodeError("range list index \(value) is out of range") }
            try r.seek(Int(clamping: base &+ value &* UInt64(offsetSize)))
            offset = base &+ (try r.unsigned(size: offsetSize))
        }
        try r.seek(Int(clamping: offset))
        var base = baseAddress
        var out: [(UInt64, UInt64)] = []
        func add(_ s: UInt64, _ e: UInt64) { if e > s { out.append((s, e)) } }
        while true {
            let kind = try r.u8()
            switch kind {
            case 0: return out
            case 1: base = try indexedAddress(try r.uleb())
            case 2:
                let s = try indexedAddress(try r.uleb())
                add(s, try indexedAddress(try r.uleb()))
            case 3:
                let s = try indexedAddress(try r.uleb())
                add(s, s &+ (try r.uleb()))
            case 4:
                let s = try r.uleb()
                let e = try r.uleb()
                add(base &+ s, base &+ e)
            case 5: base = try r.unsigned(size: addressSize)
            case 6:
                let s = try r.unsigned(size: addressSize)
                add(s, try r.unsigned(size: addressSize))
            case 7:
                let s = try r.unsigned(size: addressSize)
                add(s, s &+ (try r.uleb()))
            default:
                throw DecodeError("unknown range list entry kind \(kind) at offset \(r.offset)")
            }
        }
    }
}
