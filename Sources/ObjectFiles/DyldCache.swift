// A dyld shared cache: the main file and the subcaches it names (`.1`... on iOS 15, the
// suffixes its v2 entries give later, the `.symbols` file that holds the local symbols), each
// mapped, never read whole. Addresses inside a cache are unslid cache addresses; `resolve`
// turns one into a file and offset through the mappings of every file, so an image's
// `__LINKEDIT` may live in another subcache than its `__TEXT`. Images are read one at a time
// (DyldCacheImage.swift), so memory holds one image's symbols whatever the cache's size.
// Every read is bounds-checked; a damaged cache ends in an error that names the file.

import SymbolicateModel

public struct DyldCache: Sendable {
    /// One file of the cache, mapped.
    struct Part: Sendable {
        var path: String
        var storage: ByteStorage
        var reader: ByteReader { storage.reader() }
    }

    struct Mapping: Sendable {
        var address: UInt64
        var size: UInt64
        var fileOffset: UInt64
        var part: Int
    }

    /// One entry of the images table.
    public struct ImageEntry: Sendable {
        public var path: String
        public var address: UInt64
        /// From imagesText: nil when the cache has no such table.
        public var uuid: BuildID?
        public var textSize: UInt64?
    }

    public let path: String
    public let uuid: BuildID
    public let arch: Arch
    /// "17.5" from the header's osVersion (iOS 15 and later caches); nil before.
    public let osVersion: String?
    public let images: [ImageEntry]
    /// False when the cache names no local symbols, or its `.symbols` file is not beside it.
    public var hasLocalSymbols: Bool { localSymbols != nil }
    /// Why local symbols are missing although the cache names them (a `.symbols` file not here).
    public let localSymbolsNote: String?
    let parts: [Part]
    let mappings: [Mapping]
    let sharedRegionStart: UInt64
    let localSymbols: LocalSymbols?
    /// Local symbols entries are 64-bit (VM offsets) from the header that has symbolFileUUID on.
    let localEntries64: Bool

    struct LocalSymbols: Sendable {
        var part: Int
        /// The dyld_cache_local_symbols_info, as a reader of its localSymbolsSize bytes.
        var info: ByteReader
        var nlistOffset: Int
        var nlistCount: Int
        var strings: ByteReader
        /// dylibOffset -> (nlistStartIndex, nlistCount)
        var entries: [UInt64: (start: Int, count: Int)]
    }

    /// True when `prefix` starts like any dyld shared cache file (main or subcache).
    public static func looksLikeCache(prefix: [UInt8]) -> Bool {
        prefix.count >= 16 && String(decoding: prefix[0..<7], as: UTF8.self) == DyldCacheHeader.magicPrefix
    }

    /// Opens the main cache file at `path` and every subcache it names, found beside it.
    public init(path: String) throws {
        try self.init(file: path, name: path) { path + $0 }
    }

