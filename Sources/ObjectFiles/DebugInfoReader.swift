// Reads DWARF into the raw material of a symbol table: the tree of concrete functions and
// inlined subroutines with their address ranges (`scopes`, in DIE order so that later, deeper
// DIEs win where they overlap, as llvm-symbolizer's address map does), and the line-table rows
// of every unit as address intervals. Names follow DW_AT_abstract_origin / DW_AT_specification
// and prefer the linkage (mangled) name, as `llvm-symbolizer --no-demangle` prints them.
// Units are independent: each is read into a part of its own (`UnitReader`), and the parts are
// appended in unit order (`read`) or handed to the table builder a batch at a time
// (`DebugInfoStream`), so the result is the same whichever thread read which unit. Our own DIE
// reader (DieDecoder) walks the units on every core; libdwarf, which must not be called from two
// threads, remains as a second, serial reader that tests hold the first one to.

import Foundation
import SymbolicateModel

struct DebugInfo {
    struct Node: Equatable {
        var name: UInt32
        /// Low pc of a concrete function; 0 for inlined copies.
        var entry: UInt64
        var parent: Int32
        var callFile: UInt32
        var callLine: UInt32
    }

    struct Scope: Equatable {
        var start: UInt64
        var end: UInt64
        var node: Int32
    }

    struct LineInterval: Equatable {
        var start: UInt64
        var end: UInt64
        var file: UInt32
        var line: UInt32
    }

    struct Sequence: Equatable {
        var low: UInt64
        var high: UInt64
        var intervals: Range<Int>
    }

    /// One compilation unit: its header offset, the ranges its DIE states, and its share of
    /// `scopes` and `sequences` (llvm looks up lines and functions only in the unit that owns an
    /// address).
    struct Unit {
        var offset: UInt64
        var ranges: [(start: UInt64, end: UInt64)]
        var scopes: Range<Int>
        var sequences: Range<Int>
    }

    var units: [Unit] = []
    /// `.debug_aranges`, when present.
    var arangeEntries: [AddressRangeTable.Entry] = []
    var arangeUnits: Set<UInt64> = []
    var names: [String] = []
    var files: [String] = []
    var nodes: [Node] = []
    var scopes: [Scope] = []
    var lines: [LineInterval] = []
    var sequences: [Sequence] = []
}

extension DebugInfo {
    /// Appends `part`, read from the units that follow ours: its names and nodes are renumbered
    /// after ours, its files are merged into `files` through `fileIndex` (first seen, first
    /// numbered), and its scopes, lines and sequences are shifted to match.
    mutating func append(_ part: DebugInfo, fileIndex: inout [String: UInt32]) {
        let nameBase = UInt32(names.count)
        let nodeBase = Int32(nodes.count)
        let scopeBase = scopes.count
        let lineBase = lines.count
        let sequenceBase = sequences.count
        var fileMap: [UInt32] = []
        fileMap.reserveCapacity(part.files.count)
        for f in part.files { fileMap.append(files.intern(f, index: &fileIndex)) }
        func file(_ f: UInt32) -> UInt32 { Int(f) < fileMap.count ? fileMap[Int(f)] : f }
        names += part.names
        nodes.reserveCapacity(nodes.count + part.nodes.count)
        for var n in part.nodes {
            n.name += nameBase
            if n.parent >= 0 { n.parent += nodeBase }
            n.callFile = file(n.callFile)
            nodes.append(n)
        }
        scopes.reserveCapacity(scopes.count + part.scopes.count)
        for var s in part.scopes {
            s.node += nodeBase
            scopes.append(s)
        }
        lines.reserveCapacity(lines.count + part.lines.count)
        for var l in part.lines {
            l.file = file(l.file)
            lines.append(l)
        }
        for var q in part.sequences {
            q.intervals = (q.intervals.lowerBound + lineBase)..<(q.intervals.upperBound + lineBase)
            sequences.append(q)
        }
        for var u in part.units {
            u.scopes = (u.scopes.lowerBound + scopeBase)..<(u.scopes.upperBound + scopeBase)
            u.sequences = (u.sequences.lowerBound + sequenceBase)..<(u.sequences.upperBound + sequenceBase)
            units.append(u)
        }
    }
}

enum DebugInfoReader {
    /// Which reader walks the DIEs: our own (`DieDecoder`, on `threads` threads) or libdwarf
    /// (serial, behind its lock; kept as the cross-check).
    enum Backend: Sendable, Equatable {
        case own(threads: Int)
        case libdwarf

