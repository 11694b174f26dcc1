// BuildFile: the on-disk form of one build's symbols, and its writer. One SQLite file per build
// UUID + arch, laid out like Sentry's SymCache: files, functions, source locations that chain to
// the location they were inlined into, and address ranges. Row ids of files, functions and
// locations are the indices of the in-memory SymbolTable, so those tables are the table, verbatim.
//
// Ranges are stored in blocks: one row per run of up to 504 consecutive ranges, keyed by the
// first start (the rowid), holding the run's (start - first start, location) pairs as packed
// 32-bit records in a BLOB; a run is cut early where a start lies 4 GB or more past its first. A
// lookup is still one index seek (the last block starting at or before the address) plus a binary
// search inside the block in memory. Measured on a build of 800,000 ranges against one row per
// range (WITHOUT ROWID): the whole build file writes in 0.45 s instead of 1.4 s and takes 23 MB
// instead of 29 MB, and lookups are as fast or faster. Locations are stored the same way: one row
// per 252 consecutive locations, keyed by the index of the first / 252, holding fixed 16-byte
// records (function, file, line, parent), so location N is record N % 252 of row N / 252, read in
// place. On the Benchmarks app (1.2 million locations, 1.1 million ranges) the file went from
// 38 MB (a row per location, 12-byte range records) to 30 MB; symbolic's SymCache is 31 MB.
// Blocks (4,032 bytes) fill 64 KB pages, sixteen to a page, and never spill into overflow pages.
//
// The writer fills a fresh file in one transaction with journaling and syncing off (the file is
// private until renamed, so a crash can only lose a file nobody sees) and leaves the single fsync
// to the caller, who renames the file into place afterwards.

import SymbolicateModel

enum BuildFile {
    /// Bumped whenever the tables below change; a file of another version is refused by name.
    /// 3: `locations.line` holds SymbolTable.none for "no line", so 0 is the line table's line 0.
    /// 4: locations in packed blocks of 16-byte records; range records of 8 bytes, their starts
    /// relative to the block's first.
    static let schemaVersion: Int64 = 4
    /// `PRAGMA application_id`: "SYMB", so a stray SQLite file is not taken for a build file.
    static let applicationID: Int64 = 0x5359_4D42

