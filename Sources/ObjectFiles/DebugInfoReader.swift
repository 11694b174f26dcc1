// Reads DWARF into the raw material of a symbol table: the tree of concrete functions and
// inlined subroutines with their address ranges (`scopes`, in DIE order so that later, deeper
// DIEs win where they overlap, as llvm-symbolizer's address map does), and the line-table rows
// of every unit as address intervals. Names follow DW_AT_abstract_origin / DW_AT_specification
// and prefer the linkage (mangled) name, as `llvm-symbolizer --no-demangle` prints them.

struct DebugInfo {
    struct Node {
        var name: UInt32
        /// Low pc of a concrete function; 0 for inlined copies.
        var entry: UInt64
        var parent: Int32
        var callFile: UInt32
        var callLine: UInt32
    }

    struct Scope {
        var start: UInt64
        var end: UInt64
        var node: Int32
    }

    struct LineInterval {
        var start: UInt64
        var end: UInt64
        var file: UInt32
        var line: UInt32
    }

    struct Sequence {
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

struct DebugInfoReader {
    private let sections: [String: ByteReader]
    private var info = DebugInfo()
    private var nameIndex: [String: UInt32] = [:]
    private var fileIndex: [String: UInt32] = [:]
    /// Resolved (linkage name, name) of DIEs reached through abstract_origin / specification.
    private var originNames: [UInt64: (linkage: String?, name: String?)] = [:]
    private var rangeContext: RangeContext
    private var table = LineTable()
    private var unitFiles: [UInt32] = []
    private static let maxDepth = 256
    static let libdwarfSections: Set<String> = [
        ".debug_info", ".debug_abbrev", ".debug_str", ".debug_str_offsets", ".debug_addr", ".debug_line_str",
    ]

    private init(sections: [String: ByteReader]) {
        self.sections = sections
        rangeContext = RangeContext(
            version: 4, addressSize: 8, offsetSize: 4, baseAddress: 0, debugRanges: sections[".debug_ranges"],
            debugRnglists: sections[".debug_rnglists"], debugAddr: sections[".debug_addr"])
    }

    static func read(sections: [String: ByteReader], pointerSize: Int) throws -> DebugInfo {
        var reader = DebugInfoReader(sections: sections)
        if let aranges = sections[".debug_aranges"] {
            (reader.info.arangeEntries, reader.info.arangeUnits) = try AddressRangeTable.parse(aranges)
        }
        // libdwarf gets only what walking DIEs needs: we decode line tables, range lists and
        // aranges ourselves, and libdwarf 20210528 loops forever on some corrupt .debug_rnglists.
        let forLibdwarf = sections.filter { DebugInfoReader.libdwarfSections.contains($0.key) }
        try DwarfSession.withSession(sections: forLibdwarf, pointerSize: pointerSize) { session in
            try session.forEachUnit { unit in
                let scopes = reader.info.scopes.count
                let sequences = reader.info.sequences.count
                let ranges = try reader.readUnit(unit, session)
                reader.info.units.append(DebugInfo.Unit(
                    offset: unit.offset, ranges: ranges, scopes: scopes..<reader.info.scopes.count,
                    sequences: sequences..<reader.info.sequences.count))
            }
        }
        return reader.info
    }

    /// Reads one unit's line table and DIE tree; returns the ranges its unit DIE states.
    private mutating func readUnit(_ unit: DwarfUnit, _ session: DwarfSession) throws -> [(start: UInt64, end: UInt64)] {
        let tag = try session.tag(unit.die)
        guard tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit else { return [] }
        let attrs = try session.attributes(unit.die)
        rangeContext.version = unit.version
        rangeContext.addressSize = unit.addressSize
        rangeContext.offsetSize = unit.offsetSize
        rangeContext.baseAddress = attrs.lowPC ?? 0
        rangeContext.addrBase = attrs.addrBase
        rangeContext.rnglistsBase = attrs.rnglistsBase
        table = LineTable()
        unitFiles = []
        if let stmt = attrs.stmtList, let section = sections[".debug_line"] {
            let strings = LineProgram.Strings(lineStr: sections[".debug_line_str"], str: sections[".debug_str"])
            table = try LineProgram.parse(section, at: stmt, strings: strings, compDir: attrs.compDir ?? "")
            addSequences(addressSize: unit.addressSize)
        }
        if let first = try session.child(unit.die) {
            try walk(first, parent: -1, depth: 0, session)
        }
        return try pcRanges(attrs)
    }