        static var `default`: Backend { .own(threads: max(1, ProcessInfo.processInfo.activeProcessorCount)) }
    }

    static let libdwarfSections: Set<String> = [
        ".debug_info", ".debug_abbrev", ".debug_str", ".debug_str_offsets", ".debug_addr", ".debug_line_str",
    ]
    /// Units are read in batches of about this many bytes of `.debug_info` (at least one unit).
    static let batchBytes = 4 << 20

    /// The whole file's DebugInfo at once, units appended in section order: libdwarf's reading,
    /// and ours where tests compare the two. An import streams our reader's units through
    /// `TableBuilder.build(stream:)` instead, a batch at a time.
    static func read(sections: [String: ByteReader], pointerSize: Int, backend: Backend = .default) throws -> DebugInfo
    {
        var info = DebugInfo()
        if let aranges = sections[".debug_aranges"] {
            (info.arangeEntries, info.arangeUnits) = try AddressRangeTable.parse(aranges)
        }
        var fileIndex: [String: UInt32] = [:]
        switch backend {
        case .libdwarf:
            // libdwarf gets only what walking DIEs needs: we decode line tables, range lists and
            // aranges ourselves, and libdwarf 20210528 loops forever on some corrupt .debug_rnglists.
            let forLibdwarf = sections.filter { libdwarfSections.contains($0.key) }
            var reader = UnitReader(sections: sections)
            try DwarfSession.withSession(sections: forLibdwarf, pointerSize: pointerSize) { session in
                try session.forEachUnit { unit in
                    info.append(try reader.read(unit, session), fileIndex: &fileIndex)
                }
            }
        case .own(let threads):
            let stream = try DebugInfoStream(sections: sections, threads: threads)
            let offsets = stream.unitOffsets
            var next = 0
            while next < offsets.count {
                var end = next
                var bytes = 0
                while end < offsets.count, end == next || bytes < batchBytes {
                    bytes += stream.size(ofUnitAt: offsets[end])
                    end += 1
                }
                for part in try stream.read(units: Array(offsets[next..<end]), { $0 }) {
                    if let part { info.append(part, fileIndex: &fileIndex) }
                }
                next = end
            }
        }
        return info
    }
}

/// Our own reader's units, read on demand: a batch at a time, on up to `threads` threads that
/// take the batch's units in turn, each thread with its own DieDecoder and UnitReader. Results
/// come back in the order asked for, so they do not depend on which thread read what.
// @unchecked: immutable after init; each reading thread works on views of its own (SharedSections.local).
final class DebugInfoStream: @unchecked Sendable {
    /// `.debug_aranges`, when present, and the units it covers.
    let arangeEntries: [AddressRangeTable.Entry]
    let arangeUnits: Set<UInt64>
    private let shared: SharedSections
    let threads: Int
    private let unitIndex: [UInt64: Int]

    init(sections: [String: ByteReader], threads: Int) throws {
        if let aranges = sections[".debug_aranges"] {
            (arangeEntries, arangeUnits) = try AddressRangeTable.parse(aranges)
        } else {
            (arangeEntries, arangeUnits) = ([], [])
        }
        let file = try DwarfInfoFile(sections: sections)
        shared = SharedSections(sections: sections, file: file)
        self.threads = max(1, threads)
        var index: [UInt64: Int] = [:]
        for (i, u) in file.units.enumerated() { index[UInt64(u.offset)] = i }
        unitIndex = index
        // Reading every unit header faulted in pages all over `.debug_info` (the kernel maps
        // each one's neighbours too): about 64 KB a unit, nearly the whole section.
        releaseResidentPages()
    }

    /// The header offsets of every unit, in section order.
    var unitOffsets: [UInt64] { shared.file.units.map { UInt64($0.offset) } }

    /// The bytes the unit at `offset` spans in `.debug_info` (0 for no such unit).
    func size(ofUnitAt offset: UInt64) -> Int {
        guard let i = unitIndex[offset] else { return 0 }
        return shared.file.units[i].end - shared.file.units[i].offset
    }

