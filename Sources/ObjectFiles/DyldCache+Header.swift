// Reading a dyld shared cache's tables: the header of each file (which fields it has, by its
// size), the mappings, the subcache entries (v1 without a suffix before the header had
// cacheSubType, v2 with one after), the images and imagesText tables and the local symbols
// info with its 32- or 64-bit entries. Facts from dyld's `dyld_cache_format.h`, listed in
// Samples/dyldcache/cacheformat.py beside the generator of our test caches.

import SymbolicateModel

extension DyldCache {
    struct Header {
        var size: Int
        var uuid: BuildID
        var arch: Arch
        var mappings: [(UInt64, UInt64, UInt64)]
        var imagesOffset: UInt64
        var imagesCount: UInt64
        var imagesTextOffset: UInt64
        var imagesTextCount: UInt64
        var localSymbolsOffset: UInt64
        var localSymbolsSize: UInt64
        var sharedRegionStart: UInt64
        var osVersion: String?
        var subCacheArrayOffset: UInt64 = 0
        var subCacheArrayCount: UInt64 = 0
        var subCacheEntriesV2 = false
        var symbolFileUUID: BuildID?

        /// A field ending at `end` exists when the header reaches that far.
        func hasField(_ end: Int) -> Bool { end <= size }
    }

    static func readHeader(_ part: Part) throws -> Header {
        let r = part.reader
        guard r.count >= DyldCacheHeader.smallest else {
            throw SymbolicateError(
                .badInput, "a dyld shared cache file cut short: \(r.count) bytes, less than its header", path: part.path
            )
        }
        var m = try r.sub(0, 16)
        let magic = try m.fixedString(16)
        guard magic.hasPrefix(DyldCacheHeader.magicPrefix) else {
            throw SymbolicateError(.unsupported, "not a dyld shared cache (magic \"\(magic)\")", path: part.path)
        }
        let archName = magic.dropFirst(DyldCacheHeader.magicPrefix.count).filter { $0 != " " }
        let size = Int(try r.unsigned(at: DyldCacheHeader.mappingOffset, size: 4))
        guard size >= DyldCacheHeader.smallest else {
            throw DecodeError("its header claims \(size) bytes, less than any dyld shared cache header")
        }
        guard size <= DyldCacheHeader.largestKnown else {
            throw SymbolicateError(
                .unsupported,
                "a dyld shared cache layout newer than this program knows (a header of 0x\(String(size, radix: 16))"
                    + " bytes; the newest known is 0x\(String(DyldCacheHeader.largestKnown, radix: 16))): it is refused"
                    + " rather than misread", path: part.path)
        }
        func u32(_ at: Int) throws -> UInt64 { at + 4 <= size ? try r.unsigned(at: at, size: 4) : 0 }
        func u64(_ at: Int) throws -> UInt64 { at + 8 <= size ? try r.unsigned(at: at, size: 8) : 0 }
        func id(_ at: Int) throws -> BuildID? {
            guard at + 16 <= size else { return nil }
            var field = try r.sub(at, 16)
            let bytes = try field.bytes(16)
            return bytes.allSatisfy { $0 == 0 } ? nil : BuildID(bytes: bytes)
        }
        let mappingCount = try u32(DyldCacheHeader.mappingCount)
        guard mappingCount <= UInt64(r.count / DYLD_CACHE_MAPPING_INFO_SIZE) else {
            throw DecodeError("\(mappingCount) mappings cannot fit in the file")
        }
        var table = try r.sub(UInt64(size), mappingCount * UInt64(DYLD_CACHE_MAPPING_INFO_SIZE))
        var mappings: [(UInt64, UInt64, UInt64)] = []
        for _ in 0..<mappingCount {
            let address = try table.u64()
            let length = try table.u64()
            let fileOffset = try table.u64()
            try table.skip(8)  // maxProt, initProt
            mappings.append((address, length, fileOffset))
        }
        let new = size >= DyldCacheHeader.imagesCount + 4
        var h = Header(
            size: size, uuid: try id(DyldCacheHeader.uuid) ?? BuildID(bytes: Array(repeating: 0, count: 16)),
            arch: Arch(String(archName)), mappings: mappings,
            imagesOffset: try u32(new ? DyldCacheHeader.imagesOffset : DyldCacheHeader.imagesOffsetOld),
            imagesCount: try u32(new ? DyldCacheHeader.imagesCount : DyldCacheHeader.imagesCountOld),
            imagesTextOffset: try u64(DyldCacheHeader.imagesTextOffset),
            imagesTextCount: try u64(DyldCacheHeader.imagesTextCount),
            localSymbolsOffset: try u64(DyldCacheHeader.localSymbolsOffset),
            localSymbolsSize: try u64(DyldCacheHeader.localSymbolsSize),
            sharedRegionStart: try u64(DyldCacheHeader.sharedRegionStart))
        if size >= DyldCacheHeader.osVersion + 4 {
            let v = try u32(DyldCacheHeader.osVersion)
            if v != 0 {
                let patch = v & 0xff
                h.osVersion = "\(v >> 16).\((v >> 8) & 0xff)" + (patch != 0 ? ".\(patch)" : "")
            }
        }
        h.subCacheArrayOffset = try u32(DyldCacheHeader.subCacheArrayOffset)
        h.subCacheArrayCount = try u32(DyldCacheHeader.subCacheArrayCount)
        h.subCacheEntriesV2 = size >= DyldCacheHeader.cacheSubType + 4
        h.symbolFileUUID = try id(DyldCacheHeader.symbolFileUUID)
        return h
    }

