// Opening one image of a dyld shared cache: its Mach-O header and load commands at its cache
// address (in whichever file maps it), its LC_UUID checked against the cache's imagesText
// table, and where its `__LINKEDIT`, function starts and export trie are. Nothing of the
// image's symbols is read here; DyldCacheImage.symbolTable() does that, one image at a time.

import SymbolicateModel

extension DyldCache {
    /// Image `index` of `images`, ready to read; throws when its header or load commands are
    /// damaged or point outside the cache.
    public func image(at index: Int) throws -> DyldCacheImage {
        let entry = images[index]
        do {
            let (part, reader) = try self.reader(at: entry.address, atLeast: 32)
            let macho = try MachOFile(reader)
            // The whole __TEXT must be there: a file cut short ends here, not in a misread.
            _ = try resolve(entry.address, size: macho.textSize)
            guard let uuidBytes = macho.uuid else { throw DecodeError("it has no LC_UUID") }
            let uuid = BuildID(bytes: uuidBytes)
            if let listed = entry.uuid, listed != uuid {
                throw DecodeError("its LC_UUID \(uuid) is not the \(listed) the cache's imagesText table gives")
            }
            var linkeditAddress: UInt64?
            var linkedit: (UInt64, UInt64) = (0, 0)
            var functionStarts: (UInt64, UInt64)?
            var exportTrie: (UInt64, UInt64)?
            try Self.loadCommands(reader) { cmd, body in
                var b = body
                switch cmd {
                case LC_SEGMENT_64:
                    let name = try b.fixedString(16)
                    guard name == "__LINKEDIT" else { return }
                    linkeditAddress = try b.u64()
                    _ = try b.u64()  // vmsize
                    linkedit = (try b.u64(), try b.u64())
                case LC_FUNCTION_STARTS:
                    functionStarts = (UInt64(try b.u32()), UInt64(try b.u32()))
                case LC_DYLD_EXPORTS_TRIE:
                    exportTrie = (UInt64(try b.u32()), UInt64(try b.u32()))
                case LC_DYLD_INFO, LC_DYLD_INFO_ONLY:
                    try b.skip(32)  // rebase, bind, weak bind, lazy bind
                    let trie = (UInt64(try b.u32()), UInt64(try b.u32()))
                    if trie.1 > 0 { exportTrie = trie }
                default: break
                }
            }
            guard let linkeditAddress else { throw DecodeError("it has no __LINKEDIT segment") }
            let (linkeditPart, linkeditOffset) = try resolve(linkeditAddress, size: linkedit.1)
            guard linkeditOffset == linkedit.0 else {
                throw DecodeError(
                    "its __LINKEDIT says file offset \(linkedit.0), the cache maps it at \(linkeditOffset)")
            }
            let name = PathParts.last(entry.path) ?? entry.path
            let info = BuildInfo(
                uuid: uuid, arch: macho.arch, name: name, textVMAddress: macho.textAddress, textSize: macho.textSize,
                kind: localSymbols == nil ? .exports : .symbolTable, path: path)
            return DyldCacheImage(
                info: info, installPath: entry.path, cache: self, macho: macho, headerPart: part,
                headerOffset: UInt64(reader.start), linkeditPart: linkeditPart, linkedit: linkedit,
                functionStarts: functionStarts, exportTrie: exportTrie)
        } catch let error as DecodeError {
            throw SymbolicateError(
                .badInput, "corrupt image \(entry.path) in the dyld shared cache: \(error.description)", path: path)
        }
    }

    /// Calls `visit` with each load command's number and body (after cmd and cmdsize).
    static func loadCommands(_ header: ByteReader, _ visit: (UInt32, ByteReader) throws -> Void) throws {
        var r = header
        try r.skip(16)
        let ncmds = try r.u32()
        let sizeofcmds = try r.u32()
        try r.skip(8)  // flags, reserved
        var commands = try r.sub(r.offset, Int(sizeofcmds))
        for _ in 0..<ncmds {
            let at = commands.offset
            _ = try commands.u32()
            let size = try commands.u32()
            guard size >= 8 else { throw DecodeError("a load command has a bad size \(size)") }
            try commands.seek(at)
            let cmd = try commands.u32()
            let body = try commands.sub(at + 8, Int(size) - 8)
            try commands.seek(at + Int(size))
            try visit(cmd, body)
        }
    }
}

/// The export trie of a Mach-O image (loader.h: a prefix tree of names; each terminal holds
/// flags and the offset of the symbol from the image's mach_header). Walked iteratively with
/// every node visited once, so a looping or hostile trie ends.
enum ExportTrie {
    static func walk(_ trie: ByteReader) throws -> [(name: String, offset: UInt64)] {
        var out: [(String, UInt64)] = []
        var stack: [(Int, [UInt8])] = [(0, [])]
        var seen = Set<Int>()
        while let (node, prefix) = stack.popLast() {
            guard seen.insert(node).inserted else { continue }
            var r = trie
            try r.seek(node)
            let terminalSize = try r.uleb()
            let childrenAt = r.offset + Int(clamping: terminalSize)
            if terminalSize > 0 {
                let flags = try r.uleb()
                if flags & EXPORT_SYMBOL_FLAGS_REEXPORT == 0,
                    flags & EXPORT_SYMBOL_FLAGS_KIND_MASK == EXPORT_SYMBOL_FLAGS_KIND_REGULAR
                {
                    let offset = try r.uleb()
                    out.append((String(decoding: prefix, as: UTF8.self), offset))
                }
            }
            try r.seek(childrenAt)
            let count = try r.u8()
            for _ in 0..<count {
                var edge = prefix
                while true {
                    let c = try r.u8()
                    if c == 0 { break }
                    edge.append(c)
                }
                let child = try r.uleb()
                guard child < UInt64(trie.count) else { throw DecodeError("an export trie edge points past the trie") }
                stack.append((Int(child), edge))
            }
        }
        return out.map { ($0.0.hasPrefix("_") ? String($0.0.dropFirst()) : $0.0, $0.1) }
    }
}