    /// The ranges the unit DIE of every unit that `.debug_aranges` omits states (units without
    /// a DIE are left out).
    func unitRanges() throws -> [(offset: UInt64, ranges: [(start: UInt64, end: UInt64)])] {
        var reader = UnitReader(sections: shared.sections)
        let decoder = DieDecoder(file: shared.file)
        var out: [(offset: UInt64, ranges: [(start: UInt64, end: UInt64)])] = []
        for (i, u) in shared.file.units.enumerated() where !arangeUnits.contains(UInt64(u.offset)) {
            if let ranges = try reader.unitRanges(unit: i, decoder) { out.append((UInt64(u.offset), ranges)) }
        }
        return out
    }

    /// The units at `offsets`, each read into a part of its own and passed through `transform`
    /// on the thread that read it; nil for a unit without a DIE or one `transform` drops. The
    /// first error, in the order asked for, is thrown.
    func read<T>(units offsets: [UInt64], _ transform: @escaping @Sendable (DebugInfo) -> T?) throws -> [T?] {
        let workers = max(1, min(threads, offsets.count))
        let slots = PartSlots<T>(count: offsets.count)
        let shared = self.shared
        let unitIndex = self.unitIndex
        let work: @Sendable (Int) -> Void = { _ in
            let local = shared.local()
            var reader = UnitReader(sections: local.sections)
            let decoder = DieDecoder(file: local.file)
            while let i = slots.claim() {
                slots.set(
                    i,
                    Result {
                        guard let index = unitIndex[offsets[i]], let part = try reader.read(unit: index, decoder) else {
                            return nil
                        }
                        return transform(part)
                    })
            }
        }
        if workers == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers, execute: work)
        }
        return try slots.take().map { try $0.get() }
    }

    /// Lets the mapped pages of the DWARF sections leave resident memory (they fault back in
    /// from the file when read again).
    func releaseResidentPages() {
        for s in shared.sections.values { s.releaseResidentPages() }
    }
}

/// The sections and unit table of one file, shared read-only by the reading threads.
// @unchecked: immutable; ByteReader points into mapped storage that no thread writes.
private final class SharedSections: @unchecked Sendable {
    let sections: [String: ByteReader]
    let file: DwarfInfoFile
    init(sections: [String: ByteReader], file: DwarfInfoFile) {
        self.sections = sections
        self.file = file
    }

    /// The sections and file over views of their storage of one reading thread's own (see
    /// ByteStorage.view): what a worker reads through.
    func local() -> (sections: [String: ByteReader], file: DwarfInfoFile) {
        var views: [ObjectIdentifier: ByteStorage] = [:]
        func rebase(_ r: ByteReader) -> ByteReader {
            let id = ObjectIdentifier(r.storage)
            let view = views[id] ?? r.storage.view()
            views[id] = view
            return r.on(view)
        }
        return (sections.mapValues(rebase), file.rebased(rebase))
    }
}

/// One result slot per unit of a batch, each written by the thread that read (or walked) the unit.
final class PartSlots<T>: Sendable {
    private let state: Locked<(slots: [Result<T?, Error>], claimed: Int)>
    init(count: Int) { state = Locked((Array(repeating: .success(nil), count: count), 0)) }
    /// The next unit no thread has taken yet.
    func claim() -> Int? {
        state.withLock { state in
            guard state.claimed < state.slots.count else { return nil }
            state.claimed += 1
            return state.claimed - 1
        }
    }
    func set(_ i: Int, _ r: Result<T?, Error>) { state.withLock { $0.slots[i] = r } }
    func take() -> [Result<T?, Error>] { state.withLock { $0.slots } }
}

/// Reads one unit at a time into a DebugInfo of its own (one unit, its names, files and nodes).
/// Names reached through references are remembered across units, since references may cross them.
struct UnitReader {
    private let sections: [String: ByteReader]
    private var part = DebugInfo()
    private var nameIndex = StringIndex()
    /// The part's number of "??", the name of a DIE whose names are all out of reach (nil until met).
    private var unknownName: UInt32?
    /// The part's index of names met by where they lie (our reader's), so that a name seen
    /// before is neither read nor hashed again.
    private var placedNames = OffsetMap()
    private var fileIndex: [String: UInt32] = [:]
    /// Resolved (linkage name, name) of DIEs reached through abstract_origin / specification.
    private var originNames = OffsetMap()
    /// What `originNames` indexes.
    private var origins: [(linkage: DieString?, name: DieString?)] = []
    /// The libdwarf session being read, whose `texts` the DieStrings of its attributes number.
    private var session: DwarfSession?
    private var rangeContext: RangeContext
    /// The ranges of the DIE being entered, kept between DIEs for its capacity.
    private var rangeBuffer: [(start: UInt64, end: UInt64)] = []
    private var table = LineTable()
    private var unitFiles: [UInt32] = []
    static let maxDepth = 256

