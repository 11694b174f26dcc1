// Fuzz target: reading a symbol file from bytes (Mach-O thin and universal, ELF; DWARF through
// libdwarf, else the nlist / ELF symbol table) and building its symbol table. Any input may be
// refused with an error; none may trap, hang or touch memory it does not own. A table that is
// built must hold together as the store and the symbolicator expect: ranges in address order,
// every index pointing inside its array, and a lookup at every range answering without a trap.

import FuzzSupport
import ObjectFiles
import SymbolicateModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzObjectFiles(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    _ = ObjectFile.looksLikeObjectFile(prefix: Array(bytes.prefix(8)))
    guard let slices = try? ObjectFile.slices(bytes: bytes, path: "fuzz-input") else { return 0 }
    for slice in slices {
        guard let table = try? slice.loadSymbolTable() else { continue }
        check(table)
    }
    return 0
}

private func check(_ table: SymbolTable) {
    let none = SymbolTable.none
    for (i, range) in table.ranges.enumerated() {
        if i > 0 {
            Fuzz.invariant(table.ranges[i - 1].start <= range.start, "range \(i) starts before range \(i - 1)")
        }
        Fuzz.invariant(
            range.location == none || Int(range.location) < table.locations.count,
            "range \(i) points at location \(range.location) of \(table.locations.count)")
    }
    for (i, location) in table.locations.enumerated() {
        Fuzz.invariant(Int(location.function) < table.functions.count, "location \(i) names a function out of range")
        Fuzz.invariant(
            location.file == none || Int(location.file) < table.files.count, "location \(i) names a file out of range")
        Fuzz.invariant(
            location.parent == none || Int(location.parent) < table.locations.count,
            "location \(i) has a parent out of range")
    }
    for range in table.ranges.prefix(4096) {
        _ = table.lookup(range.start)
    }
}