    /// The subcaches the main header names: path, suffix and UUID of each.
    static func subcaches(_ main: Part, _ head: Header) throws -> [(path: String, suffix: String, uuid: BuildID)] {
        guard head.subCacheArrayCount > 0 else { return [] }
        let entrySize = UInt64(head.subCacheEntriesV2 ? DYLD_SUBCACHE_ENTRY_SIZE : DYLD_SUBCACHE_ENTRY_V1_SIZE)
        guard head.subCacheArrayCount <= UInt64(main.storage.count) / entrySize else {
            throw DecodeError("\(head.subCacheArrayCount) subcache entries cannot fit in the file")
        }
        var r = try main.reader.sub(head.subCacheArrayOffset, head.subCacheArrayCount * entrySize)
        var out: [(String, String, BuildID)] = []
        for i in 0..<head.subCacheArrayCount {
            let uuid = BuildID(bytes: try r.bytes(16))
            _ = try r.u64()  // cacheVMOffset
            var suffix = ".\(i + 1)"
            if head.subCacheEntriesV2 {
                suffix = try r.fixedString(32)
                guard suffix.hasPrefix("."), !suffix.contains("/"), suffix.count > 1 else {
                    throw DecodeError("subcache entry \(i) has a bad file suffix \"\(suffix)\"")
                }
            }
            out.append((main.path + suffix, suffix, uuid))
        }
        return out
    }

    static func openSubcache(_ path: String?, named suffix: String, of head: Header) throws -> ByteStorage {
        let missing = SymbolicateError(
            .notFound,
            "the cache names \(head.subCacheArrayCount) subcaches; \(suffix) is not here: put every file of the"
                + " cache beside the main one", path: path)
        guard let path else { throw missing }
        do {
            return try ByteStorage(path: path)
        } catch let error as SymbolicateError where error.code == .notFound {
            throw missing
        }
    }