    init(sections: [String: ByteReader]) {
        self.sections = sections
        rangeContext = RangeContext(
            format: DwarfFormat(version: 4, addressSize: 8, offsetSize: 4), baseAddress: 0,
            debugRanges: sections[".debug_ranges"],
            debugRnglists: sections[".debug_rnglists"], debugAddr: sections[".debug_addr"])
    }

    /// Unit `index` through our own decoder; nil when the unit holds no DIE.
    mutating func read(unit index: Int, _ decoder: DieDecoder) throws -> DebugInfo? {
        let (context, unitDie, start) = try decoder.openUnit(index)
        guard let (unitDie, attrs) = unitDie else { return nil }
        let h = context.header
        let offset = UInt64(h.offset)
        guard unitDie.tag == DW_TAG_compile_unit || unitDie.tag == DW_TAG_partial_unit else { return emptyUnit(offset) }
        try begin(h.format, attrs)
        if unitDie.hasChildren {
            var r = start
            // Levels being walked (their DIEs' parent node and depth); below them, `skipped`
            // levels of subtrees that are read through without being looked at.
            var levels: [(parent: Int32, depth: Int)] = [(-1, 0)]
            var skipped = 0
            let origin = { (offset: UInt64) in try decoder.attributes(at: offset) }
            var attributes = DieAttributes()
            while let level = levels.last, r.remaining > 0 {
                let walking = skipped == 0
                let next = try decoder.next(&r, context, into: &attributes) {
                    walking && ($0 == DW_TAG_subprogram || $0 == DW_TAG_inlined_subroutine)
                }
                guard let (die, decoded) = next else {
                    if skipped > 0 { skipped -= 1 } else { levels.removeLast() }
                    continue
                }
                guard die.hasChildren else {
                    if decoded { _ = try enter(die.tag, attributes, parent: level.parent, origin) }
                    continue
                }
                var child = (descend: walking, parent: level.parent)
                if decoded { child = try enter(die.tag, attributes, parent: level.parent, origin) }
                if child.descend, level.depth < UnitReader.maxDepth {
                    levels.append((child.parent, level.depth + 1))
                } else {
                    skipped += 1
                }
            }
        }
        return try finish(offset: offset, attrs)
    }

    /// The ranges unit `index`'s DIE states ([] for units other than compile and partial
    /// units; nil when it holds no DIE), without reading the rest of the unit.
    mutating func unitRanges(unit index: Int, _ decoder: DieDecoder) throws -> [(start: UInt64, end: UInt64)]? {
        let (context, unitDie, _) = try decoder.openUnit(index)
        guard let (unitDie, attrs) = unitDie else { return nil }
        guard unitDie.tag == DW_TAG_compile_unit || unitDie.tag == DW_TAG_partial_unit else { return [] }
        setRangeContext(context.header.format, attrs)
        return try pcRanges(attrs)
    }

    /// The unit `unit` through libdwarf.
    mutating func read(_ unit: DwarfUnit, _ session: DwarfSession) throws -> DebugInfo {
        let tag = try session.tag(unit.die)
        guard tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit else { return emptyUnit(unit.offset) }
        self.session = session
        defer { self.session = nil }
        let attrs = try session.attributes(unit.die)
        try begin(unit.format, attrs)
        if let first = try session.child(unit.die) {
            try walk(first, parent: -1, depth: 0, session)
        }
        return try finish(offset: unit.offset, attrs)
    }

    private mutating func walk(_ first: DwarfDie, parent: Int32, depth: Int, _ session: DwarfSession) throws {
        let origin = { (offset: UInt64) -> DieAttributes? in
            guard let die = try session.die(at: offset) else { return nil }
            defer { session.release(die) }
            return try session.attributes(die)
        }
        var current: DwarfDie? = first
        while let die = current {
            defer { session.release(die) }
            let tag = try session.tag(die)
            var child = (descend: true, parent: parent)
            if tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine {
                child = try enter(tag, try session.attributes(die), parent: parent, origin)
            }
            if child.descend, depth < UnitReader.maxDepth, let first = try session.child(die) {
                try walk(first, parent: child.parent, depth: depth + 1, session)
            }
            current = try session.sibling(die)
        }
    }