    /// Opens the main cache file `file`, named `name` in messages, and the subcaches it names,
    /// which `locate` finds by their suffix (`.01`, `.symbols`): nil when there is none.
    public init(file: String, name: String, locate: (String) -> String?) throws {
        let path = name
        self.path = name
        let main = Part(path: name, storage: try ByteStorage(path: file))
        do {
            let head = try Self.readHeader(main)
            guard head.imagesCount > 0 else {
                throw SymbolicateError(
                    .badInput,
                    "a subcache or symbols file of a dyld shared cache, which lists no images: import the main"
                        + " cache file beside it (the one without a suffix)", path: path)
            }
            uuid = head.uuid
            arch = head.arch
            sharedRegionStart = head.sharedRegionStart
            osVersion = head.osVersion
            var parts = [main]
            var mappings = head.mappings.map { Mapping(address: $0.0, size: $0.1, fileOffset: $0.2, part: 0) }
            for sub in try Self.subcaches(main, head) {
                let part = Part(
                    path: sub.path, storage: try Self.openSubcache(locate(sub.suffix), named: sub.suffix, of: head))
                let subHead = try Self.readHeader(part)
                guard subHead.uuid == sub.uuid else {
                    throw SymbolicateError(
                        .badInput,
                        "the subcache \(sub.suffix) belongs to another cache: its UUID is \(subHead.uuid), the main"
                            + " file names \(sub.uuid)", path: sub.path)
                }
                let index = parts.count
                parts.append(part)
                mappings += subHead.mappings.map {
                    Mapping(address: $0.0, size: $0.1, fileOffset: $0.2, part: index)
                }
            }
            // Local symbols: in the main file, or in the `.symbols` file the header names.
            var local: (part: Int, offset: UInt64, size: UInt64)? = nil
            var note: String? = nil
            if head.localSymbolsOffset != 0 {
                local = (0, head.localSymbolsOffset, head.localSymbolsSize)
            } else if let symbolFile = head.symbolFileUUID {
                let symbolsPath = path + ".symbols"
                if let located = locate(".symbols"), let storage = try? ByteStorage(path: located) {
                    let part = Part(path: symbolsPath, storage: storage)
                    let symHead = try Self.readHeader(part)
                    guard symHead.uuid == symbolFile else {
                        throw SymbolicateError(
                            .badInput,
                            "this .symbols file belongs to another cache: its UUID is \(symHead.uuid), the main"
                                + " file names \(symbolFile)", path: symbolsPath)
                    }
                    parts.append(part)
                    local = (parts.count - 1, symHead.localSymbolsOffset, symHead.localSymbolsSize)
                } else {
                    note = "the cache names a .symbols file that is not beside it: exported names only"
                }
            }
            self.parts = parts
            self.mappings = mappings.sorted { $0.address < $1.address }
            localEntries64 = head.hasField(DyldCacheHeader.symbolFileUUID + 16)
            localSymbolsNote = note
            let entries64 = head.hasField(DyldCacheHeader.symbolFileUUID + 16)
            if let l = local {
                localSymbols = try Self.readLocalSymbols(
                    parts[l.part], part: l.part, offset: l.offset, size: l.size, entries64: entries64)
            } else {
                localSymbols = nil
            }
            images = try Self.readImages(main, head)
        } catch let error as DecodeError {
            throw SymbolicateError(.badInput, "corrupt dyld shared cache: \(error.description)", path: path)
        }
    }

    /// The file and offset of `size` bytes at cache address `address`; throws when they do not
    /// lie inside one mapping and its file.
    func resolve(_ address: UInt64, size: UInt64) throws -> (part: Int, offset: UInt64) {
        let i = mappings.partitioningIndex { $0.address > address }
        guard i > 0 else { throw DecodeError("address 0x\(String(address, radix: 16)) is in no mapping") }
        let m = mappings[i - 1]
        let into = address - m.address
        guard into < m.size else { throw DecodeError("address 0x\(String(address, radix: 16)) is in no mapping") }
        guard size <= m.size - into else {
            throw DecodeError(
                "0x\(String(size, radix: 16)) bytes at 0x\(String(address, radix: 16)) run outside their mapping")
        }
        let offset = m.fileOffset &+ into
        let count = UInt64(parts[m.part].storage.count)
        guard offset >= m.fileOffset, offset <= count, size <= count - offset else {
            throw DecodeError(
                "0x\(String(address, radix: 16)) maps past the end of \(PathParts.last(parts[m.part].path) ?? "a file")"
                    + " (cut short?)")
        }
        return (m.part, offset)
    }

    /// A reader from cache address `address` to the end of the file that holds it.
    func reader(at address: UInt64, atLeast size: UInt64) throws -> (part: Int, reader: ByteReader) {
        let (part, offset) = try resolve(address, size: size)
        let all = parts[part].reader
        return (part, try all.sub(offset, UInt64(all.count) - offset))
    }
}
