// TableBuilder: the symbol table of one build, merged from its units' walks: sorted address
// ranges that end where the next begins, each pointing at its innermost interned Location, with
// the table's one numbering of files, names, functions and locations. Every address belongs to
// at most one unit (llvm's aranges rules), so the table is built region by region in address
// order: a unit is read (by DebugInfoReader's stream, on every core), its scopes and rows turned
// into intervals and walked into ranges by UnitWalker on the thread that read it, and the walk
// merged here (renumbered) and dropped, so memory holds one batch of units plus the table, not
// the whole file's DWARF. Stretches no unit covers are walked the same way, with the symbols
// alone. Merging in address order interns locations and functions in the same order as one walk
// over the whole file would. With a sink, finished locations and ranges go to it as the merge
// goes instead of staying in memory.

import Foundation
import SymbolicateModel

struct TableBuilder {
    private var files: [String] = []
    private var fileIndex = StringIndex()
    private var names: [String] = []
    private var nameIndex = StringIndex()
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

    /// The table's function of symbol `i`, found once by name and entry and then by the symbol.
    private mutating func symbolFunction(_ i: Int) -> UInt32 {
        if symbolFunctions[i] == SymbolTable.none { symbolFunctions[i] = function(symbols[i].name, symbols[i].start) }
        return symbolFunctions[i]
    }

