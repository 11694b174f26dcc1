// UnitWalker: turns one unit's address regions into ranges, each pointing at its innermost
// location, with llvm-symbolizer's rules: function scopes (the last, deepest DIE covering an
// address wins), line rows (the sequence with the lowest end above the address must contain it;
// the last row at an address wins), and the symbol table, whose name replaces the outermost
// function's name (and stands alone where DWARF has no function), as `llvm-symbolizer --inlines`
// does. A walk runs on the thread that read its unit and numbers everything on its own: its
// functions and locations in the order it makes them, its files as the unit's own (marked with
// `unitFileMark`), its names as the unit's followed by the symbols' names it uses. TableBuilder
// then merges the result (a PreparedUnit) into the table, renumbering on the way; stretches no
// unit covers are walked the same way with no unit, so that the table has one way of walking.

import SymbolicateModel

struct UnitWalker {
    /// Marks a file number as the unit's own (TableBuilder renumbers it into the table's files).
    static let unitFileMark: UInt32 = 1 << 31

    /// The unit's names, then "??" if the walk uses it.
    private var names: [String]
    /// Names the walk added by text ("??"); the unit's own are numbered by the reader.
    private var nameIndex: [String: UInt32] = [:]
    private var functions: [SymbolTable.Function] = []
    /// The symbol (the table's index) each function was made from (SymbolTable.none for a
    /// DIE's), so that the merge finds it by the symbol, neither by name nor by hashing; such a
    /// function's name here is empty (the table has it).
    private var functionSymbols: [UInt32] = []
    private var functionIndex = FunctionIndex()
    /// The function of each of `functionIndex`'s keys.
    private var indexedFunctions: [UInt32] = []
    private var locationTable = LocationTable()
    /// The table's symbols (sorted, disjoint).
    private let symbols: [TableBuilder.SymbolInterval]
    /// The function of each symbol from `symbolBase` on, once interned (SymbolTable.none before).
    private var symbolFunctions: [UInt32] = []
    private var symbolBase = 0
    /// The first symbol that may still cover the next address walked.
    private var symbolCursor = 0
    private var ranges: [SymbolTable.Range] = []
    /// The largest interval end seen (where the table's last range closes).
    private var lastPoint: UInt64?
    private var unknown: UInt32?

    private init(names: [String], symbols: [TableBuilder.SymbolInterval]) {
        self.names = names
        self.symbols = symbols
    }

    /// Walks one unit's regions (`owned`, ascending; `pieces` and `lines` inside them), keeping
    /// each region's ranges as walked, for TableBuilder to merge region by region in address
    /// order: it interns the same locations in the same order as one walk over the whole file
    /// would, so the table is the same; only the renumbering stays serial.
    static func walkUnit(
        _ cache: NodeCache, pieces: [TableBuilder.ScopeInterval], lines: [DebugInfo.LineInterval],
        owned: [(start: UInt64, end: UInt64)], symbols: [TableBuilder.SymbolInterval]
    ) -> PreparedUnit {
        // The unit's names number its functions' names (a text stored at two places is two
        // names here, one again once merged); symbols' names and "??" are added after them, as
        // other names, when they are used.
        var w = UnitWalker(names: cache.info.names, symbols: symbols)
        if let first = owned.first, let last = owned.last {
            w.symbolBase = firstSymbol(symbols, endingAfter: first.start)
            let end = firstSymbol(symbols, startingAtOrAfter: last.end)
            w.symbolFunctions = Array(repeating: SymbolTable.none, count: max(0, end - w.symbolBase))
        }
        var regions: [PreparedUnit.Region] = []
        regions.reserveCapacity(owned.count)
        w.locationTable.reserve(lines.count + pieces.count / 2)
        var pi = 0
        var li = 0
        for r in owned {
            // The pieces and lines that start in the region (each lies inside one region).
            while pi < pieces.count, pieces[pi].start < r.start { pi += 1 }
            var pe = pi
            while pe < pieces.count, pieces[pe].start < r.end { pe += 1 }
            while li < lines.count, lines[li].start < r.start { li += 1 }
            var le = li
            while le < lines.count, lines[le].start < r.end { le += 1 }
            // About one range per line row; more only where scopes and symbols add boundaries.
            regions.append(
                w.region(
                    r.start, r.end, Array(pieces[pi..<pe]), Array(lines[li..<le]), cache,
                    expected: (pe - pi) + (le - li)))
            pi = pe
            li = le
        }
        return w.prepared(cache, regions)
    }