    private mutating func emptyUnit(_ offset: UInt64) -> DebugInfo {
        var out = DebugInfo()
        out.units.append(DebugInfo.Unit(offset: offset, ranges: [], scopes: 0..<0, sequences: 0..<0))
        return out
    }

    /// Starts a compilation unit: its range-list context and its line table.
    private mutating func begin(_ format: DwarfFormat, _ attrs: DieAttributes) throws {
        part = DebugInfo()
        nameIndex = StringIndex()
        unknownName = nil
        placedNames.removeAll()
        fileIndex = [:]
        setRangeContext(format, attrs)
        table = LineTable()
        unitFiles = []
        if let stmt = attrs.stmtList, let section = sections[".debug_line"] {
            let strings = LineProgram.Strings(lineStr: sections[".debug_line_str"], str: sections[".debug_str"])
            table = try LineProgram.parse(
                section, at: stmt, strings: strings, compDir: try attrs.compDir.map(string) ?? "")
            addSequences(tombstone: format.maxAddress)
        }
    }

    private mutating func setRangeContext(_ format: DwarfFormat, _ attrs: DieAttributes) {
        rangeContext.format = format
        rangeContext.baseAddress = attrs.lowPC ?? 0
        rangeContext.addrBase = attrs.addrBase
        rangeContext.rnglistsBase = attrs.rnglistsBase
    }

    /// Ends the unit: its own ranges, and the part read, handed over.
    private mutating func finish(offset: UInt64, _ attrs: DieAttributes) throws -> DebugInfo {
        let ranges = try pcRanges(attrs)
        part.units.append(
            DebugInfo.Unit(
                offset: offset, ranges: ranges, scopes: 0..<part.scopes.count, sequences: 0..<part.sequences.count))
        table = LineTable()
        unitFiles = []
        defer { part = DebugInfo() }
        return part
    }

    /// A subprogram or inlined subroutine: a node with its scopes when it has ranges. Returns
    /// whether to walk its children, and the node they belong to.
    private mutating func enter(
        _ tag: UInt16, _ attrs: DieAttributes, parent: Int32, _ origin: (UInt64) throws -> DieAttributes?
    ) throws -> (descend: Bool, parent: Int32) {
        guard tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine else { return (true, parent) }
        // Most DIEs state one range as low and high pc: no list is made for those.
        var single: (start: UInt64, end: UInt64)? = nil
        // The others' ranges go into one array kept for the unit's DIEs, not one made for each.
        var ranges = rangeBuffer
        rangeBuffer = []
        defer {
            ranges.removeAll(keepingCapacity: true)
            rangeBuffer = ranges
        }
        if let low = attrs.lowPC, let high = attrs.highPC {
            let end = attrs.highIsOffset ? low &+ high : high
            guard end > low else { return (false, parent) }
            single = (low, end)
        } else {
            if let r = attrs.ranges { try rangeContext.ranges(form: r.form, value: r.value, into: &ranges) }
            guard !ranges.isEmpty else { return (false, parent) }
        }
        var lowest = UInt64.max
        for r in ranges { lowest = min(lowest, r.start) }
        let isInline = tag == DW_TAG_inlined_subroutine
        let node = DebugInfo.Node(
            name: try name(of: attrs, origin),
            entry: isInline ? 0 : (attrs.lowPC ?? (ranges.isEmpty ? 0 : lowest)),
            parent: isInline ? parent : -1,
            callFile: isInline
                ? (attrs.callFile.map { file($0) } ?? SymbolTableConstants.none) : SymbolTableConstants.none,
            callLine: isInline
                ? (attrs.callLine.map { UInt32(clamping: $0) } ?? SymbolTableConstants.none) : SymbolTableConstants.none
        )
        let index = Int32(part.nodes.count)
        part.nodes.append(node)
        if let r = single { part.scopes.append(DebugInfo.Scope(start: r.start, end: r.end, node: index)) }
        for r in ranges { part.scopes.append(DebugInfo.Scope(start: r.start, end: r.end, node: index)) }
        return (true, index)
    }

    /// The part's index of file number `n` of the current unit's line table.
    private mutating func file(_ n: UInt64) -> UInt32 {
        let slot = Int(clamping: n)
        if slot < unitFiles.count, unitFiles[slot] != SymbolTableConstants.unresolved { return unitFiles[slot] }
        var index = SymbolTableConstants.none
        if let path = table.path(ofFile: n) { index = part.files.intern(path, index: &fileIndex) }
        if slot < table.fileNames.count + 1 {
            if unitFiles.count <= slot {
                unitFiles += repeatElement(SymbolTableConstants.unresolved, count: slot + 1 - unitFiles.count)
            }
            unitFiles[slot] = index
        }
        return index
    }