    static let schema = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
        CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE functions(id INTEGER PRIMARY KEY, name TEXT NOT NULL, entry INTEGER NOT NULL);
        CREATE TABLE locations(block INTEGER PRIMARY KEY, records BLOB NOT NULL);
        CREATE TABLE ranges(start INTEGER PRIMARY KEY, block BLOB NOT NULL);
        """

    /// The lookup: the last block of ranges starting at or before the address, and its first start.
    static let rangeQuery = "SELECT start, block FROM ranges WHERE start <= ?1 ORDER BY start DESC LIMIT 1"
    /// The block of locations holding location `?1 * locationsPerBlock`.
    static let locationBlockQuery = "SELECT records FROM locations WHERE block = ?1"

    /// Ranges per block, and bytes per range in a block: start minus the block's first start
    /// (UInt32) and location (UInt32), little-endian.
    static let rangesPerBlock = 504
    static let rangeRecordSize = 8
    /// Locations per block, and bytes per location: function, file, line, parent (UInt32 each,
    /// little-endian), the fields of SymbolTable.Location in order.
    static let locationsPerBlock = 252
    static let locationRecordSize = 16
    /// SQLite's largest page. Blocks are 4,032 bytes, so sixteen rows fill a page but for a few
    /// hundred bytes (a row's cell adds at most 18 bytes: its pointer, the lengths, the rowid);
    /// with 4 KB pages one such row per page would leave a quarter of the file empty.
    static let pageSize = 65536

    /// The location of the last range in `block` (whose first range starts at `first`) starting at
    /// or before `address`, or nil when none does; SymbolTable.none for a gap.
    static func location(in block: UnsafeRawBufferPointer, first: UInt64, containing address: UInt64) -> UInt32? {
        guard address >= first else { return nil }
        // Every record's offset fits 32 bits, so an offset past them compares as UInt32.max does.
        let offset = UInt32(clamping: address - first)
        let count = block.count / rangeRecordSize
        /// Field 0 (the start's offset) or 1 (the location) of record `i`.
        func field(_ i: Int, _ n: Int) -> UInt32 {
            UInt32(littleEndian: block.loadUnaligned(fromByteOffset: i * rangeRecordSize + 4 * n, as: UInt32.self))
        }
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if field(mid, 0) <= offset { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return nil }
        return field(lo - 1, 1)
    }

    /// Record `slot` of a block of locations, or nil when the block is shorter.
    static func location(in records: UnsafeRawBufferPointer, slot: Int) -> SymbolTable.Location? {
        let base = slot * locationRecordSize
        guard slot >= 0, base + locationRecordSize <= records.count else { return nil }
        func field(_ n: Int) -> UInt32 {
            UInt32(littleEndian: records.loadUnaligned(fromByteOffset: base + 4 * n, as: UInt32.self))
        }
        return .init(function: field(0), file: field(1), line: field(2), parent: field(3))
    }

    /// SQLite integers are signed: flipping the top bit keeps unsigned order for every address,
    /// kernel-half ELF addresses included.
    static func key(_ address: UInt64) -> Int64 {
        Int64(bitPattern: address ^ 0x8000_0000_0000_0000)
    }

    static func address(_ key: Int64) -> UInt64 {
        UInt64(bitPattern: key) ^ 0x8000_0000_0000_0000
    }

    /// Raised when a build file was written by another schema version; the store turns it into
    /// a message naming the build (or rebuilds the file from its source).
    struct VersionMismatch: Error {
        var found: Int64
        var path: String
    }

    /// The keys of the meta table.
    enum Meta {
        static let uuid = "uuid"
        static let arch = "arch"
        static let name = "name"
        static let textVMAddress = "text_vmaddr"
        static let textSize = "text_size"
        static let kind = "kind"
        static let path = "source_path"
        static let files = "files"
        static let functions = "functions"
        static let locations = "locations"
        static let ranges = "ranges"
    }

    /// Writes `table` into the (new or empty) SQLite file at `path`. The caller fsyncs and renames.
    static func write(_ table: SymbolTable, to path: String) throws {
        let db = try Database(path: path, mode: .readWrite)
        try db.exec(
            """
            PRAGMA page_size=\(pageSize); PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;
            PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY;
            """)
        try db.exec("BEGIN")
        try db.exec(schema)
        try writeMeta(table, db)

        let files = try db.prepare("INSERT INTO files(id, name) VALUES (?1, ?2)")
        for (i, name) in table.files.enumerated() {
            try files.bind(1, Int64(i))
            try files.bind(2, name)
            try files.run()
        }
        let functions = try db.prepare("INSERT INTO functions(id, name, entry) VALUES (?1, ?2, ?3)")
        for (i, f) in table.functions.enumerated() {
            try functions.bind(1, Int64(i))
            try functions.bind(2, f.name)
            try functions.bind(3, Int64(bitPattern: f.entry))
            try functions.run()
        }
        try writeLocations(table.locations, db)
        try writeRanges(table.ranges, db)

        try db.exec("PRAGMA user_version=\(schemaVersion); PRAGMA application_id=\(applicationID)")
        try db.exec("COMMIT")
    }

    /// Locations go in blocks of `locationsPerBlock` records, block N holding locations from
    /// N * locationsPerBlock on (the last block may be shorter).
    private static func writeLocations(_ locations: [SymbolTable.Location], _ db: Database) throws {
        let insert = try db.prepare("INSERT INTO locations(block, records) VALUES (?1, ?2)")
        // A block's records as little-endian UInt32 fields, four to a location.
        var fields: [UInt32] = []
        fields.reserveCapacity(locationsPerBlock * locationRecordSize / 4)
        for first in stride(from: 0, to: locations.count, by: locationsPerBlock) {
            fields.removeAll(keepingCapacity: true)
            for l in locations[first..<min(first + locationsPerBlock, locations.count)] {
                fields.append(l.function.littleEndian)
                fields.append(l.file.littleEndian)
                fields.append(l.line.littleEndian)
                fields.append(l.parent.littleEndian)
            }
            try insert.bind(1, Int64(first / locationsPerBlock))
            try fields.withUnsafeBytes { try insert.bind(2, bytes: $0) }
            try insert.run()
        }
    }

    private static func writeMeta(_ table: SymbolTable, _ db: Database) throws {
        let meta = try db.prepare("INSERT INTO meta(key, value) VALUES (?1, ?2)")
        let b = table.build
        let texts: [(String, String)] = [
            (Meta.uuid, b.uuid.uuidString), (Meta.arch, b.arch.rawValue), (Meta.name, b.name),
            (Meta.kind, b.kind.rawValue), (Meta.path, b.path),
        ]
        for (key, value) in texts {
            try meta.bind(1, key)
            try meta.bind(2, value)
            try meta.run()
        }
        let numbers: [(String, Int64)] = [
            (Meta.textVMAddress, Int64(bitPattern: b.textVMAddress)), (Meta.textSize, Int64(bitPattern: b.textSize)),
            (Meta.files, Int64(table.files.count)), (Meta.functions, Int64(table.functions.count)),
            (Meta.locations, Int64(table.locations.count)), (Meta.ranges, Int64(table.ranges.count)),
        ]
        for (key, value) in numbers {
            try meta.bind(1, key)
            try meta.bind(2, value)
            try meta.run()
        }
    }

    /// Ranges go in by ascending start, in blocks. Where several ranges share a start the last
    /// one wins, as SymbolTable's binary search picks it; unsorted input is sorted (stably) first.
    private static func writeRanges(_ ranges: [SymbolTable.Range], _ db: Database) throws {
        let insert = try db.prepare("INSERT INTO ranges(start, block) VALUES (?1, ?2)")
        // A block's records as little-endian UInt32 fields, two to a range.
        var block: [UInt32] = []
        block.reserveCapacity(rangesPerBlock * rangeRecordSize / 4)
        var first: UInt64 = 0
        func put(_ r: SymbolTable.Range) throws {
            // A start 4 GB or more past the block's first does not fit its 32-bit offset.
            if !block.isEmpty, r.start - first > UInt64(UInt32.max) { try flush() }
            if block.isEmpty { first = r.start }
            block.append(UInt32(r.start - first).littleEndian)
            block.append(r.location.littleEndian)
            if block.count * 4 == rangesPerBlock * rangeRecordSize { try flush() }
        }
        func flush() throws {
            guard !block.isEmpty else { return }
            try insert.bind(1, key(first))
            try block.withUnsafeBytes { try insert.bind(2, bytes: $0) }
            try insert.run()
            block.removeAll(keepingCapacity: true)
        }
        if zip(ranges, ranges.dropFirst()).allSatisfy({ $0.start <= $1.start }) {
            for (i, r) in ranges.enumerated() where i + 1 == ranges.count || ranges[i + 1].start != r.start {
                try put(r)
            }
        } else {
            let order = ranges.indices.sorted { (ranges[$0].start, $0) < (ranges[$1].start, $1) }
            for (n, i) in order.enumerated() where n + 1 == order.count || ranges[order[n + 1]].start != ranges[i].start
            {
                try put(ranges[i])
            }
        }
        try flush()
    }
}

extension BuildFile {
    /// Checks a freshly written file against the table it came from: the range found for sample
    /// addresses (every range start when there are few, else an even spread of at least one per
    /// block, plus the addresses just before and between starts) must be the one SymbolTable picks.
    static func checkRanges(of table: SymbolTable, at path: String) throws {
        let ranges = table.ranges
        // Unsorted input was sorted by the writer; SymbolTable gives no defined answer for it.
        guard !ranges.isEmpty, zip(ranges, ranges.dropFirst()).allSatisfy({ $0.start <= $1.start }) else { return }
        // Not mapped: the check runs while the import holds the whole table in memory.
        let reader = try BuildFileSource.Reader(path: path, mapped: false)
        let step = min(max(1, ranges.count / 1000), rangesPerBlock)
        var addresses: [UInt64] = [0, .max]
        for i in stride(from: 0, to: ranges.count, by: step) {
            let start = ranges[i].start
            addresses.append(start)
            if start > 0 { addresses.append(start - 1) }
            if i + 1 < ranges.count { addresses.append(start + (ranges[i + 1].start - start) / 2) }
        }
        for address in addresses {
            let storedOrGap = try reader.rangeLocation(containing: address)
            let expected: UInt32? = table.rangeIndex(containing: address).map { ranges[$0].location }
            guard storedOrGap == expected else {
                throw SymbolicateError(
                    .internal,
                    "the written build file disagrees with its symbol table at 0x\(String(address, radix: 16)) "
                        + "(\(storedOrGap.map(String.init) ?? "none") vs \(expected.map(String.init) ?? "none"))",
                    path: path)
            }
        }
    }
}