    /// The global index of file number `n` of the current unit's line table.
    private mutating func file(_ n: UInt64) -> UInt32 {
        let slot = Int(clamping: n)
        if slot < unitFiles.count, unitFiles[slot] != SymbolTableConstants.unresolved { return unitFiles[slot] }
        var index = SymbolTableConstants.none
        if let path = table.path(ofFile: n) {
            if let known = fileIndex[path] {
                index = known
            } else {
                index = UInt32(info.files.count)
                info.files.append(path)
                fileIndex[path] = index
            }
        }
        if slot < table.fileNames.count + 1 {
            if unitFiles.count <= slot {
                unitFiles += repeatElement(SymbolTableConstants.unresolved, count: slot + 1 - unitFiles.count)
            }
            unitFiles[slot] = index
        }
        return index
    }

    private mutating func addSequences(addressSize: Int) {
        let rows = table.rows
        let tombstone: UInt64 = addressSize >= 8 ? .max : (UInt64(1) << (addressSize * 8)) - 1
        var first = 0
        for i in rows.indices where rows[i].endSequence {
            defer { first = i + 1 }
            let low = rows[first].address
            let high = rows[i].address
            guard low < high, low != tombstone, i > first else { continue }
            let start = info.lines.count
            for j in first..<i {
                let next = rows[j + 1].address
                guard next > rows[j].address else { continue }
                let row = rows[j]
                info.lines.append(DebugInfo.LineInterval(start: row.address, end: next, file: file(UInt64(row.file)), line: row.line))
            }
            info.sequences.append(DebugInfo.Sequence(low: low, high: high, intervals: start..<info.lines.count))
        }
    }

    private mutating func walk(_ first: DwarfDie, parent: Int32, depth: Int, _ session: DwarfSession) throws {
        var current: DwarfDie? = first
        while let die = current {
            defer { session.release(die) }
            let tag = try session.tag(die)
            var childParent = parent
            var descend = true
            if tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine {
                let attrs = try session.attributes(die)
                let ranges = try pcRanges(attrs)
                if ranges.isEmpty {
                    descend = false
                } else {
                    let isInline = tag == DW_TAG_inlined_subroutine
                    let node = DebugInfo.Node(
                        name: try name(of: attrs, session),
                        entry: isInline ? 0 : (attrs.lowPC ?? ranges.map(\.start).min() ?? 0),
                        parent: isInline ? parent : -1,
                        callFile: isInline ? (attrs.callFile.map { file($0) } ?? SymbolTableConstants.none) : SymbolTableConstants.none,
                        callLine: isInline ? (attrs.callLine.map { UInt32(clamping: $0) } ?? SymbolTableConstants.none) : SymbolTableConstants.none)
                    childParent = Int32(info.nodes.count)
                    info.nodes.append(node)
                    for r in ranges { info.scopes.append(DebugInfo.Scope(start: r.start, end: r.end, node: childParent)) }
                }
            }
            if descend, depth < DebugInfoReader.maxDepth, let child = try session.child(die) {
                try walk(child, parent: childParent, depth: depth + 1, session)
            }
            current = try session.sibling(die)
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
        if let i = nameIndex[name] { return i }
        let i = UInt32(info.names.count)
        info.names.append(name)
        nameIndex[name] = i
        return i
    }

    private mutating func name(of attrs: DieAttributes, _ session: DwarfSession) throws -> UInt32 {
        if let l = attrs.linkageName { return intern(l) }
        var found: (linkage: String?, name: String?) = (nil, nil)
        if let s = attrs.specification { found = try originName(s, depth: 0, session) }
        if found.linkage == nil, let o = attrs.abstractOrigin {
            let f = try originName(o, depth: 0, session)
            found = (f.linkage, found.name ?? f.name)
        }
        return intern(found.linkage ?? attrs.name ?? found.name ?? "??")
    }

    private mutating func originName(_ offset: UInt64, depth: Int, _ session: DwarfSession) throws -> (linkage: String?, name: String?) {
        if let known = originNames[offset] { return known }
        guard depth < 8, let die = try session.die(at: offset) else { return (nil, nil) }
        defer { session.release(die) }
        let attrs = try session.attributes(die)
        var result: (linkage: String?, name: String?) = (attrs.linkageName, attrs.name)
        if result.linkage == nil {
            for next in [attrs.specification, attrs.abstractOrigin].compactMap({ $0 }) where next != offset {
                let f = try originName(next, depth: depth + 1, session)
                result = (f.linkage, result.name ?? f.name)
                if result.linkage != nil { break }
            }
        }
        originNames[offset] = result
        return result
    }
}

enum SymbolTableConstants {
    static let none: UInt32 = .max
    static let unresolved: UInt32 = .max - 1
}