    /// Adds the unit's line sequences, but those the linker dropped (starting at `tombstone`).
    private mutating func addSequences(tombstone: UInt64) {
        let rows = table.rows
        part.lines.reserveCapacity(part.lines.count + rows.count)
        var first = 0
        for i in rows.indices where rows[i].endSequence {
            defer { first = i + 1 }
            let low = rows[first].address
            let high = rows[i].address
            guard low < high, low != tombstone, i > first else { continue }
            let start = part.lines.count
            for j in first..<i {
                let next = rows[j + 1].address
                guard next > rows[j].address else { continue }
                let row = rows[j]
                part.lines.append(
                    DebugInfo.LineInterval(start: row.address, end: next, file: file(UInt64(row.file)), line: row.line))
            }
            part.sequences.append(DebugInfo.Sequence(low: low, high: high, intervals: start..<part.lines.count))
        }
    }

    private func pcRanges(_ attrs: DieAttributes) throws -> [(start: UInt64, end: UInt64)] {
        if let low = attrs.lowPC, let high = attrs.highPC {
            let end = attrs.highIsOffset ? low &+ high : high
            return end > low ? [(low, end)] : []
        }
        if let r = attrs.ranges {
            return try rangeContext.ranges(form: r.form, value: r.value)
        }
        return []
    }

    private mutating func intern(_ name: String) -> UInt32 {
        part.names.intern(name, index: &nameIndex)
    }

    /// The part's index of `name`, read from its section the first time it is met there. A
    /// name in a string section is known by where it lies, without hashing its text: linkers
    /// store each string once, and where two places hold the same text the part names it twice,
    /// which the table builder's merge, interning by text, makes one again.
    private mutating func intern(_ name: DieString) throws -> UInt32 {
        switch name {
        case .text:
            return intern(try string(name))
        case .at(let section, let offset):
            let key = UInt64(section.rawValue) << 56 | offset
            if let known = placedNames[key] { return known }
            let index = UInt32(part.names.count)
            part.names.append(try string(name))
            placedNames.set(key, index)
            return index
        }
    }

    /// The text of `s`.
    private func string(_ s: DieString) throws -> String {
        switch s {
        case .at(let section, let offset):
            return try section.string(at: offset, in: sections[section.name])
        case .text(let number):
            guard let texts = session?.texts, Int(number) < texts.count else {
                throw DecodeError("a string of libdwarf's reading is missing")
            }
            return texts[Int(number)]
        }
    }

    private mutating func name(of attrs: DieAttributes, _ origin: (UInt64) throws -> DieAttributes?) throws -> UInt32 {
        if let l = attrs.linkageName { return try intern(l) }
        var found: (linkage: DieString?, name: DieString?) = (nil, nil)
        if let s = attrs.specification { found = try originName(s, depth: 0, origin) }
        if found.linkage == nil, let o = attrs.abstractOrigin {
            let f = try originName(o, depth: 0, origin)
            found = (f.linkage, found.name ?? f.name)
        }
        if let known = found.linkage ?? attrs.name ?? found.name { return try intern(known) }
        if let unknownName { return unknownName }
        let number = intern("??")
        unknownName = number
        return number
    }

    private mutating func originName(
        _ offset: UInt64, depth: Int, _ origin: (UInt64) throws -> DieAttributes?
    ) throws -> (linkage: DieString?, name: DieString?) {
        if let known = originNames[offset] { return origins[Int(known)] }
        guard depth < 8, let attrs = try origin(offset) else { return (nil, nil) }
        var result: (linkage: DieString?, name: DieString?) = (attrs.linkageName, attrs.name)
        if result.linkage == nil {
            for next in [attrs.specification, attrs.abstractOrigin].compactMap({ $0 }) where next != offset {
                let f = try originName(next, depth: depth + 1, origin)
                result = (f.linkage, result.name ?? f.name)
                if result.linkage != nil { break }
            }
        }
        originNames.set(offset, UInt32(origins.count))
        origins.append(result)
        return result
    }
}

enum SymbolTableConstants {
    static let none: UInt32 = .max
    static let unresolved: UInt32 = .max - 1
}