    static func readLocalSymbols(_ part: Part, part index: Int, offset: UInt64, size: UInt64, entries64: Bool)
        throws -> LocalSymbols?
    {
        guard size >= 24 else { return nil }
        let info = try part.reader.sub(offset, size)
        var h = info
        let nlistOffset = try h.u32()
        let nlistCount = try h.u32()
        let stringsOffset = try h.u32()
        let stringsSize = try h.u32()
        let entriesOffset = try h.u32()
        let entriesCount = try h.u32()
        guard UInt64(nlistOffset) + UInt64(nlistCount) * 16 <= size else {
            throw DecodeError("the local symbols (\(nlistCount) entries) run past their table")
        }
        let strings = try info.sub(UInt64(stringsOffset), UInt64(stringsSize))
        let entrySize = UInt64(entries64 ? DYLD_CACHE_LOCAL_SYMBOLS_ENTRY_64_SIZE : DYLD_CACHE_LOCAL_SYMBOLS_ENTRY_SIZE)
        var e = try info.sub(UInt64(entriesOffset), UInt64(entriesCount) * entrySize)
        var entries: [UInt64: (start: Int, count: Int)] = [:]
        for _ in 0..<entriesCount {
            let dylib = entries64 ? try e.u64() : UInt64(try e.u32())
            let start = try e.u32()
            let count = try e.u32()
            guard UInt64(start) + UInt64(count) <= UInt64(nlistCount) else {
                throw DecodeError("a local symbols entry (\(start)+\(count)) runs past the \(nlistCount) symbols")
            }
            entries[dylib] = (Int(start), Int(count))
        }
        return LocalSymbols(
            part: index, info: info, nlistOffset: Int(nlistOffset), nlistCount: Int(nlistCount), strings: strings,
            entries: entries)
    }

    static func readImages(_ main: Part, _ head: Header) throws -> [ImageEntry] {
        let file = main.reader
        let entrySize = UInt64(DYLD_CACHE_IMAGE_INFO_SIZE)
        guard head.imagesCount <= UInt64(file.count) / entrySize else {
            throw DecodeError("\(head.imagesCount) images cannot fit in the file")
        }
        var r = try file.sub(head.imagesOffset, head.imagesCount * entrySize)
        var text: [UInt64: (BuildID, UInt64)] = [:]
        if head.imagesTextCount > 0, head.imagesTextCount <= UInt64(file.count / DYLD_CACHE_IMAGE_TEXT_INFO_SIZE) {
            var t = try file.sub(head.imagesTextOffset, head.imagesTextCount * UInt64(DYLD_CACHE_IMAGE_TEXT_INFO_SIZE))
            for _ in 0..<head.imagesTextCount {
                let uuid = BuildID(bytes: try t.bytes(16))
                let load = try t.u64()
                let size = try t.u32()
                _ = try t.u32()  // pathOffset
                text[load] = (uuid, UInt64(size))
            }
        }
        var out: [ImageEntry] = []
        for i in 0..<head.imagesCount {
            let address = try r.u64()
            try r.skip(16)  // modTime, inode
            let pathOffset = try r.u32()
            try r.skip(4)
            guard Int(pathOffset) < file.count, let path = try? file.string(at: Int(pathOffset)) else {
                throw DecodeError("image \(i)'s path offset \(pathOffset) lies outside the file")
            }
            out.append(ImageEntry(path: path, address: address, uuid: text[address]?.0, textSize: text[address]?.1))
        }
        return out
    }
}

extension DyldCache {
    /// True when `prefix` (the file's first bytes) is a cache file that lists images: a main
    /// file, not a subcache or `.symbols` file, which are read through their main file.
    public static func listsImages(prefix: [UInt8]) -> Bool {
        guard looksLikeCache(prefix: prefix), prefix.count >= DyldCacheHeader.imagesCountOld + 4 else { return false }
        func u32(_ at: Int) -> UInt32 {
            guard at + 4 <= prefix.count else { return 0 }
            return (0..<4).reduce(0) { $0 | UInt32(prefix[at + $1]) << (8 * UInt32($1)) }
        }
        let size = Int(u32(DyldCacheHeader.mappingOffset))
        let count =
            size >= DyldCacheHeader.imagesCount + 4
            ? u32(DyldCacheHeader.imagesCount) : u32(DyldCacheHeader.imagesCountOld)
        return count > 0 || size > DyldCacheHeader.largestKnown
    }
}
