// The public face of the object-file readers: `ObjectFile.slices` splits a Mach-O (thin, fat,
// fat64) or ELF file into slices, reading only headers and load commands, and
// `ObjectSlice.loadSymbolTable` reads one slice's DWARF (or, without DWARF, its symbol table)
// into a SymbolTable. Every malformed byte ends in a SymbolicateError naming the file.

import SymbolicateModel

public struct ObjectSlice: Sendable {
    public let info: BuildInfo
    let format: Format

    enum Format: Sendable {
        case machO(MachOFile)
        case elf(ELFFile)
    }

    /// The slice's symbols: DWARF functions, inline chains and lines when present, else the
    /// nlist / ELF symbol table. Addresses are in the file's own (unslid) vmaddr space.
    public func loadSymbolTable() throws -> SymbolTable {
        try loadSymbolTable(backend: .default)
    }

    /// The same, with the locations and ranges handed to `sink` in table order as they are
    /// built (a batch of units at a time), so that memory does not hold the whole table: the
    /// table returned has the build, files and functions, and no locations or ranges.
    public func loadSymbolTable(into sink: SymbolTableSink) throws -> SymbolTable {
        try loadSymbolTable(backend: .default, sink: sink)
    }

    /// The same through a chosen DIE reader (tests hold our own reader to libdwarf's).
    func loadSymbolTable(backend: DebugInfoReader.Backend, sink: SymbolTableSink? = nil) throws -> SymbolTable {
        do {
            let file = format.reader
            let debug = info.kind == .debugInfo ? try file.debugSections() : nil
            return try ObjectSlice.build(
                info, debug, pointerSize: file.is64 ? 8 : 4, symbols: { try file.symbols() }, backend, sink: sink)
        } catch let error as DecodeError {
            throw SymbolicateError(.badInput, "corrupt \(info.arch) slice: \(error.description)", path: info.path)
        }
    }
}

extension ObjectSlice {
    /// Builds the table from the DWARF in `sections` (nil: symbols only) and the symbols
    /// `symbols` reads, then lets their mapped pages go. Our own reader streams the units
    /// through the builder a batch at a time (reading the first batch while the symbols are
    /// read); libdwarf's reads the whole file first.
    fileprivate static func build(
        _ info: BuildInfo, _ sections: [String: ByteReader]?, pointerSize: Int, symbols: () throws -> [RawSymbol],
        _ backend: DebugInfoReader.Backend, sink: SymbolTableSink?
    ) throws -> SymbolTable {
        /// A table built whole, handed to the sink at once (symbol tables are small; libdwarf's
        /// reading is for tests).
        func whole(_ table: SymbolTable) throws -> SymbolTable {
            guard let sink else { return table }
            try sink.take(locations: table.locations[...])
            try sink.take(ranges: table.ranges[...])
            var head = table
            head.locations = []
            head.ranges = []
            return head
        }
        guard let sections else {
            return try whole(TableBuilder.build(build: info, debugInfo: nil, symbols: symbols()))
        }
        defer { for s in sections.values { s.releaseResidentPages() } }
        switch backend {
        case .own(let threads):
            let stream = try DebugInfoStream(sections: sections, threads: threads)
            return try TableBuilder.build(build: info, stream: stream, symbols: symbols, sink: sink)
        case .libdwarf:
            let debug = try DebugInfoReader.read(sections: sections, pointerSize: pointerSize, backend: backend)
            for s in sections.values { s.releaseResidentPages() }
            return try whole(TableBuilder.build(build: info, debugInfo: debug, symbols: symbols()))
        }
    }
}

public enum ObjectFile {
    /// Universal files list at most this many slices; Java class files share the 0xcafebabe magic
    /// and put their version (45 and up) where the count would be.
    static let maxFatSlices: UInt32 = 44

    /// Every slice of the Mach-O (thin, fat 0xcafebabe, fat64 0xcafebabf) or ELF file at `path`.
    /// Throws .unsupported when the file is not an object file, .badInput when truncated or corrupt.
    /// A stripped ELF binary with a `.gnu_debuglink` gives its debug file's slices (DebugLink).
    public static func slices(atPath path: String) throws -> [ObjectSlice] {
        let found = try slices(storage: try ByteStorage(path: path), path: path)
        if found.count == 1, let linked = DebugLink.slices(for: found[0], path: path) { return linked }
        return found
    }

