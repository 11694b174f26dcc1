// One image of a dyld shared cache as a symbol-table-only build, keyed by its own LC_UUID with
// its unslid `__TEXT` address. Its names are the cache's local symbols for it (from the main
// file or the `.symbols` file) plus its own symbol table, or, when the cache has no local
// symbols, its symbol table and export trie. Each name is sized to its function's end from
// LC_FUNCTION_STARTS, not to the next name (which would lend a stripped function its
// neighbour's name); a function start that no name covers is `<redacted>`, as Apple's tools
// print it. Link-edit offsets are offsets in the file that holds the image's `__LINKEDIT`.

import SymbolicateModel

public struct DyldCacheImage {
    public let info: BuildInfo
    /// The image's path inside the cache (`/System/Library/Frameworks/UIKit.framework/UIKit`).
    public let installPath: String
    let cache: DyldCache
    let macho: MachOFile
    let headerPart: Int
    let headerOffset: UInt64
    let linkeditPart: Int
    let linkedit: (fileoff: UInt64, filesize: UInt64)
    var functionStarts: (UInt64, UInt64)?
    var exportTrie: (UInt64, UInt64)?

    /// The redacted name Apple's tools print for a function whose symbol was stripped.
    public static let redacted = "<redacted>"

    /// The symbol table: names without the leading underscore, as MachOFile gives them.
    public func symbolTable() throws -> SymbolTable {
        do {
            return TableBuilder.build(build: info, debugInfo: nil, symbols: try symbols())
        } catch let error as DecodeError {
            throw SymbolicateError(
                .badInput, "corrupt image \(installPath) in the dyld shared cache: \(error.description)",
                path: cache.path)
        }
    }

    func symbols() throws -> [RawSymbol] {
        var named: [(address: UInt64, name: String)] = []
        if let local = cache.localSymbols {
            let key = cache.localEntries64 ? info.textVMAddress &- cache.sharedRegionStart : headerOffset
            if let entry = local.entries[key] {
                var r = try local.info.sub(local.nlistOffset + entry.start * 16, entry.count * 16)
                for _ in 0..<entry.count { if let s = try nlist(&r, local.strings) { named.append(s) } }
            }
        }
        let file = cache.parts[linkeditPart].reader
        if let st = macho.symtab, st.nsyms > 0 {
            var r = try linkeditRange(file, UInt64(st.symoff), UInt64(st.nsyms) * 16, "symbol table")
            let strings = try linkeditRange(file, UInt64(st.stroff), UInt64(st.strsize), "string table")
            for _ in 0..<st.nsyms { if let s = try nlist(&r, strings) { named.append(s) } }
        }
        if cache.localSymbols == nil, let (off, size) = exportTrie, size > 0 {
            let trie = try linkeditRange(file, off, size, "export trie")
            named += try ExportTrie.walk(trie).map { (info.textVMAddress &+ $0.offset, $0.name) }
        }
        var starts: [UInt64] = []
        if let (off, size) = functionStarts, size > 0 {
            var r = try linkeditRange(file, off, size, "function starts")
            var address = info.textVMAddress
            while !r.isAtEnd {
                let delta = try r.uleb()
                if delta == 0 { break }
                address = address &+ delta
                starts.append(address)
            }
        }
        return sized(named, starts: starts)
    }

    /// One nlist_64 entry when it names a defined, non-debugging symbol in a section.
    private func nlist(_ r: inout ByteReader, _ strings: ByteReader) throws -> (UInt64, String)? {
        let strx = try r.u32()
        let type = try r.u8()
        let sect = try r.u8()
        _ = try r.u16()
        let value = try r.u64()
        guard type & N_STAB == 0, type & N_TYPE == N_SECT, sect > 0 else { return nil }
        guard Int(strx) < strings.count, let raw = try? strings.string(at: Int(strx)) else { return nil }
        return (value, raw.hasPrefix("_") ? String(raw.dropFirst()) : raw)
    }

    /// `size` bytes at link-edit offset `offset`, which must lie inside the image's `__LINKEDIT`.
    private func linkeditRange(_ file: ByteReader, _ offset: UInt64, _ size: UInt64, _ what: String) throws
        -> ByteReader
    {
        let (start, length) = linkedit
        guard offset >= start, size <= length, offset - start <= length - size else {
            throw DecodeError("its \(what) (\(size) bytes at \(offset)) lies outside its __LINKEDIT")
        }
        return try file.sub(offset, size)
    }

    /// Names sized to their function's end (the next function start, or their section's end);
    /// unnamed function starts as `<redacted>`.
    private func sized(_ named: [(address: UInt64, name: String)], starts: [UInt64]) -> [RawSymbol] {
        let codeSections = macho.sections.filter(\.isCode).map { ($0.address, $0.address &+ $0.size) }
        let allSections = macho.sections.map { ($0.address, $0.address &+ $0.size) }
        func sectionEnd(_ a: UInt64) -> UInt64? { codeSections.first { a >= $0.0 && a < $0.1 }?.1 }
        func anySectionEnd(_ a: UInt64) -> UInt64? { allSections.first { a >= $0.0 && a < $0.1 }?.1 }
        let sortedStarts = starts.sorted()
        let startSet = Set(sortedStarts)
        var out: [RawSymbol] = []
        var namedAddresses = Set<UInt64>()
        func end(of a: UInt64) -> UInt64 {
            let i = sortedStarts.partitioningIndex { $0 > a }
            let next = i < sortedStarts.count ? sortedStarts[i] : nil
            let limit = sectionEnd(a)
            switch (next, limit) {
            case (let n?, let l?): return min(n, l)
            case (let n?, nil): return n
            case (nil, let l?): return l
            default: return a
            }
        }
        for (order, s) in named.enumerated() {
            namedAddresses.insert(s.address)
            let isCode = sectionEnd(s.address) != nil
            let size =
                startSet.contains(s.address)
                ? end(of: s.address) &- s.address : (anySectionEnd(s.address) ?? s.address) &- s.address
            out.append(RawSymbol(address: s.address, size: size, name: s.name, order: order, isCode: isCode))
        }
        for a in sortedStarts where !namedAddresses.contains(a) {
            out.append(
                RawSymbol(
                    address: a, size: end(of: a) &- a, name: Self.redacted, order: out.count,
                    isCode: sectionEnd(a) != nil))
        }
        return out
    }
}
