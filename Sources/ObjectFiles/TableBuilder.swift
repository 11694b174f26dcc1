// Flattens what the readers found into a SymbolTable: sorted address ranges that end where the
// next begins, each pointing at its innermost interned Location. Three layers are merged with
// llvm-symbolizer's rules: function scopes (the last, deepest DIE covering an address wins), line
// rows (the sequence with the lowest end above the address must contain it; the last row at an
// address wins), and the symbol table, whose name replaces the outermost function's name (and
// stands alone where DWARF has no function), as `llvm-symbolizer --inlines` does.
// Every address belongs to at most one unit (llvm's aranges rules), so the table is built region
// by region in address order: a unit is read (by DebugInfoReader's stream, on every core), its
// scopes and rows turned into intervals, its regions walked into ranges, and the unit dropped,
// so memory holds one batch of units plus the table, not the whole file's DWARF. Between units'
// regions only the symbol table speaks. Walking in address order interns locations and functions
// in the same order as one walk over the whole file would.

import Foundation
import SymbolicateModel

struct TableBuilder {
    private var files: [String] = []
    private var fileIndex: [String: UInt32] = [:]
    private var names: [String] = []
    private var nameIndex: [String: UInt32] = [:]
    private var functions: [SymbolTable.Function] = []
    private var functionIndex = FunctionIndex()
    private var locationTable = LocationTable()
    /// Where finished locations and ranges go as the walk goes (nil: they stay in the table).
    private var sink: SymbolTableSink?

    struct SymbolInterval: BoundedInterval, Sendable {
        var start: UInt64
        var end: UInt64
        var name: UInt32
        var file: UInt32
    }

    private mutating func intern(_ name: String) -> UInt32 {
        names.intern(name, index: &nameIndex)
    }

