// Flattens what the readers found into a SymbolTable: sorted address ranges that end where the
// next begins, each pointing at its innermost interned Location. Three layers are merged with
// llvm-symbolizer's rules: function scopes (the last, deepest DIE covering an address wins), line
// rows (the sequence with the lowest end above the address must contain it; the last row at an
// address wins), and the symbol table, whose name replaces the outermost function's name (and
// stands alone where DWARF has no function), as `llvm-symbolizer --inlines` does.

import SymbolicateModel

struct TableBuilder {
    private var files: [String] = []
    private var fileIndex: [String: UInt32] = [:]
    private var names: [String] = []
    private var nameIndex: [String: UInt32] = [:]
    private var functions: [SymbolTable.Function] = []
    private var functionIndex: [FunctionKey: UInt32] = [:]
    private var locationTable = LocationTable()

    private struct FunctionKey: Hashable {
        var name: UInt32
        var entry: UInt64
    }

    private struct SymbolInterval: BoundedInterval {
        var start: UInt64
        var end: UInt64
        var name: UInt32
        var file: UInt32
    }

    /// Takes `debugInfo` over so that its line rows and scopes can be freed once the builder has
    /// turned them into intervals, before the table itself grows.
    static func build(build: BuildInfo, debugInfo: consuming DebugInfo?, symbols: [RawSymbol]) -> SymbolTable {
        var b = TableBuilder()
        var info = (consume debugInfo) ?? DebugInfo()
        return b.run(build: build, debugInfo: &info, symbols: symbols)
    }

    private mutating func intern(_ name: String) -> UInt32 {
        if let i = nameIndex[name] { return i }
        let i = UInt32(names.count)
        names.append(name)
        nameIndex[name] = i
        return i
    }

    private mutating func function(_ name: UInt32, _ entry: UInt64) -> UInt32 {
        let key = FunctionKey(name: name, entry: entry)
        if let i = functionIndex[key] { return i }
        let i = UInt32(functions.count)
        functions.append(SymbolTable.Function(name: names[Int(name)], entry: entry))
        functionIndex[key] = i
        return i
    }

    private mutating func location(_ fn: UInt32, _ file: UInt32, _ line: UInt32, _ parent: UInt32) -> UInt32 {
        locationTable.intern(SymbolTable.Location(function: fn, file: file, line: line, parent: parent))
    }

    /// llvm-symbolizer's symbol lookup as intervals: aliases collapse to the largest (then last)
    /// one; a symbol reaches its size, or the next symbol when it has none.
    private mutating func symbolIntervals(_ symbols: [RawSymbol]) -> [SymbolInterval] {
        let order = symbols.indices.sorted {
            (symbols[$0].address, symbols[$0].size, $0) < (symbols[$1].address, symbols[$1].size, $1)
        }
        var uniqueIndices: [Int] = []
        for i in order {
            if let last = uniqueIndices.last, symbols[last].address == symbols[i].address {
                uniqueIndices[uniqueIndices.count - 1] = i
            } else {
                uniqueIndices.append(i)
            }
        }
        let unique = uniqueIndices.map { symbols[$0] }
        var out: [SymbolInterval] = []
        out.reserveCapacity(unique.count)
        for (i, s) in unique.enumerated() {
            let next = i + 1 < unique.count ? unique[i + 1].address : nil
            var end: UInt64
            if s.size != 0 {
                end = s.address &+ s.size
                if end < s.address { end = .max }
                if let next { end = min(end, next) }
            } else {
                end = next ?? .max
            }
            guard end > s.address else { continue }
            var file = SymbolTable.none
            if let f = s.file, !f.isEmpty {
                if let known = fileIndex[f] {
                    file = known
                } else {
                    file = UInt32(files.count)
                    files.append(f)
                    fileIndex[f] = file
                }
            }
            out.append(SymbolInterval(start: s.address, end: end, name: intern(s.name), file: file))
        }
        return out
    }

    private struct ScopeInterval: BoundedInterval {
        var start: UInt64
        var end: UInt64
        var node: Int32
    }