    /// Same for bytes already in memory (archives, uploads); `path` names them in messages.
    public static func slices(bytes: [UInt8], path: String) throws -> [ObjectSlice] {
        try slices(storage: ByteStorage(bytes: bytes), path: path)
    }

    /// True when the first bytes look like Mach-O / fat / ELF (for scanning folders by content).
    public static func looksLikeObjectFile(prefix: [UInt8]) -> Bool {
        switch ContentKind.sniff(prefix) {
        case .machO, .elf: return true
        case .universal, .universal64:
            guard prefix.count >= 8 else { return true }
            let n = UInt32(prefix[4]) << 24 | UInt32(prefix[5]) << 16 | UInt32(prefix[6]) << 8 | UInt32(prefix[7])
            return n > 0 && n <= maxFatSlices
        default: return false
        }
    }

    static func slices(storage: ByteStorage, path: String) throws -> [ObjectSlice] {
        let name = PathParts.last(path) ?? path
        let whole = storage.reader()
        do {
            guard whole.count >= 4 else {
                throw SymbolicateError(.unsupported, "not an object file (\(whole.count) bytes)", path: path)
            }
            var head = whole
            let kind = ContentKind.sniff(try head.bytes(4))
            switch kind {
            case .universal, .universal64:
                return try fatSlices(whole, is64: kind == .universal64, name: name, path: path)
            case .elf:
                return [try slice(.elf(ELFFile(whole, path: path)), name: name, path: path)]
            case .machO:
                return [try slice(.machO(MachOFile(whole)), name: name, path: path)]
            case .machOBigEndian:
                throw SymbolicateError(.unsupported, "big-endian Mach-O files are not supported", path: path)
            default: break
            }
            throw SymbolicateError(.unsupported, "not a Mach-O, universal or ELF file", path: path)
        } catch let error as DecodeError {
            throw SymbolicateError(.badInput, "corrupt object file: \(error.description)", path: path)
        }
    }

    private static func fatSlices(_ whole: ByteReader, is64: Bool, name: String, path: String) throws -> [ObjectSlice] {
        var r = whole
        r.bigEndian = true
        try r.skip(4)
        let count = try r.u32()
        guard count > 0, count <= maxFatSlices else {
            throw SymbolicateError(
                .unsupported, "0xcafebabe file with \(count) entries is not a universal binary (a Java class file?)",
                path: path)
        }
        var out: [ObjectSlice] = []
        for i in 0..<count {
            _ = try r.u32()  // cputype
            _ = try r.u32()  // cpusubtype
            let offset = is64 ? try r.u64() : UInt64(try r.u32())
            let size = is64 ? try r.u64() : UInt64(try r.u32())
            try r.skip(is64 ? 8 : 4)
            guard offset <= UInt64(whole.count), size <= UInt64(whole.count) - offset else {
                throw DecodeError("slice \(i) (\(offset)+\(size)) lies outside the \(whole.count)-byte file")
            }
            let data = try whole.sub(offset, size)
            var probe = data
            guard data.count >= 4, let m = try? probe.u32(), m == ContentKind.MH_MAGIC || m == ContentKind.MH_MAGIC_64
            else {
                continue  // e.g. a static-library slice
            }
            out.append(try slice(.machO(MachOFile(data)), name: name, path: path))
        }
        guard !out.isEmpty else {
            throw SymbolicateError(.unsupported, "universal file without Mach-O slices", path: path)
        }
        return out
    }

    /// What a relocatable object (`.o`) is told: its addresses are not yet those of any image,
    /// so nothing in it can answer a crash report's frames.
    static func relocatableObject(_ path: String) -> SymbolicateError {
        SymbolicateError(
            .unsupported,
            "an object file (.o), not a linked binary or dSYM: import the linked binary or its dSYM instead",
            path: path)
    }

    private static func slice(_ format: ObjectSlice.Format, name: String, path: String) throws -> ObjectSlice {
        let file = format.reader
        guard !file.isRelocatable else { throw relocatableObject(path) }
        let info = BuildInfo(
            uuid: BuildID(bytes: file.buildIDBytes ?? []), arch: file.arch, name: name,
            textVMAddress: file.textAddress, textSize: file.textSize,
            kind: file.hasDebugInfo ? .debugInfo : .symbolTable, path: path)
        return ObjectSlice(info: info, format: format)
    }
}