    private mutating func function(_ name: UInt32, _ entry: UInt64) -> UInt32 {
        if let i = functionIndex.find(name, entry) { return i }
        let i = UInt32(functions.count)
        functions.append(SymbolTable.Function(name: names[Int(name)], entry: entry))
        functionIndex.add(name, entry)
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

    struct ScopeInterval: BoundedInterval {
        var start: UInt64
        var end: UInt64
        var node: Int32
    }

    /// Disjoint intervals owned by the deepest, latest scope covering them.
    static func paint(_ scopes: ArraySlice<DebugInfo.Scope>) -> [ScopeInterval] {
        guard !scopes.isEmpty else { return [] }
        let byStart = scopes.indices.sorted { scopes[$0].start < scopes[$1].start }
        var points: [UInt64] = []
        points.reserveCapacity(2 * scopes.count)
        for s in scopes {
            points.append(s.start)
            points.append(s.end)
        }
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
    static func clip<T>(
        _ items: [T], to owned: [(start: UInt64, end: UInt64)], bounds: (T) -> (UInt64, UInt64),
        make: (T, UInt64, UInt64) -> T
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
    static func lineIntervals(_ info: DebugInfo, _ sequences: Range<Int>) -> [DebugInfo.LineInterval] {
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

    private var symbols: [SymbolInterval] = []
    /// The function of each symbol from `symbolBase` on, once interned (SymbolTable.none before).
    private var symbolFunctions: [UInt32] = []
    private var symbolBase = 0
    /// A builder walking one unit's regions on the thread that read it (`walkUnit`): its file
    /// numbers are the unit's own, marked with `unitFileMark`, its ranges are kept per region
    /// as walked, and the merge (`merge`) renumbers everything into the table's builder.
    private var walksOneUnit = false
    /// The table builder's names, which its symbols' names index (when walking one unit).
    private var symbolNames: [String] = []
    /// The unit's number of each symbol name it has used, by the table builder's number.
    private var symbolNameMap = OffsetMap()
    static let unitFileMark: UInt32 = 1 << 31
    /// The first symbol that may still cover the next address walked.
    private var symbolCursor = 0
    private var ranges: [SymbolTable.Range] = []
    /// The largest interval end seen (where the table's last range closes).
    private var lastPoint: UInt64?
    private var unknown: UInt32?

    /// The function of symbol `i`, interned once.
    private mutating func symbolFunction(_ i: Int) -> UInt32 {
        let slot = i - symbolBase
        if symbolFunctions[slot] != SymbolTable.none { return symbolFunctions[slot] }
        // Symbols' names are the table builder's (each text once); a unit's walk adds each one
        // it uses to its own names once, known by the builder's number, not by hashing the text.
        var name = symbols[i].name
        if walksOneUnit {
            let key = UInt64(name)
            if let known = symbolNameMap[key] {
                name = known
            } else {
                let added = UInt32(names.count)
                names.append(symbolNames[Int(name)])
                symbolNameMap.set(key, added)
                name = added
            }
        }
        let fn = function(name, symbols[i].start)
        symbolFunctions[slot] = fn
        return fn
    }

    /// The builder's number of file `f` of `unit`'s DebugInfo (marked when walking one unit alone).
    @inline(__always)
    private func unitFile(_ unit: NodeCache, _ f: UInt32) -> UInt32 {
        guard walksOneUnit else { return unit.file(f) }
        return f == SymbolTable.none ? f : f | TableBuilder.unitFileMark
    }

    /// The location chain of `node` at `file:line` (a builder file index); the outermost
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
                parent = chain(unit, n.parent, unitFile(unit, n.callFile), n.callLine, symbol)
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
            // Walking one unit, its names are the builder's names as they stand (each once).
            fn = function(walksOneUnit ? n.name : intern(unit.info.names[Int(n.name)]), n.entry)
            unit.nodeFunction[i] = fn
        }
        return location(fn, file, line, parent)
    }

    private mutating func append(_ start: UInt64, _ loc: UInt32) {
        if ranges.last?.location != loc, walksOneUnit || !(ranges.isEmpty && loc == SymbolTable.none) {
            ranges.append(SymbolTable.Range(start: start, location: loc))
        }
    }

    /// Ranges for `lo..<hi` (hi nil: to the end of the address space), where `pieces` and
    /// `lines` (of `unit`, all inside the region) and the symbols decide. Regions are walked in
    /// ascending, adjacent order.
    private mutating func walk(
        _ lo: UInt64, _ hi: UInt64?, _ pieces: [ScopeInterval], _ lines: [DebugInfo.LineInterval], _ unit: NodeCache
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
            let lineFile = line.map { unitFile(unit, $0.file) } ?? SymbolTable.none
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
                    if unknown == nil { unknown = function(intern("??"), 0) }
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

    /// The index of the first symbol whose interval ends after `address` (symbols are sorted and
    /// disjoint, so their ends ascend too).
    private static func firstSymbol(_ symbols: [SymbolInterval], endingAfter address: UInt64) -> Int {
        symbols.partitioningIndex { $0.end > address }
    }

    /// The index of the first symbol starting at or after `address`.
    private static func firstSymbol(_ symbols: [SymbolInterval], startingAtOrAfter address: UInt64) -> Int {
        symbols.partitioningIndex { $0.start >= address }
    }

    /// Walks one unit's regions (`owned`, ascending; `pieces` and `lines` inside them) on its own,
    /// on the thread that read the unit, as the table's builder would walk them: its functions
    /// and locations are numbered by this walk alone, its files are the unit's own, and each
    /// region's ranges are kept as walked. `merge` then renumbers them into the table's builder,
    /// region by region in address order, interning the same locations in the same order as
    /// walking there would, so the table is the same; only the renumbering stays serial.
    static func walkUnit(
        _ cache: NodeCache, pieces: [ScopeInterval], lines: [DebugInfo.LineInterval],
        owned: [(start: UInt64, end: UInt64)], symbols: [SymbolInterval], symbolNames: [String]
    ) -> PreparedUnit {
        var b = TableBuilder()
        b.walksOneUnit = true
        b.symbols = symbols
        b.symbolNames = symbolNames
        // The unit's names number its functions' names (a text stored at two places is two
        // names here, one again once merged); symbols' names and "??" are added after them, as
        // other names, when they are used.
        b.names = cache.info.names
        if let first = owned.first, let last = owned.last {
            b.symbolBase = firstSymbol(symbols, endingAfter: first.start)
            let end = firstSymbol(symbols, startingAtOrAfter: last.end)
            b.symbolFunctions = Array(repeating: SymbolTable.none, count: max(0, end - b.symbolBase))
        }
        var regions: [PreparedUnit.Region] = []
        regions.reserveCapacity(owned.count)
        b.locationTable.reserve(lines.count + pieces.count / 2)
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
            b.ranges = []
            // About one range per line row; more only where scopes and symbols add boundaries.
            b.ranges.reserveCapacity((pe - pi) + (le - li) + 1)
            b.lastPoint = nil
            b.locationTable.forget(expected: (pe - pi) + (le - li))
            let first = b.locationTable.locations.count
            b.symbolCursor = firstSymbol(symbols, endingAfter: r.start)
            b.walk(r.start, r.end, Array(pieces[pi..<pe]), Array(lines[li..<le]), cache)
            regions.append(
                PreparedUnit.Region(
                    locations: first..<b.locationTable.locations.count, ranges: b.ranges, lastPoint: b.lastPoint))
            pi = pe
            li = le
        }
        return PreparedUnit(
            cache: cache, functions: b.functions, locations: b.locationTable.locations, regions: regions)
    }

    /// Adds `unit`'s next region, as `walkUnit` walked it: its new locations renumbered and
    /// interned in the order they were made (functions, files and parents renumbered on the
    /// way), then its ranges.
    private mutating func merge(_ unit: PreparedUnit) {
        guard let region = unit.nextRegion() else { return }
        locationTable.forget(expected: region.locations.count)
        for i in region.locations {
            let l = unit.locations[i]
            var fn = unit.functionMap[Int(l.function)]
            if fn == SymbolTable.none {
                let f = unit.functions[Int(l.function)]
                fn = function(intern(f.name), f.entry)
                unit.functionMap[Int(l.function)] = fn
            }
            var file = l.file
            if file != SymbolTable.none, file & TableBuilder.unitFileMark != 0 {
                file = unit.cache.file(file & ~TableBuilder.unitFileMark)
            }
            let parent = l.parent == SymbolTable.none ? SymbolTable.none : unit.locationMap[Int(l.parent)]
            unit.locationMap[i] = location(fn, file, l.line, parent)
        }
        for r in region.ranges {
            append(r.start, r.location == SymbolTable.none ? SymbolTable.none : unit.locationMap[Int(r.location)])
        }
        if let p = region.lastPoint { lastPoint = max(lastPoint ?? p, p) }
    }

    /// Hands the sink the locations and ranges nothing will change any more: locations before
    /// the current region's, and every range but the last (the next may still replace it).
    private mutating func flush() throws {
        guard let sink else { return }
        let locations = locationTable.drain()
        if !locations.isEmpty { try sink.take(locations: locations) }
        if ranges.count > 1 {
            try sink.take(ranges: ranges[..<(ranges.count - 1)])
            ranges.removeFirst(ranges.count - 1)
        }
    }

    /// Closes the table after the last region. With a sink, everything left goes to it and the
    /// table returned holds no locations or ranges.
    private mutating func finish(build: BuildInfo) throws -> SymbolTable {
        if let last = ranges.last, last.location != SymbolTable.none, last.start < .max {
            ranges.append(SymbolTable.Range(start: max(lastPoint ?? 0, last.start + 1), location: SymbolTable.none))
        }
        if let sink {
            locationTable.forget(expected: 0)
            try flush()
            if !ranges.isEmpty { try sink.take(ranges: ranges[...]) }
            return SymbolTable(build: build, files: files, functions: functions, locations: [], ranges: [])
        }
        return SymbolTable(
            build: build, files: files, functions: functions, locations: locationTable.locations, ranges: ranges)
    }

    /// Which unit owns each address: .debug_aranges, plus the DIE ranges of the units it omits;
    /// disjoint regions in ascending order.
    private static func regions(
        arangeEntries: [AddressRangeTable.Entry], arangeUnits: Set<UInt64>,
        units: [(offset: UInt64, ranges: [(start: UInt64, end: UInt64)])]
    ) -> [AddressRangeTable.Entry] {
        var entries = arangeEntries
        for u in units where !arangeUnits.contains(u.offset) {
            for r in u.ranges { entries.append(AddressRangeTable.Entry(start: r.start, end: r.end, unit: u.offset)) }
        }
        return AddressRangeTable.construct(entries)
    }

    /// Walks `regions` in order, loading units in batches as `load` delivers them (in batch
    /// order, by unit offset; a unit it does not deliver contributes nothing) and dropping each
    /// after its last region. Files are numbered in the order units arrive, so in address order.
    private mutating func walkRegions(
        _ regions: [AddressRangeTable.Entry], batches: [[UInt64]], load: ([UInt64]) throws -> [(UInt64, PreparedUnit)]
    ) throws {
        var lastRegion: [UInt64: Int] = [:]
        for (i, r) in regions.enumerated() { lastRegion[r.unit] = i }
        var loaded: [UInt64: PreparedUnit] = [:]
        var requested: Set<UInt64> = []
        var cursor = 0
        var position: UInt64 = 0
        var batchIndex = 0
        while cursor < regions.count {
            let r = regions[cursor]
            if !requested.contains(r.unit) {
                guard batchIndex < batches.count else { break }
                let batch = batches[batchIndex]
                batchIndex += 1
                try flush()
                requested.formUnion(batch)
                for (offset, prepared) in try load(batch) {
                    prepared.cache.mapFiles(into: &self)
                    loaded[offset] = prepared
                }
                continue
            }
            if position < r.start { walk(position, r.start, [], [], NodeCache.none) }
            if let unit = loaded[r.unit] {
                merge(unit)
            } else {
                walk(r.start, r.end, [], [], NodeCache.none)
            }
            position = r.end
            if lastRegion[r.unit] == cursor { loaded[r.unit] = nil }
            cursor += 1
        }
        walk(position, nil, [], [], NodeCache.none)
    }

    /// The builder's index of file `path`, added when new.
    fileprivate mutating func fileIndex(of path: String) -> UInt32 {
        files.intern(path, index: &fileIndex)
    }

    /// Units in the order their first region comes, in batches of about `batchBytes` of
    /// `.debug_info` each (`size` gives a unit's).
    private static func batches(_ regions: [AddressRangeTable.Entry], batchBytes: Int, size: (UInt64) -> Int)
        -> [[UInt64]]
    {
        var seen: Set<UInt64> = []
        var out: [[UInt64]] = []
        var current: [UInt64] = []
        var bytes = 0
        for r in regions where seen.insert(r.unit).inserted {
            current.append(r.unit)
            bytes += size(r.unit)
            if bytes >= batchBytes {
                out.append(current)
                current = []
                bytes = 0
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// A unit's scopes and line rows as intervals inside the regions it owns.
    static func prepare(_ info: DebugInfo, _ u: DebugInfo.Unit, owned: [(start: UInt64, end: UInt64)]) -> (
        pieces: [ScopeInterval], lines: [DebugInfo.LineInterval]
    ) {
        let pieces = clip(
            paint(info.scopes[u.scopes]), to: owned, bounds: { ($0.start, $0.end) },
            make: { ScopeInterval(start: $1, end: $2, node: $0.node) })
        let lines = clip(
            lineIntervals(info, u.sequences), to: owned, bounds: { ($0.start, $0.end) },
            make: { DebugInfo.LineInterval(start: $1, end: $2, file: $0.file, line: $0.line) })
        return (pieces, lines)
    }

    private static func owned(_ regions: [AddressRangeTable.Entry]) -> [UInt64: [(start: UInt64, end: UInt64)]] {
        var owned: [UInt64: [(start: UInt64, end: UInt64)]] = [:]
        for e in regions { owned[e.unit, default: []].append((e.start, e.end)) }
        return owned
    }

    /// The table from a whole file's DebugInfo, read at once (libdwarf's reader and tests).
    static func build(build: BuildInfo, debugInfo: consuming DebugInfo?, symbols: [RawSymbol]) -> SymbolTable {
        var b = TableBuilder()
        let info = (consume debugInfo) ?? DebugInfo()
        // The reader numbered the files in unit order; they keep those numbers, before the symbols' files.
        let cache = NodeCache(info)
        cache.mapFiles(into: &b)
        b.symbols = b.symbolIntervals(symbols)
        b.symbolFunctions = Array(repeating: SymbolTable.none, count: b.symbols.count)
        let regions = regions(
            arangeEntries: info.arangeEntries, arangeUnits: info.arangeUnits,
            units: info.units.map { ($0.offset, $0.ranges) })
        let owned = owned(regions)
        var prepared: [UInt64: PreparedUnit] = [:]
        for u in info.units {
            guard let mine = owned[u.offset] else { continue }
            let (pieces, lines) = prepare(info, u, owned: mine)
            prepared[u.offset] = walkUnit(
                cache, pieces: pieces, lines: lines, owned: mine, symbols: b.symbols, symbolNames: b.names)
        }
        // One batch holding every unit.
        var all: [UInt64] = []
        var seen: Set<UInt64> = []
        for r in regions where seen.insert(r.unit).inserted { all.append(r.unit) }
        do {
            try b.walkRegions(regions, batches: [all]) { batch in batch.compactMap { u in prepared[u].map { (u, $0) } }
            }
            return try b.finish(build: build)
        } catch {
            preconditionFailure("without a sink, walking prepared units cannot fail")
        }
    }

    /// The table from `stream`, read a batch of units at a time on `threads` threads. With a
    /// `sink`, locations and ranges go to it as each batch is done (see `finish`).
    static func build(
        build: BuildInfo, stream: DebugInfoStream, symbols: [RawSymbol], sink: SymbolTableSink? = nil
    ) throws -> SymbolTable {
        var b = TableBuilder()
        b.sink = sink
        b.symbols = b.symbolIntervals(symbols)
        b.symbolFunctions = Array(repeating: SymbolTable.none, count: b.symbols.count)
        let regions = regions(
            arangeEntries: stream.arangeEntries, arangeUnits: stream.arangeUnits, units: try stream.unitRanges())
        // Reading every unit's first DIE faulted in pages all over the file (the kernel maps
        // its neighbours too); let them go before the walk reads the file in order.
        stream.releaseResidentPages()
        let owned = owned(regions)
        let batches = batches(regions, batchBytes: DebugInfoReader.batchBytes) { stream.size(ofUnitAt: $0) }
        let symbols = b.symbols
        let symbolNames = b.names
        // Batch k + 1 is read (and its units walked) on other threads while this one merges
        // batch k: the merge and the build-file writing are the serial part of an import.
        let reader = BatchPipeline(count: batches.count) { i in
            let batch = batches[i]
            let parts = try stream.read(units: batch) { (info: DebugInfo) -> PreparedUnit? in
                guard let u = info.units.first, let mine = owned[u.offset] else { return nil }
                let (pieces, lines) = prepare(info, u, owned: mine)
                var slim = info
                slim.scopes = []
                slim.lines = []
                slim.sequences = []
                return walkUnit(
                    NodeCache(slim), pieces: pieces, lines: lines, owned: mine, symbols: symbols,
                    symbolNames: symbolNames)
            }
            return zip(batch, parts).compactMap { offset, part in part.map { (offset, $0) } }
        } between: {
            // Nothing reads the file between two batches: its pages can go.
            stream.releaseResidentPages()
        }
        var next = 0
        let batchSizes = batches.map { $0.reduce(0) { $0 + stream.size(ofUnitAt: $1) } }
        let total = batchSizes.reduce(0, +)
        var done = 0
        try b.walkRegions(regions, batches: batches) { _ in
            defer { next += 1 }
            let parts = try reader.take(next)
            done += batchSizes[next]
            sink?.progress(done: done, total: total)
            return parts
        }
        return try b.finish(build: build)
    }
}

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
    fileprivate func mapFiles(into builder: inout TableBuilder) {
        guard !mapped else { return }
        mapped = true
        fileMap = info.files.map { builder.fileIndex(of: $0) }
    }

    @inline(__always)
    func file(_ f: UInt32) -> UInt32 { Int(f) < fileMap.count ? fileMap[Int(f)] : f }
}

/// A unit walked on its own (`TableBuilder.walkUnit`), waiting to be merged region by region:
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
    let locations: [SymbolTable.Location]
    /// Owned buffers, as NodeCache's are (the merge writes them once per location).
    let functionMap: UnsafeMutableBufferPointer<UInt32>
    let locationMap: UnsafeMutableBufferPointer<UInt32>
    private var regions: [Region]
    private var next = 0

    init(cache: NodeCache, functions: [SymbolTable.Function], locations: [SymbolTable.Location], regions: [Region]) {
        self.cache = cache
        self.functions = functions
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

/// Produces results 0, 1, 2, ... in order, producing result k + 1 on another thread while the
/// caller works on result k. `between` runs after one result is produced and before the next
/// starts, while nothing is being produced.
// @unchecked: `ahead` is only touched by the one thread that calls `take`; the result produced
// ahead crosses threads through `produced`, a Locked value with its condition.
final class BatchPipeline<T>: @unchecked Sendable {
    private let count: Int
    private let produce: @Sendable (Int) throws -> T
    private let between: @Sendable () -> Void
    /// The index of the result being produced ahead, if one is.
    private var ahead: Int?
    /// The result produced ahead, once it is done.
    private let produced = Locked<Result<T, Error>?>(nil)
    private let done = Locked<Result<T, Error>?>.Condition()

    init(count: Int, produce: @escaping @Sendable (Int) throws -> T, between: @escaping @Sendable () -> Void) {
        self.count = count
        self.produce = produce
        self.between = between
    }

    deinit {
        // A caller that stopped early (an error) still waits for the thread producing ahead.
        if ahead != nil { produced.wait(on: done, until: { $0 != nil }, then: { _ in }) }
    }

    /// Result `index`; call with 0, 1, 2, ... in order.
    func take(_ index: Int) throws -> T {
        let result: Result<T, Error>
        if let ahead, ahead == index {
            self.ahead = nil
            let taken = produced.wait(on: done, until: { $0 != nil }, then: { $0.take() })
            result = taken ?? .failure(DecodeError("batch \(index) was not read"))
        } else {
            result = Result { try produce(index) }
        }
        between()
        if index + 1 < count, case .success = result {
            ahead = index + 1
            let produce = self.produce
            let produced = self.produced
            let done = self.done
            DispatchQueue.global().async {
                let r = Result { try produce(index + 1) }
                produced.withLock { $0 = r }
                done.signal()
            }
        }
        return try result.get()
    }
}