    /// llvm-symbolizer's symbol lookup as intervals: aliases collapse to the largest (then last)
    /// one; a symbol reaches its size, or the next symbol when it has none.
    private mutating func symbolIntervals(_ symbols: [RawSymbol]) -> [SymbolInterval] {
        // Sorted as (address, size, index) keys: sorting indices by a comparison that reads the
        // symbols copies each one's strings (a retain and a release) at every comparison.
        var keys: [(address: UInt64, size: UInt64, index: Int)] = []
        keys.reserveCapacity(symbols.count)
        for i in symbols.indices { keys.append((symbols[i].address, symbols[i].size, i)) }
        keys.sort { ($0.address, $0.size, $0.index) < ($1.address, $1.size, $1.index) }
        var unique: [(address: UInt64, size: UInt64, index: Int)] = []
        unique.reserveCapacity(keys.count)
        for k in keys {
            if let last = unique.last, last.address == k.address {
                unique[unique.count - 1] = k
            } else {
                unique.append(k)
            }
        }
        var out: [SymbolInterval] = []
        out.reserveCapacity(unique.count)
        // A linked Swift program has hundreds of thousands of symbols, most of them named once:
        // the name index grows once, not by doubling through them. Local symbols come in runs
        // of one source file's (the STT_FILE before them), so the last file is asked first.
        names.reserveCapacity(names.count + unique.count)
        nameIndex.reserveCapacity(unique.count)
        var lastFile: (name: String, index: UInt32)? = nil
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
            if let f = symbols[s.index].file, !f.isEmpty {
                if let lastFile, lastFile.name == f {
                    file = lastFile.index
                } else {
                    file = files.intern(f, index: &fileIndex)
                }
                lastFile = (f, file)
            }
            out.append(SymbolInterval(start: s.address, end: end, name: intern(symbols[s.index].name), file: file))
        }
        return out
    }

    private var symbols: [SymbolInterval] = []
    /// The table's function of each symbol, once a walk has used it (SymbolTable.none before).
    private var symbolFunctions: [UInt32] = []
    private var ranges: [SymbolTable.Range] = []
    /// The largest interval end seen (where the table's last range closes).
    private var lastPoint: UInt64?

    /// A range from `start` on, unless it repeats the last one's location; the table starts
    /// with its first location, not with a stretch of none.
    private mutating func append(_ start: UInt64, _ loc: UInt32) {
        if ranges.last?.location != loc, !(ranges.isEmpty && loc == SymbolTable.none) {
            ranges.append(SymbolTable.Range(start: start, location: loc))
        }
    }

    /// Walks `lo..<hi` (hi nil: to the end of the address space), which no unit covers, and
    /// merges it at once: only the symbols speak there.
    private mutating func walkSymbols(_ lo: UInt64, _ hi: UInt64?) {
        merge(UnitWalker.walkSymbols(lo, hi, symbols: symbols))
    }

    /// Adds `unit`'s next region, as UnitWalker walked it: its new locations renumbered and
    /// interned in the order they were made (functions, files and parents renumbered on the
    /// way), then its ranges. The walk made each of a region's locations once, so renumbered
    /// they stay distinct, and are appended without looking them up, as long as the
    /// renumbering is one-to-one in the region: no two of the unit's functions (or files)
    /// become one of the table's. Where two do (a symbol's function and a DIE's of one name and
    /// entry, a symbol's file and a line table's of one path), two locations may become one,
    /// and from there on the unit's locations are interned (later locations' parents may be
    /// such a pair).
    private mutating func merge(_ unit: PreparedUnit) {
        guard let region = unit.nextRegion() else { return }
        regionSerial += 1
        locationTable.forget(expected: region.locations.count)
        for i in region.locations {
            let l = unit.locations[i]
            var fn = unit.functionMap[Int(l.function)]
            if fn == SymbolTable.none {
                let symbol = unit.functionSymbols[Int(l.function)]
                if symbol != SymbolTable.none {
                    fn = symbolFunction(Int(symbol))
                } else {
                    let f = unit.functions[Int(l.function)]
                    fn = function(intern(f.name), f.entry)
                }
                unit.functionMap[Int(l.function)] = fn
            }
            var file = l.file
            if file != SymbolTable.none, file & UnitWalker.unitFileMark != 0 {
                file = unit.cache.file(file & ~UnitWalker.unitFileMark)
            }
            let parent = l.parent == SymbolTable.none ? SymbolTable.none : unit.locationMap[Int(l.parent)]
            let location = SymbolTable.Location(function: fn, file: file, line: l.line, parent: parent)
            if unit.oneToOne {
                unit.oneToOne =
                    TableBuilder.claim(&functionOwner, fn, as: l.function, in: regionSerial)
                    && (file == SymbolTable.none
                        || TableBuilder.claim(&fileOwner, file, as: l.file, in: regionSerial))
            }
            unit.locationMap[i] = unit.oneToOne ? locationTable.appendNew(location) : locationTable.intern(location)
        }
        for r in region.ranges {
            append(r.start, r.location == SymbolTable.none ? SymbolTable.none : unit.locationMap[Int(r.location)])
        }
        if let p = region.lastPoint { lastPoint = max(lastPoint ?? p, p) }
    }

    /// The number of regions merged so far: the current one's serial.
    private var regionSerial: UInt32 = 0
    /// For each of the table's functions and files, the region (serial) that last renumbered a
    /// unit's own into it, and which of the unit's own (high and low 32 bits).
    private var functionOwner: [UInt64] = []
    private var fileOwner: [UInt64] = []

    /// Records that the current region's unit's `number` becomes the table's `index`: false
    /// when another of the unit's numbers became it in this region.
    @inline(__always)
    private static func claim(_ owners: inout [UInt64], _ index: UInt32, as number: UInt32, in region: UInt32)
        -> Bool
    {
        let i = Int(index)
        if i >= owners.count {
            owners.append(contentsOf: repeatElement(0, count: max(i + 1 - owners.count, owners.count)))
        }
        let owner = UInt64(region) << 32 | UInt64(number)
        let previous = owners[i]
        owners[i] = owner
        return previous >> 32 != UInt64(region) || previous == owner
    }

    /// Hands the sink the locations and ranges nothing will change any more: locations before
    /// the current region's, and every range but the last (the next may still replace it).
    private mutating func flush() throws {
        guard let sink else { return }
        try locationTable.drain { try sink.take(locations: $0) }
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
            if position < r.start { walkSymbols(position, r.start) }
            if let unit = loaded[r.unit] {
                merge(unit)
            } else {
                walkSymbols(r.start, r.end)
            }
            position = r.end
            if lastRegion[r.unit] == cursor { loaded[r.unit] = nil }
            cursor += 1
        }
        walkSymbols(position, nil)
    }

    /// The builder's index of file `path`, added when new.
    mutating func fileIndex(of path: String) -> UInt32 {
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

    private static func owned(_ regions: [AddressRangeTable.Entry]) -> [UInt64: [(start: UInt64, end: UInt64)]] {
        var owned: [UInt64: [(start: UInt64, end: UInt64)]] = [:]
        for e in regions { owned[e.unit, default: []].append((e.start, e.end)) }
        return owned
    }

    /// A builder for `symbols`, with the files of `cache` (a whole file's DebugInfo) numbered
    /// before the symbols' files.
    private init(symbols: [RawSymbol], filesOf cache: NodeCache? = nil, sink: SymbolTableSink? = nil) {
        self.sink = sink
        cache?.mapFiles(into: &self)
        self.symbols = symbolIntervals(symbols)
        symbolFunctions = Array(repeating: SymbolTable.none, count: self.symbols.count)
    }

    /// The table from a whole file's DebugInfo, read at once (libdwarf's reader and tests).
    static func build(build: BuildInfo, debugInfo: consuming DebugInfo?, symbols: [RawSymbol]) -> SymbolTable {
        let info = (consume debugInfo) ?? DebugInfo()
        // The reader numbered the files in unit order; they keep those numbers, before the symbols' files.
        let cache = NodeCache(info)
        var b = TableBuilder(symbols: symbols, filesOf: cache)
        let regions = regions(
            arangeEntries: info.arangeEntries, arangeUnits: info.arangeUnits,
            units: info.units.map { ($0.offset, $0.ranges) })
        let owned = owned(regions)
        var prepared: [UInt64: PreparedUnit] = [:]
        for u in info.units {
            guard let mine = owned[u.offset] else { continue }
            let (pieces, lines) = prepare(info, u, owned: mine)
            prepared[u.offset] = UnitWalker.walkUnit(
                cache, pieces: pieces, lines: lines, owned: mine, symbols: b.symbols)
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

    /// A unit read and cut into the regions it owns, not yet walked.
    private struct ReadUnit: Sendable {
        let info: DebugInfo
        let pieces: [ScopeInterval]
        let lines: [DebugInfo.LineInterval]
        let owned: [(start: UInt64, end: UInt64)]

        func walk(_ symbols: [SymbolInterval]) -> PreparedUnit {
            UnitWalker.walkUnit(NodeCache(info), pieces: pieces, lines: lines, owned: owned, symbols: symbols)
        }
    }

    /// `units` walked on `threads` threads, in the order given.
    private static func walkAll(_ units: [ReadUnit?], symbols: [SymbolInterval], threads: Int) -> [PreparedUnit?] {
        let walked = PartSlots<PreparedUnit>(count: units.count)
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, units.count))) { _ in
            while let k = walked.claim() {
                if let unit = units[k] { walked.set(k, .success(unit.walk(symbols))) }
            }
        }
        return walked.take().map { try? $0.get() } as [PreparedUnit?]
    }

    /// The table from `stream`, read a batch of units at a time on `threads` threads, and the
    /// symbols `readSymbols` reads. With a `sink`, locations and ranges go to it as each batch
    /// is done (see `finish`).
    static func build(
        build: BuildInfo, stream: DebugInfoStream, symbols readSymbols: () throws -> [RawSymbol],
        sink: SymbolTableSink? = nil
    ) throws -> SymbolTable {
        let regions = regions(
            arangeEntries: stream.arangeEntries, arangeUnits: stream.arangeUnits, units: try stream.unitRanges())
        // Reading every unit's first DIE faulted in pages all over the file (the kernel maps
        // its neighbours too); let them go before the walk reads the file in order.
        stream.releaseResidentPages()
        let owned = owned(regions)
        let batches = batches(regions, batchBytes: DebugInfoReader.batchBytes) { stream.size(ofUnitAt: $0) }
        // Walking a unit needs the symbols; reading it does not. The first batch's units are
        // read on other threads while this one reads and sorts the symbols, and walked once
        // they are there; later batches are read and walked unit by unit.
        let symbolsRead = Gate<[SymbolInterval]>()
        let read: @Sendable (DebugInfo) -> ReadUnit? = { info in
            guard let u = info.units.first, let mine = owned[u.offset] else { return nil }
            let (pieces, lines) = prepare(info, u, owned: mine)
            var slim = info
            slim.scopes = []
            slim.lines = []
            slim.sequences = []
            return ReadUnit(info: slim, pieces: pieces, lines: lines, owned: mine)
        }
        let threads = stream.threads
        // Batch k + 1 is read (and its units walked) on other threads while this one merges
        // batch k: the merge and the build-file writing are the serial part of an import.
        let reader = BatchPipeline(count: batches.count) { i in
            let batch = batches[i]
            let parts: [PreparedUnit?]
            if i == 0 {
                let units = try stream.read(units: batch, read)
                parts = walkAll(units, symbols: symbolsRead.wait(), threads: threads)
            } else {
                let symbols = symbolsRead.wait()
                parts = try stream.read(units: batch) { read($0)?.walk(symbols) }
            }
            return zip(batch, parts).compactMap { offset, part in part.map { (offset, $0) } }
        } between: {
            // Nothing reads the file between two batches: its pages can go.
            stream.releaseResidentPages()
        }
        reader.start()
        var b: TableBuilder
        do {
            b = TableBuilder(symbols: try readSymbols(), sink: sink)
        } catch {
            // The first batch's walks go on without symbols, and the reader waits for them.
            symbolsRead.open([])
            throw error
        }
        symbolsRead.open(b.symbols)
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
