// BuildFileSource: a build file of the store queried in place, as a SymbolSource. A lookup is one
// index seek on the ranges table (a binary search in the block found) plus a walk up the inline
// chain, and answers exactly what
// SymbolTable.lookup answers for the table the file was written from.
//
// The chain walk has two modes, chosen by use. A fresh source reads each location, function and
// file row it needs with cached statements (opening costs a few reads of the header, so a
// process that symbolicates one report of 60 frames touches a few hundred rows of a file with a
// million). Once it has answered about as many lookups as it would take to pay for loading the
// locations, functions and files (rows / 16: one query-mode lookup costs about what reading 16
// rows does), one thread loads them into memory and every later lookup walks the chain there
// (a long-running server).
//
// Lookups may come from many threads at once: each takes a reader (a connection with its
// prepared statements) from a small pool and puts it back, so threads never share a connection.
// A new connection is opened only while the file is still the one the source was opened on; once
// it is gone (a bucket store's cache evicted it) or replaced (a superseding import renamed a new
// file over it), lookups wait for the connections already open, which still read the old file.

import Foundation
import SymbolicateModel
import Synchronization

package final class BuildFileSource: SymbolSource, Sendable {
    package var isFromStore: Bool { true }
    package let build: BuildInfo
    let path: String
    let rowCounts: (files: Int, functions: Int, locations: Int, ranges: Int)

    /// Locations, functions and files, once loaded.
    final class Tables: Sendable {
        let files: [String]
        let functions: [SymbolTable.Function]
        let locations: [SymbolTable.Location]

        init(files: [String], functions: [SymbolTable.Function], locations: [SymbolTable.Location]) {
            self.files = files
            self.functions = functions
            self.locations = locations
        }
    }

    private let tables = TablesSlot()

    /// The tables once loaded: stored once, read by every lookup without a lock, as
    /// `AtomicLazyReference` does (whose `load`, generic code not specialized for `Tables`
    /// here, cost a lookup about 640 instructions). The slot holds one retain of what it stores.
    final class TablesSlot: Sendable {
        private let address = Atomic<UInt>(0)

        init() {}

        func load() -> Tables? {
            let raw = address.load(ordering: .acquiring)
            guard raw != 0, let pointer = UnsafeRawPointer(bitPattern: raw) else { return nil }
            return Unmanaged<Tables>.fromOpaque(pointer).takeUnretainedValue()
        }

        /// Stores `tables` unless tables are stored already; answers the stored ones.
        func storeIfNil(_ tables: Tables) -> Tables {
            let retained = Unmanaged.passRetained(tables)
            let (stored, found) = address.compareExchange(
                expected: 0, desired: UInt(bitPattern: retained.toOpaque()), ordering: .acquiringAndReleasing)
            if stored { return tables }
            retained.release()
            return Unmanaged<Tables>.fromOpaque(UnsafeRawPointer(bitPattern: found)!).takeUnretainedValue()
        }

        deinit {
            if let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) {
                Unmanaged<Tables>.fromOpaque(pointer).release()
            }
        }
    }
    private let lookups = Atomic<Int>(0)
    /// Lookups answered with queries before the tables are loaded.
    package let loadAfter: Int
    private let pool: ReaderPool
    private static let maxIdleReaders = 8

    /// Opens the build file at `path`. Throws BuildFile.VersionMismatch for a file of another
    /// schema version, and a SymbolicateError for anything that is not a readable build file.
    /// `loadAfter` overrides when the tables move to memory (0: at once; Int.max: never).
    package init(path: String, loadAfter: Int? = nil) throws {
        let reader = try Reader(path: path)
        let meta = try BuildFileSource.readHeader(reader.database, path: path)
        build = meta.build
        self.path = path
        rowCounts = (meta.files, meta.functions, meta.locations, meta.ranges)
        self.loadAfter = loadAfter ?? max(64, (meta.files + meta.functions + meta.locations) / 16)
        pool = ReaderPool(reader)
        if self.loadAfter == 0 { _ = tables.storeIfNil(try load(reader)) }
    }

    package var tablesAreLoaded: Bool { tables.load() != nil }

    /// The tables in memory, loading them now if they are not yet.
    func loadedTables() throws -> Tables {
        if let loaded = tables.load() { return loaded }
        let reader = takeReader()
        defer { putBack(reader) }
        return tables.storeIfNil(try load(reader))
    }

    // MARK: Lookup

    /// Throws (naming the build, with SQLite's error as the cause) when the file cannot be
    /// read at this address: a damaged page is a failure, never "no symbol here".
    package func lookup(_ address: UInt64) throws -> [SymbolTable.Resolved]? {
        let reader = takeReader()
        defer { putBack(reader) }
        do {
            let loaded = try tables.load() ?? loadIfDue(reader)
            guard let start = try reader.rangeLocation(containing: address) else { return nil }
            if let loaded {
                return SymbolTable.chain(
                    from: start, files: loaded.files, functions: loaded.functions, locations: loaded.locations)
            }
            return try SymbolTable.chain(
                from: start, location: reader.location, function: reader.function, file: reader.file)
        } catch {
            throw unreadable(error)
        }
    }

    /// A failed read of this build, said with the build's identity and the error underneath.
    package func unreadable(_ error: any Error) -> SymbolicateError {
        let code = (error as? SymbolicateError)?.code ?? .io
        let cause = (error as? SymbolicateError)?.message ?? "\(error)"
        return SymbolicateError(
            code, "build file of \(build.uuid.uuidString) \(build.arch) cannot be read: \(cause)", path: path,
            cause: error)
    }

    /// Counts a query-mode lookup; the one that reaches `loadAfter` loads the tables (and
    /// throws when they cannot be read: the file is damaged).
    private func loadIfDue(_ reader: Reader) throws -> Tables? {
        let count = lookups.wrappingAdd(1, ordering: .relaxed).newValue
        guard count == loadAfter else { return nil }
        return tables.storeIfNil(try load(reader))
    }

    // MARK: Loading

    private func load(_ reader: Reader) throws -> Tables {
        let db = reader.database
        var files: [String] = []
        files.reserveCapacity(rowCounts.files)
        let fileRows = try db.prepare("SELECT id, name FROM files ORDER BY id")
        while try fileRows.step() {
            guard fileRows.int64(0) == files.count else { throw BuildFileSource.damaged("files", path) }
            files.append(fileRows.text(1))
        }
        var functions: [SymbolTable.Function] = []
        functions.reserveCapacity(rowCounts.functions)
        let functionRows = try db.prepare("SELECT id, name, entry FROM functions ORDER BY id")
        while try functionRows.step() {
            guard functionRows.int64(0) == functions.count else { throw BuildFileSource.damaged("functions", path) }
            functions.append(.init(name: functionRows.text(1), entry: UInt64(bitPattern: functionRows.int64(2))))
        }
        var locations: [SymbolTable.Location] = []
        locations.reserveCapacity(rowCounts.locations)
        let locationRows = try db.prepare("SELECT block, records FROM locations ORDER BY block")
        let perBlock = BuildFile.locationsPerBlock
        while try locationRows.step() {
            // Every block but the last is full, and blocks are numbered from 0 without a hole.
            guard locations.count % perBlock == 0, locationRows.int64(0) == locations.count / perBlock else {
                throw BuildFileSource.damaged("locations", path)
            }
            let whole = locationRows.withBlob(1) { records in
                let count = records.count / BuildFile.locationRecordSize
                guard count > 0, count <= perBlock, records.count % BuildFile.locationRecordSize == 0 else {
                    return false
                }
                for slot in 0..<count {
                    if let location = BuildFile.location(in: records, slot: slot) { locations.append(location) }
                }
                return true
            }
            guard whole else { throw BuildFileSource.damaged("locations", path) }
        }
        guard files.count == rowCounts.files, functions.count == rowCounts.functions,
            locations.count == rowCounts.locations
        else { throw BuildFileSource.damaged("table sizes", path) }
        return Tables(files: files, functions: functions, locations: locations)
    }

    // MARK: Readers

    /// One connection to the file with the statements a lookup needs. Owned by one thread at a
    /// time: taken from the pool, used, put back.
    final class Reader {
        let database: Database
        private let range: Statement
        private let locationBlock: Statement
        private let functionRow: Statement
        private let fileRow: Statement
        /// The block of locations read last: a chain's locations are often in one block.
        private var cachedBlock: (index: Int64, records: [UInt8])?
        /// Functions and file names read before, by id: a report's frames share files and often
        /// functions, and each query costs more than the rest of a lookup. At most `cacheLimit`
        /// of each (the tables load whole long before a long-lived source would reach it).
        private var functions: [UInt32: SymbolTable.Function] = [:]
        private var fileNames: [UInt32: String] = [:]
        static let cacheLimit = 16_384

        /// `mapped`: read through mmap (fastest; pages count toward the process's resident size).
        init(path: String, mapped: Bool = true) throws {
            database = try Database(path: path, mode: .immutable)
            try database.exec(
                "PRAGMA query_only=1; PRAGMA mmap_size=\(mapped ? 268_435_456 : 0); PRAGMA cache_size=-\(mapped ? 4096 : 1024)"
            )
            try BuildFileSource.checkVersion(database, path: path)
            range = try database.prepare(BuildFile.rangeQuery)
            locationBlock = try database.prepare(BuildFile.locationBlockQuery)
            functionRow = try database.prepare("SELECT name, entry FROM functions WHERE id = ?1")
            fileRow = try database.prepare("SELECT name FROM files WHERE id = ?1")
        }

        /// Blocks of ranges read before, each with the part of the address space it answers for
        /// alone: from its first range's start to its last range's (past that, the next block
        /// may start, which only the query knows). A report's frames fall in a few blocks, and
        /// the query costs ten times the rest of a lookup. At most `rangeBlockLimit`, the oldest
        /// replaced first.
        private var rangeBlocks: [(answers: Range<UInt64>, records: [UInt8])] = []
        private var oldestRangeBlock = 0
        static let rangeBlockLimit = 8

        /// The innermost location of the range holding `address`; nil for none or a gap.
        func rangeLocation(containing address: UInt64) throws -> UInt32? {
            for block in rangeBlocks where block.answers.contains(address) {
                let location = block.records.withUnsafeBytes {
                    BuildFile.location(in: $0, first: block.answers.lowerBound, containing: address)
                }
                return location == SymbolTable.none ? nil : location
            }
            defer { range.reset() }
            try range.bind(1, BuildFile.key(address))
            guard try range.step() else { return nil }
            let first = BuildFile.address(range.int64(0))
            let (location, records) = range.withBlob(1) {
                (BuildFile.location(in: $0, first: first, containing: address), [UInt8]($0))
            }
            if let lastStart = BuildFile.lastStart(in: records, first: first), lastStart > first {
                let block = (answers: first..<lastStart, records: records)
                if rangeBlocks.count < Reader.rangeBlockLimit {
                    rangeBlocks.append(block)
                } else {
                    rangeBlocks[oldestRangeBlock] = block
                    oldestRangeBlock = (oldestRangeBlock + 1) % Reader.rangeBlockLimit
                }
            }
            return location == SymbolTable.none ? nil : location
        }

        /// Location `id`: record id % locationsPerBlock of block id / locationsPerBlock.
        func location(_ id: UInt32) throws -> SymbolTable.Location? {
            let index = Int64(id) / Int64(BuildFile.locationsPerBlock)
            let slot = Int(id) % BuildFile.locationsPerBlock
            if let cachedBlock, cachedBlock.index == index {
                return cachedBlock.records.withUnsafeBytes { BuildFile.location(in: $0, slot: slot) }
            }
            defer { locationBlock.reset() }
            try locationBlock.bind(1, index)
            guard try locationBlock.step() else { return nil }
            let records = locationBlock.withBlob(0) { [UInt8]($0) }
            cachedBlock = (index, records)
            return records.withUnsafeBytes { BuildFile.location(in: $0, slot: slot) }
        }

        func function(_ id: UInt32) throws -> SymbolTable.Function? {
            if let known = functions[id] { return known }
            defer { functionRow.reset() }
            try functionRow.bind(1, Int64(id))
            guard try functionRow.step() else { return nil }
            let function = SymbolTable.Function(
                name: functionRow.text(0), entry: UInt64(bitPattern: functionRow.int64(1)))
            if functions.count < Reader.cacheLimit { functions[id] = function }
            return function
        }

        func file(_ id: UInt32) throws -> String? {
            guard id != SymbolTable.none else { return nil }
            if let known = fileNames[id] { return known }
            defer { fileRow.reset() }
            try fileRow.bind(1, Int64(id))
            guard try fileRow.step() else { return nil }
            let name = fileRow.text(0)
            if fileNames.count < Reader.cacheLimit { fileNames[id] = name }
            return name
        }

    }

    /// A reader from the pool, else a new connection, else (the file is gone or replaced) the
    /// next reader put back. A new connection must find the file this source was opened on: a
    /// superseding import renames a new build file over the old one, and this source may hold the
    /// old one's locations, functions and files in memory, which the new file's ranges would
    /// index into. At least one reader is always open (the pool closes readers only past its
    /// bound), so the wait ends when the lookups holding them end.
    func takeReader() -> Reader {
        if let reader = pool.take() { return reader }
        if let reader = try? Reader(path: path),
            let meta = try? BuildFileSource.readHeader(reader.database, path: path),
            meta.build.uuid == build.uuid, meta.build.arch == build.arch, meta.build.kind == build.kind,
            meta.build.textVMAddress == build.textVMAddress, meta.build.textSize == build.textSize,
            meta.files == rowCounts.files, meta.functions == rowCounts.functions,
            meta.locations == rowCounts.locations, meta.ranges == rowCounts.ranges
        {
            return reader
        }
        return pool.waitForReader()
    }

    /// Lookups waiting for a reader (all are in use and no new one could be opened).
    var lookupsWaitingForReader: Int { pool.waiting }

    func putBack(_ reader: Reader) {
        let extra = pool.putBack(reader, keepingAtMost: BuildFileSource.maxIdleReaders)
        _ = extra  // closed here, outside the lock, when the last reference goes
    }

    /// The idle readers, and a wait for one when no new connection can be opened.
    private final class ReaderPool: Sendable {
        private let state: Locked<(idle: [Reader], waiting: Int)>
        private let returned = Locked<(idle: [Reader], waiting: Int)>.Condition()

        init(_ first: Reader) { state = Locked(([first], 0)) }

        func take() -> Reader? {
            state.withLock { $0.idle.popLast() }
        }

        func waitForReader() -> Reader {
            state.withLock { $0.waiting += 1 }
            return state.wait(
                on: returned, until: { !$0.idle.isEmpty },
                then: { state in
                    state.waiting -= 1
                    return state.idle.removeLast()
                })
        }

        /// Lookups waiting for a reader now.
        var waiting: Int { state.withLock { $0.waiting } }

        /// Keeps `reader` unless `limit` are idle already; returns it then, for the caller to close.
        func putBack(_ reader: Reader, keepingAtMost limit: Int) -> Reader? {
            let kept = state.withLock { state in
                guard state.idle.count < limit else { return false }
                state.idle.append(reader)
                return true
            }
            guard kept else { return reader }
            returned.signal()
            return nil
        }
    }
}