    /// Disjoint intervals owned by the deepest, latest scope covering them.
    private static func paint(_ scopes: ArraySlice<DebugInfo.Scope>) -> [ScopeInterval] {
        guard !scopes.isEmpty else { return [] }
        let byStart = scopes.indices.sorted { scopes[$0].start < scopes[$1].start }
        var points: [UInt64] = []
        points.reserveCapacity(2 * scopes.count)
        for s in scopes { points.append(s.start); points.append(s.end) }
        points.sort()
        var heap = MaxHeap()
        var cursor = 0
        var out: [ScopeInterval] = []
        var current: (start: UInt64, node: Int32)?
        var previousPoint: UInt64?
        for p in points where p != previousPoint {
            previousPoint = p
            while cursor < byStart.count, scopes[byStart[cursor]].start <= p {
                heap.push(byStart[cursor])
                cursor += 1
            }
            while let top = heap.top, scopes[top].end <= p { heap.pop() }
            let node = heap.top.map { scopes[$0].node }
            if node != current?.node {
                if let c = current { out.append(ScopeInterval(start: c.start, end: p, node: c.node)) }
                current = node.map { (p, $0) }
            }
        }
        return out
    }

    /// The parts of `items` (sorted, disjoint) inside `owned` (sorted, disjoint).
    private static func clip<T>(
        _ items: [T], to owned: [(start: UInt64, end: UInt64)], bounds: (T) -> (UInt64, UInt64), make: (T, UInt64, UInt64) -> T
    ) -> [T] {
        var out: [T] = []
        out.reserveCapacity(items.count)
        var j = 0
        for item in items {
            let (s, e) = bounds(item)
            while j < owned.count, owned[j].end <= s { j += 1 }
            var k = j
            while k < owned.count, owned[k].start < e {
                let cs = max(s, owned[k].start)
                let ce = min(e, owned[k].end)
                if cs < ce { out.append(cs == s && ce == e ? item : make(item, cs, ce)) }
                k += 1
            }
        }
        return out
    }

    /// Line intervals reachable through llvm's sequence lookup, sorted by start.
    private static func lineIntervals(_ info: DebugInfo, _ sequences: Range<Int>) -> [DebugInfo.LineInterval] {
        let order = sequences.sorted {
            (info.sequences[$0].high, $0) < (info.sequences[$1].high, $1)
        }
        var out: [DebugInfo.LineInterval] = []
        out.reserveCapacity(sequences.reduce(0) { $0 + info.sequences[$1].intervals.count })
        var previousHigh: UInt64 = 0
        for i in order {
            let s = info.sequences[i]
            let low = max(s.low, previousHigh)
            previousHigh = max(previousHigh, s.high)
            guard low < s.high else { continue }
            for j in s.intervals {
                var l = info.lines[j]
                if l.end <= low { continue }
                l.start = max(l.start, low)
                l.end = min(l.end, s.high)
                if l.start < l.end { out.append(l) }
            }
        }
        out.sort { $0.start < $1.start }
        return out
    }

    /// Per node: its function when no symbol overrides it, and the location of its call site
    /// as last computed (valid for the symbol it was computed with).
    private var nodeFunction: [UInt32] = []
    private var callSite: [UInt32] = []
    private var callSiteSymbol: [UInt64] = []

    private var symbols: [SymbolInterval] = []
    private var symbolFunctions: [UInt32] = []

    /// The function of symbol `i`, interned once.
    private mutating func symbolFunction(_ i: Int) -> UInt32 {
        if symbolFunctions[i] != SymbolTable.none { return symbolFunctions[i] }
        let fn = function(symbols[i].name, symbols[i].start)
        symbolFunctions[i] = fn
        return fn
    }

    /// The location chain of `node` at `file:line`; the outermost function is symbol `symbol`'s
    /// when there is one (-1: none).
    private mutating func chain(_ info: DebugInfo, _ node: Int32, _ file: UInt32, _ line: UInt32, _ symbol: Int) -> UInt32 {
        let i = Int(node)
        let n = info.nodes[i]
        let symbolKey = symbol >= 0 ? symbols[symbol].start : .max
        var parent = SymbolTable.none
        if n.parent >= 0 {
            if callSiteSymbol[i] == symbolKey, callSite[i] != SymbolTable.none {
                parent = callSite[i]
            } else {
                parent = chain(info, n.parent, n.callFile, n.callLine, symbol)
                callSite[i] = parent
                callSiteSymbol[i] = symbolKey
            }
        }
        let fn: UInt32
        var file = file
        if n.parent < 0, symbol >= 0 {
            fn = symbolFunction(symbol)
            if file == SymbolTable.none { file = symbols[symbol].file }
        } else if nodeFunction[i] != SymbolTable.none {
            fn = nodeFunction[i]
        } else {
            fn = function(intern(info.names[Int(n.name)]), n.entry)
            nodeFunction[i] = fn
        }
        return location(fn, file, line, parent)
    }

