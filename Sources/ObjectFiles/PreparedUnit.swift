// What a unit walk hands to the table's merge. NodeCache holds, per node of one DebugInfo, its
// function when no symbol overrides it and the location of its call site as last computed, and
// the table's number of each of the DebugInfo's files; PreparedUnit holds a walked unit's
// functions, locations and regions until TableBuilder has merged them, with the table's numbers
// for them as the merge assigns them.

import SymbolicateModel

/// Per node of one DebugInfo: its function when no symbol overrides it, and the location of its
/// call site as last computed (valid for the symbol it was computed with); and the builder's
/// index of each of the DebugInfo's files.
/// The three per-node arrays are buffers the cache owns rather than Swift arrays: the walk
/// reads and writes them at every range boundary, and a class's array properties would pay a
/// dynamic exclusivity check and a uniqueness check on each write. Their indices are node
/// numbers the reader gave out, never bytes of the file.
// @unchecked: owned buffers, written only by the one thread that walks or merges its unit at a time.
final class NodeCache: @unchecked Sendable {
    /// For stretches no unit covers (symbols only): no nodes, no files; never written.
    static let none = NodeCache(DebugInfo())

    let info: DebugInfo
    let nodeFunction: UnsafeMutableBufferPointer<UInt32>
    let callSite: UnsafeMutableBufferPointer<UInt32>
    let callSiteSymbol: UnsafeMutableBufferPointer<UInt64>
    private var fileMap: [UInt32] = []
    private var mapped = false

    init(_ info: DebugInfo) {
        self.info = info
        nodeFunction = .allocate(capacity: info.nodes.count)
        nodeFunction.initialize(repeating: SymbolTable.none)
        callSite = .allocate(capacity: info.nodes.count)
        callSite.initialize(repeating: SymbolTable.none)
        callSiteSymbol = .allocate(capacity: info.nodes.count)
        callSiteSymbol.initialize(repeating: 0)
    }

    deinit {
        nodeFunction.deallocate()
        callSite.deallocate()
        callSiteSymbol.deallocate()
    }

    /// Numbers this DebugInfo's files in `builder` (once).
    func mapFiles(into builder: inout TableBuilder) {
        guard !mapped else { return }
        mapped = true
        fileMap = info.files.map { builder.fileIndex(of: $0) }
    }

    @inline(__always)
    func file(_ f: UInt32) -> UInt32 { Int(f) < fileMap.count ? fileMap[Int(f)] : f }
}

/// A unit walked on its own (`UnitWalker.walkUnit`), waiting to be merged region by region:
/// its functions and locations as that walk numbered them, each region's new locations and
/// ranges, and (filled as the merge goes) the table builder's numbers for them.
// @unchecked: handed from the thread that walked it to the one that merges it, never shared by both.
final class PreparedUnit: @unchecked Sendable {
    struct Region {
        /// The locations this region added, by the unit walk's numbers.
        var locations: Range<Int>
        var ranges: [SymbolTable.Range]
        var lastPoint: UInt64?
    }

    let cache: NodeCache
    let functions: [SymbolTable.Function]
    /// The table's symbol each function was made from (SymbolTable.none for a DIE's).
    let functionSymbols: [UInt32]
    let locations: [SymbolTable.Location]
    /// Owned buffers, as NodeCache's are (the merge writes them once per location).
    let functionMap: UnsafeMutableBufferPointer<UInt32>
    let locationMap: UnsafeMutableBufferPointer<UInt32>
    private var regions: [Region]
    private var next = 0
    /// Whether the merge has so far renumbered this unit's functions and files one-to-one
    /// within each region (see TableBuilder.merge).
    var oneToOne = true

    init(
        cache: NodeCache, functions: [SymbolTable.Function], functionSymbols: [UInt32],
        locations: [SymbolTable.Location], regions: [Region]
    ) {
        self.cache = cache
        self.functions = functions
        self.functionSymbols = functionSymbols
        self.locations = locations
        self.regions = regions
        functionMap = .allocate(capacity: functions.count)
        functionMap.initialize(repeating: SymbolTable.none)
        locationMap = .allocate(capacity: locations.count)
        locationMap.initialize(repeating: SymbolTable.none)
    }

    deinit {
        functionMap.deallocate()
        locationMap.deallocate()
    }

    /// The next region (regions are merged in ascending order); nil past the last.
    func nextRegion() -> Region? {
        guard next < regions.count else { return nil }
        defer {
            regions[next].ranges = []
            next += 1
        }
        return regions[next]
    }
}