    /// Walks `lo..<hi` (hi nil: to the end of the address space), which no unit covers: only
    /// the symbols speak there.
    static func walkSymbols(
        _ lo: UInt64, _ hi: UInt64?, symbols: [TableBuilder.SymbolInterval]
    ) -> PreparedUnit {
        var w = UnitWalker(names: [], symbols: symbols)
        w.symbolBase = firstSymbol(symbols, endingAfter: lo)
        let end = hi.map { firstSymbol(symbols, startingAtOrAfter: $0) } ?? symbols.count
        w.symbolFunctions = Array(repeating: SymbolTable.none, count: max(0, end - w.symbolBase))
        let region = w.region(lo, hi, [], [], NodeCache.none, expected: 2 * max(0, end - w.symbolBase))
        return w.prepared(NodeCache.none, [region])
    }

    private mutating func region(
        _ lo: UInt64, _ hi: UInt64?, _ pieces: [TableBuilder.ScopeInterval], _ lines: [DebugInfo.LineInterval],
        _ cache: NodeCache, expected: Int
    ) -> PreparedUnit.Region {
        ranges = []
        ranges.reserveCapacity(expected + 1)
        lastPoint = nil
        locationTable.forget(expected: expected)
        let first = locationTable.locations.count
        symbolCursor = UnitWalker.firstSymbol(symbols, endingAfter: lo)
        walk(lo, hi, pieces, lines, cache)
        return PreparedUnit.Region(
            locations: first..<locationTable.locations.count, ranges: ranges, lastPoint: lastPoint)
    }

    private func prepared(_ cache: NodeCache, _ regions: [PreparedUnit.Region]) -> PreparedUnit {
        PreparedUnit(
            cache: cache, functions: functions, functionSymbols: functionSymbols,
            locations: locationTable.locations, regions: regions)
    }

    /// The index of the first symbol whose interval ends after `address` (symbols are sorted and
    /// disjoint, so their ends ascend too).
    private static func firstSymbol(_ symbols: [TableBuilder.SymbolInterval], endingAfter address: UInt64) -> Int {
        symbols.partitioningIndex { $0.end > address }
    }

    /// The index of the first symbol starting at or after `address`.
    private static func firstSymbol(_ symbols: [TableBuilder.SymbolInterval], startingAtOrAfter address: UInt64)
        -> Int
    {
        symbols.partitioningIndex { $0.start >= address }
    }

    /// The function of a DIE (or "??"): `functionIndex` knows these only, so its numbers are
    /// positions in `indexedFunctions`.
    private mutating func function(_ name: UInt32, _ entry: UInt64) -> UInt32 {
        if let k = functionIndex.find(name, entry) { return indexedFunctions[Int(k)] }
        let i = UInt32(functions.count)
        functions.append(SymbolTable.Function(name: names[Int(name)], entry: entry))
        functionSymbols.append(SymbolTable.none)
        functionIndex.add(name, entry)
        indexedFunctions.append(i)
        return i
    }

    private mutating func location(_ fn: UInt32, _ file: UInt32, _ line: UInt32, _ parent: UInt32) -> UInt32 {
        locationTable.intern(SymbolTable.Location(function: fn, file: file, line: line, parent: parent))
    }

    /// The function of symbol `i`, made once (symbols are unique by address, so no other
    /// function of the walk has its name and entry).
    private mutating func symbolFunction(_ i: Int) -> UInt32 {
        let slot = i - symbolBase
        if symbolFunctions[slot] != SymbolTable.none { return symbolFunctions[slot] }
        let fn = UInt32(functions.count)
        functions.append(SymbolTable.Function(name: "", entry: symbols[i].start))
        functionSymbols.append(UInt32(i))
        symbolFunctions[slot] = fn
        return fn
    }

    /// The walk's number of file `f` of the unit: marked as the unit's own.
    @inline(__always)
    private func unitFile(_ f: UInt32) -> UInt32 {
        f == SymbolTable.none ? f : f | UnitWalker.unitFileMark
    }