    private mutating func run(build: BuildInfo, debugInfo info: inout DebugInfo, symbols rawSymbols: [RawSymbol]) -> SymbolTable {
        files = info.files
        for (i, f) in files.enumerated() { fileIndex[f] = UInt32(i) }
        nodeFunction = Array(repeating: SymbolTable.none, count: info.nodes.count)
        callSite = nodeFunction
        callSiteSymbol = Array(repeating: 0, count: info.nodes.count)
        symbols = symbolIntervals(rawSymbols)
        symbolFunctions = Array(repeating: SymbolTable.none, count: symbols.count)
        let syms = symbols
        // Which unit owns each address: .debug_aranges, plus the DIE ranges of units it omits.
        var entries = info.arangeEntries
        for u in info.units where !info.arangeUnits.contains(u.offset) {
            for r in u.ranges { entries.append(AddressRangeTable.Entry(start: r.start, end: r.end, unit: u.offset)) }
        }
        var owned: [UInt64: [(start: UInt64, end: UInt64)]] = [:]
        for e in AddressRangeTable.construct(entries) { owned[e.unit, default: []].append((e.start, e.end)) }
        var pieces: [ScopeInterval] = []
        var lines: [DebugInfo.LineInterval] = []
        for u in info.units {
            guard let mine = owned[u.offset] else { continue }
            pieces += TableBuilder.clip(
                TableBuilder.paint(info.scopes[u.scopes]), to: mine, bounds: { ($0.start, $0.end) },
                make: { ScopeInterval(start: $1, end: $2, node: $0.node) })
            lines += TableBuilder.clip(
                TableBuilder.lineIntervals(info, u.sequences), to: mine, bounds: { ($0.start, $0.end) },
                make: { DebugInfo.LineInterval(start: $1, end: $2, file: $0.file, line: $0.line) })
        }
        info.scopes = []
        info.lines = []
        info.sequences = []
        pieces.sort { $0.start < $1.start }
        lines.sort { $0.start < $1.start }

        var points = Boundaries(pieces, lines, syms)

        locationTable = LocationTable(expected: lines.count + pieces.count + syms.count)
        functionIndex.reserveCapacity(info.nodes.count + syms.count)
        var ranges: [SymbolTable.Range] = []
        ranges.reserveCapacity(2 * (pieces.count + lines.count + syms.count))
        var pi = 0, li = 0, si = 0
        var unknown: UInt32?
        while let p = points.next() {
            while pi < pieces.count, pieces[pi].end <= p { pi += 1 }
            while li < lines.count, lines[li].end <= p { li += 1 }
            while si < syms.count, syms[si].end <= p { si += 1 }
            let node: Int32 = pi < pieces.count && pieces[pi].start <= p ? pieces[pi].node : -1
            let line = li < lines.count && lines[li].start <= p ? lines[li] : nil
            let symbol = si < syms.count && syms[si].start <= p ? si : -1
            var loc = SymbolTable.none
            if node >= 0 {
                loc = chain(info, node, line?.file ?? SymbolTable.none, line?.line ?? SymbolTable.none, symbol)
            } else if let line {
                let fn: UInt32
                var file = line.file
                if symbol >= 0 {
                    fn = symbolFunction(symbol)
                    if file == SymbolTable.none { file = syms[symbol].file }
                } else {
                    if unknown == nil { unknown = function(intern("??"), 0) }
                    fn = unknown ?? 0
                }
                loc = location(fn, file, line.line, SymbolTable.none)
            } else if symbol >= 0 {
                loc = location(symbolFunction(symbol), syms[symbol].file, SymbolTable.none, SymbolTable.none)
            }
            if ranges.last?.location != loc, !(ranges.isEmpty && loc == SymbolTable.none) {
                ranges.append(SymbolTable.Range(start: p, location: loc))
            }
        }
        if let last = ranges.last, last.location != SymbolTable.none, last.start < .max {
            ranges.append(SymbolTable.Range(start: max(points.last ?? 0, last.start + 1), location: SymbolTable.none))
        }
        return SymbolTable(build: build, files: files, functions: functions, locations: locationTable.locations, ranges: ranges)
    }
}
