// Interning: a table of values numbered in the order first seen, and the index that finds a
// value's number again. Names, files and paths are interned this way wherever DWARF is read into a
// symbol table, so that each string is stored once and equal strings get equal numbers.

extension Array where Element: Hashable {
    /// The number of `value` in this table: the one `index` (the table's values to their
    /// positions) has for it, else the next one, with `value` appended and indexed.
    mutating func intern(_ value: Element, index: inout [Element: UInt32]) -> UInt32 {
        if let known = index[value] { return known }
        let number = UInt32(count)
        append(value)
        index[value] = number
        return number
    }
}