    /// The location chain of `node` at `file:line` (a walk's file number); the outermost
    /// function is symbol `symbol`'s when there is one (-1: none).
    private mutating func chain(_ unit: NodeCache, _ node: Int32, _ file: UInt32, _ line: UInt32, _ symbol: Int)
        -> UInt32
    {
        let i = Int(node)
        let n = unit.info.nodes[i]
        let symbolKey = symbol >= 0 ? symbols[symbol].start : .max
        var parent = SymbolTable.none
        if n.parent >= 0 {
            if unit.callSiteSymbol[i] == symbolKey, unit.callSite[i] != SymbolTable.none {
                parent = unit.callSite[i]
            } else {
                parent = chain(unit, n.parent, unitFile(n.callFile), n.callLine, symbol)
                unit.callSite[i] = parent
                unit.callSiteSymbol[i] = symbolKey
            }
        }
        let fn: UInt32
        var file = file
        if n.parent < 0, symbol >= 0 {
            fn = symbolFunction(symbol)
            if file == SymbolTable.none { file = symbols[symbol].file }
        } else if unit.nodeFunction[i] != SymbolTable.none {
            fn = unit.nodeFunction[i]
        } else {
            // The unit's names are the walk's names as they stand (each once).
            fn = function(n.name, n.entry)
            unit.nodeFunction[i] = fn
        }
        return location(fn, file, line, parent)
    }

    private mutating func append(_ start: UInt64, _ loc: UInt32) {
        if ranges.last?.location != loc { ranges.append(SymbolTable.Range(start: start, location: loc)) }
    }

    /// Ranges for `lo..<hi` (hi nil: to the end of the address space), where `pieces` and
    /// `lines` (of `unit`, all inside the region) and the symbols decide.
    private mutating func walk(
        _ lo: UInt64, _ hi: UInt64?, _ pieces: [TableBuilder.ScopeInterval], _ lines: [DebugInfo.LineInterval],
        _ unit: NodeCache
    ) {
        while symbolCursor < symbols.count, symbols[symbolCursor].end <= lo { symbolCursor += 1 }
        var last = symbolCursor
        while last < symbols.count, hi.map({ symbols[last].start < $0 }) ?? true { last += 1 }
        let base = symbolCursor
        let syms = Array(symbols[base..<last])
        var points = Boundaries(pieces, lines, syms)
        var pi = 0
        var li = 0
        var si = 0
        var p = lo
        var pending: UInt64? = points.next()
        while true {
            while pi < pieces.count, pieces[pi].end <= p { pi += 1 }
            while li < lines.count, lines[li].end <= p { li += 1 }
            while si < syms.count, syms[si].end <= p { si += 1 }
            let node: Int32 = pi < pieces.count && pieces[pi].start <= p ? pieces[pi].node : -1
            let line = li < lines.count && lines[li].start <= p ? lines[li] : nil
            let symbol = si < syms.count && syms[si].start <= p ? base + si : -1
            let lineFile = line.map { unitFile($0.file) } ?? SymbolTable.none
            var loc = SymbolTable.none
            if node >= 0 {
                loc = chain(unit, node, lineFile, line?.line ?? SymbolTable.none, symbol)
            } else if let line {
                let fn: UInt32
                var file = lineFile
                if symbol >= 0 {
                    fn = symbolFunction(symbol)
                    if file == SymbolTable.none { file = symbols[symbol].file }
                } else {
                    if unknown == nil { unknown = function(names.intern("??", index: &nameIndex), 0) }
                    fn = unknown ?? 0
                }
                loc = location(fn, file, line.line, SymbolTable.none)
            } else if symbol >= 0 {
                loc = location(symbolFunction(symbol), symbols[symbol].file, SymbolTable.none, SymbolTable.none)
            }
            append(p, loc)
            // The next boundary inside the region.
            var next: UInt64?
            while let q = pending {
                lastPoint = max(lastPoint ?? q, q)
                pending = points.next()
                if q > p {
                    next = q
                    break
                }
            }
            guard let q = next, hi.map({ q < $0 }) ?? true else { break }
            p = q
        }
        // Points at or past `hi` belong to the next region; only their maximum matters here.
        while let q = pending {
            lastPoint = max(lastPoint ?? q, q)
            pending = points.next()
        }
    }
}
