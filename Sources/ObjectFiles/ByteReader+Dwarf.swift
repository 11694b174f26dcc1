// Reads shared by DWARF's own section parsers (line tables, address range sets): the initial
// length that opens every unit or set (DWARF 5, 7.4), which also says whether the 32-bit or the
// 64-bit DWARF format follows, and so the size of every section offset inside.

extension ByteReader {
    /// The initial length at the cursor and the offset size it implies: 4 for a 32-bit length,
    /// 8 after `DWARF64_escape` and a 64-bit length.
    mutating func initialLength() throws -> (length: UInt64, offsetSize: Int) {
        let length = try u32()
        guard length == DWARF64_escape else { return (UInt64(length), 4) }
        return (try u64(), 8)
    }
}
