// Where a symbol table too large to hold goes while it is built: the builder hands its
// locations and ranges on in table order as soon as they are final (a batch of units at a time),
// so memory holds the units being read, not the whole table. The store's build-file writer is
// the sink an import uses; what the builder returns then holds the build, files and functions,
// and no locations or ranges.

public protocol SymbolTableSink: AnyObject {
    /// The next locations, in index order (the first call starts at index 0).
    func take(locations: ArraySlice<SymbolTable.Location>) throws
    /// The next ranges, by ascending start.
    func take(ranges: ArraySlice<SymbolTable.Range>) throws
    /// How far the build has come: bytes of DWARF units read of the slice's total, after each
    /// batch (for progress lines on long imports).
    func progress(done: Int, total: Int)
}

extension SymbolTableSink {
    public func progress(done: Int, total: Int) {}
}
