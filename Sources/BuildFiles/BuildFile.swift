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

package enum BuildFile {
    /// Bumped whenever the tables below change; a file of another version is refused by name.
    /// 3: `locations.line` holds SymbolTable.none for "no line", so 0 is the line table's line 0.
    /// 4: locations in packed blocks of 16-byte records; range records of 8 bytes, their starts
    /// relative to the block's first.
    package static let schemaVersion: Int64 = 4
    /// `PRAGMA application_id`: "SYMB", so a stray SQLite file is not taken for a build file.
    package static let applicationID: Int64 = 0x5359_4D42

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
    package static let locationsPerBlock = 252
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
        let lo = (0..<count).partitioningIndex { field($0, 0) > offset }
        guard lo > 0 else { return nil }
        return field(lo - 1, 1)
    }

    /// The start of the last range in a block of ranges whose first starts at `first`; nil for
    /// a block without a whole record or whose offsets pass the address space.
    static func lastStart(in block: [UInt8], first: UInt64) -> UInt64? {
        let count = block.count / rangeRecordSize
        guard count > 0 else { return nil }
        let offset = block.withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: (count - 1) * rangeRecordSize, as: UInt32.self))
        }
        let (last, overflow) = first.addingReportingOverflow(UInt64(offset))
        return overflow ? nil : last
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
    package struct VersionMismatch: Error {
        package var found: Int64
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
    /// Ranges may come unsorted and with shared starts: they go in by ascending start (stably),
    /// the last of a shared start winning, as SymbolTable's binary search picks it.
    @discardableResult
    package static func write(_ table: SymbolTable, to path: String) throws -> BuildFileWriter {
        let writer = try BuildFileWriter(path: path)
        try writer.take(locations: table.locations[...])
        let ranges = table.ranges
        if zip(ranges, ranges.dropFirst()).allSatisfy({ $0.start <= $1.start }) {
            try writer.take(ranges: ranges[...])
        } else {
            let order = ranges.indices.sorted { (ranges[$0].start, $0) < (ranges[$1].start, $1) }
            try writer.take(ranges: order.map { ranges[$0] }[...])
        }
        try writer.finish(table)
        return writer
    }
}

/// Writes one build file as its table is built (a SymbolTableSink): location and range blocks
/// go into SQLite as they fill, so the table never has to be whole in memory; `finish` adds the
/// files, functions and meta rows and commits. It keeps a sample of the ranges it wrote, which
/// `check` looks up in the finished file.
package final class BuildFileWriter: SymbolTableSink {
    let path: String
    /// The file being written and its two statements; closed (nil) once `finish` commits, so
    /// that the file can be read, checked and renamed.
    private struct Open {
        var db: Database
        var insertLocations: Statement
        var insertRanges: Statement
    }
    private var open: Open?
    /// The blocks being filled, in one value: filling them is then one access to the writer
    /// per call, not a checked access per record.
    private var blocks = Blocks()
    /// Told how far the table's build has come (bytes of DWARF read, of the total).
    package var onProgress: ((Int, Int) -> Void)?
    /// Called after every `writebackBytes` of blocks taken: the file's owner starts the disk's
    /// writing of them (SQLite has spilled them to the file by then, all but the last page cache's
    /// worth), so the fsync after `finish` waits for the last few megabytes instead of the file.
    package var onWriteback: (() -> Void)?
    static let writebackBytes = 8 << 20
    private var writebackMark = 0
    var locationCount: Int { blocks.locationCount }
    var rangeCount: Int { blocks.rangeCount }

    package init(path: String) throws {
        self.path = path
        let db = try Database(path: path, mode: .readWrite)
        // A small page cache: full pages go to the file as the import goes (SQLite spills them;
        // no journal to keep), on the thread that merges while others read, instead of all at
        // the commit, after the last unit, when nothing else runs.
        try db.exec(
            """
            PRAGMA page_size=\(BuildFile.pageSize); PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
            PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-1024; PRAGMA temp_store=MEMORY;
            """)
        try db.exec("BEGIN")
        try db.exec(BuildFile.schema)
        open = Open(
            db: db, insertLocations: try db.prepare("INSERT INTO locations(block, records) VALUES (?1, ?2)"),
            insertRanges: try db.prepare("INSERT INTO ranges(start, block) VALUES (?1, ?2)"))
    }

    /// The open file, or an error once it is finished.
    private func file() throws -> Open {
        guard let open else { throw SymbolicateError(.internal, "the build file is already finished", path: path) }
        return open
    }

    /// One row: the block's key and its records.
    private static func insert(_ statement: Statement, _ key: Int64, _ records: UnsafeRawBufferPointer) throws {
        try statement.bind(1, key)
        try statement.bind(2, bytes: records)
        try statement.run()
    }

    /// Locations go in blocks of `locationsPerBlock` records, block N holding locations from
    /// N * locationsPerBlock on (the last block may be shorter).
    package func take(locations: ArraySlice<SymbolTable.Location>) throws {
        let statement = try file().insertLocations
        try blocks.take(locations: locations) { try BuildFileWriter.insert(statement, $0, $1) }
        noteWritten()
    }

    package func progress(done: Int, total: Int) { onProgress?(done, total) }

    /// Calls `onWriteback` once another `writebackBytes` of records have been taken.
    private func noteWritten() {
        guard let onWriteback else { return }
        let bytes = blocks.locationCount * BuildFile.locationRecordSize + blocks.rangeCount * BuildFile.rangeRecordSize
        guard bytes - writebackMark >= BuildFileWriter.writebackBytes else { return }
        writebackMark = bytes
        onWriteback()
    }

    /// Ranges by ascending start; where several share a start, the last wins.
    package func take(ranges: ArraySlice<SymbolTable.Range>) throws {
        let statement = try file().insertRanges
        try blocks.take(ranges: ranges, path: path) { try BuildFileWriter.insert(statement, BuildFile.key($0), $1) }
        noteWritten()
    }

    /// Ends the file: the last blocks, then `head`'s build, files and functions and the counts
    /// taken, and the commit. The caller fsyncs and renames.
    package func finish(_ head: SymbolTable) throws {
        let (locations, ranges) = (try file().insertLocations, try file().insertRanges)
        try blocks.finish(
            locations: { try BuildFileWriter.insert(locations, $0, $1) },
            ranges: { try BuildFileWriter.insert(ranges, BuildFile.key($0), $1) })
        let db = try file().db
        try writeMeta(head, db)
        try BuildFileWriter.insertRows(db, "files", columns: ["name"], count: head.files.count) { s, i, p in
            try s.bind(p, head.files[i])
        }
        try BuildFileWriter.insertRows(db, "functions", columns: ["name", "entry"], count: head.functions.count) {
            s, i, p in
            try s.bind(p, head.functions[i].name)
            try s.bind(p + 1, Int64(bitPattern: head.functions[i].entry))
        }
        try db.exec("PRAGMA user_version=\(BuildFile.schemaVersion); PRAGMA application_id=\(BuildFile.applicationID)")
        try db.exec("COMMIT")
        open = nil
    }

    /// Rows 0..<count into `table` (whose key, `id`, is the row's number) with `columns` besides,
    /// `batch` rows a statement: one statement a row costs SQLite a cursor opened and a key sought
    /// each time, which was most of writing the 180,000 functions of a linked Swift program. Row 0
    /// names its key; the others leave it to SQLite, which gives a new row the largest key plus
    /// one, appending without the search for the key that a named one takes (a third of the
    /// time of each row). `bind` binds row `i`'s values of `columns` from parameter `p` on.
    static func insertRows(
        _ db: Database, _ table: String, columns: [String], count: Int, batch: Int = 64,
        bind: (Statement, _ i: Int, _ p: Int32) throws -> Void
    ) throws {
        guard count > 0 else { return }
        func statement(rows: Int, withKey: Bool) throws -> Statement {
            let names = (withKey ? ["id"] : []) + columns
            let row = "(" + names.map { _ in "?" }.joined(separator: ", ") + ")"
            return try db.prepare(
                "INSERT INTO \(table)(\(names.joined(separator: ", "))) VALUES "
                    + Array(repeating: row, count: rows).joined(separator: ", "))
        }
        let first = try statement(rows: 1, withKey: true)
        try first.bind(1, Int64(0))
        try bind(first, 0, 2)
        try first.run()
        var i = 1
        let width = columns.count
        if count - i >= batch {
            let full = try statement(rows: batch, withKey: false)
            while count - i >= batch {
                for k in 0..<batch { try bind(full, i + k, Int32(k * width + 1)) }
                try full.run()
                i += batch
            }
        }
        if i < count {
            let one = try statement(rows: 1, withKey: false)
            while i < count {
                try bind(one, i, 1)
                try one.run()
                i += 1
            }
        }
        // `count` rows with distinct keys from 0, the last count - 1: the keys are 0..<count (as
        // they are in the empty table the file starts with).
        let last = try db.prepare("SELECT max(id) FROM \(table)")
        guard try last.step(), last.int64(0) == Int64(count - 1) else {
            throw SymbolicateError(.internal, "the \(table) table's rows are not numbered 0..<\(count)", path: nil)
        }
    }

    private func writeMeta(_ head: SymbolTable, _ db: Database) throws {
        typealias Meta = BuildFile.Meta
        let meta = try db.prepare("INSERT INTO meta(key, value) VALUES (?1, ?2)")
        let b = head.build
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
            (Meta.files, Int64(head.files.count)), (Meta.functions, Int64(head.functions.count)),
            (Meta.locations, Int64(blocks.locationCount)), (Meta.ranges, Int64(blocks.rangeCount)),
        ]
        for (key, value) in numbers {
            try meta.bind(1, key)
            try meta.bind(2, value)
            try meta.run()
        }
    }

    /// Checks the finished file against the ranges written: the range found for the sampled
    /// addresses must be the one the table picks.
    package func check() throws {
        try BuildFile.check(blocks.sampler.samples(), at: path)
    }
}

/// A build file's location and range blocks while they fill; `flush` callbacks take a full
/// block (its key and records) into the file.
private struct Blocks {
    /// The block being filled: little-endian UInt32 fields, four to a location.
    var locationFields: [UInt32] = []
    var locationCount = 0
    /// The block being filled: two fields to a range, its start relative to `rangeFirst`; the
    /// first `rangeFill` of them are in use.
    var rangeFields = [UInt32](repeating: 0, count: BuildFile.rangesPerBlock * BuildFile.rangeRecordSize / 4)
    var rangeFill = 0
    var rangeFirst: UInt64 = 0
    /// The last range taken, not written yet: one with the same start that follows replaces it.
    var pendingRange: SymbolTable.Range?
    var rangeCount = 0
    var sampler = RangeSampler()

    init() {
        locationFields.reserveCapacity(BuildFile.locationsPerBlock * BuildFile.locationRecordSize / 4)
    }

    mutating func take(
        locations: ArraySlice<SymbolTable.Location>, flush: (Int64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var next = locations.startIndex
        while next < locations.endIndex {
            // As many as the block has room for, written into the array's storage in one pass
            // (appending field by field checked the array's uniqueness and capacity each time).
            let room = BuildFile.locationsPerBlock - locationCount % BuildFile.locationsPerBlock
            let n = min(room, locations.endIndex - next)
            let old = locationFields.count
            locationFields.append(contentsOf: repeatElement(0, count: 4 * n))
            locationFields.withUnsafeMutableBufferPointer { fields in
                locations.withUnsafeBufferPointer { source in
                    var f = old
                    for l in source[(next - locations.startIndex)..<(next - locations.startIndex + n)] {
                        fields[f] = l.function.littleEndian
                        fields[f + 1] = l.file.littleEndian
                        fields[f + 2] = l.line.littleEndian
                        fields[f + 3] = l.parent.littleEndian
                        f += 4
                    }
                }
            }
            locationCount += n
            next += n
            if n == room { try flushLocations(flush) }
        }
    }

    /// The block of locations being filled, keyed by its index.
    mutating func flushLocations(_ flush: (Int64, UnsafeRawBufferPointer) throws -> Void) throws {
        guard !locationFields.isEmpty else { return }
        let records = locationFields.count * 4 / BuildFile.locationRecordSize
        let block = Int64((locationCount - records) / BuildFile.locationsPerBlock)
        try locationFields.withUnsafeBytes { try flush(block, $0) }
        locationFields.removeAll(keepingCapacity: true)
    }

    mutating func take(
        ranges: ArraySlice<SymbolTable.Range>, path: String, flush: (UInt64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var pending = pendingRange
        try withRangeBlock { block in
            for r in ranges {
                if let p = pending {
                    if r.start == p.start {
                        pending = r
                        continue
                    }
                    guard r.start > p.start else {
                        throw SymbolicateError(
                            .internal,
                            "ranges reached the build file out of order (0x\(String(r.start, radix: 16)) "
                                + "after 0x\(String(p.start, radix: 16)))", path: path)
                    }
                    try block.add(p, flush)
                }
                pending = r
            }
        }
        pendingRange = pending
    }

    /// The block of ranges being filled, its state in one local value over the array's storage
    /// while `body` adds to it (field by field appends and stores of the state cost more than the
    /// records themselves).
    private mutating func withRangeBlock(_ body: (inout RangeBlock) throws -> Void) throws {
        var block = RangeBlock(fill: rangeFill, first: rangeFirst, count: rangeCount, sampler: sampler)
        // Moved out, so that the block's additions to it do not copy it.
        sampler = RangeSampler()
        defer { (rangeFill, rangeFirst, rangeCount, sampler) = (block.fill, block.first, block.count, block.sampler) }
        try rangeFields.withUnsafeMutableBufferPointer { fields in
            block.fields = fields
            try body(&block)
        }
    }

    /// A block of ranges being filled in place: `fill` fields of `fields` in use, the block's
    /// first start, the ranges added so far and the sample of them.
    struct RangeBlock {
        var fill: Int
        var first: UInt64
        var count: Int
        var sampler: RangeSampler
        var fields = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)

        /// Adds `r`, cutting the block first where `r` starts 4 GB or more past its first start;
        /// `flush` writes a block that is full or cut.
        @inline(__always)
        mutating func add(_ r: SymbolTable.Range, _ flush: (UInt64, UnsafeRawBufferPointer) throws -> Void) throws {
            if fill > 0, r.start - first > UInt64(UInt32.max) { try flushBlock(flush) }
            if fill == 0 { first = r.start }
            fields[fill] = UInt32(truncatingIfNeeded: r.start - first).littleEndian
            fields[fill + 1] = r.location.littleEndian
            fill += 2
            sampler.add(r, index: count)
            count += 1
            if fill == fields.count { try flushBlock(flush) }
        }

        mutating func flushBlock(_ flush: (UInt64, UnsafeRawBufferPointer) throws -> Void) throws {
            try flush(first, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: fields[0..<fill])))
            fill = 0
        }
    }

    /// The last range and the last blocks.
    mutating func finish(
        locations: (Int64, UnsafeRawBufferPointer) throws -> Void,
        ranges: (UInt64, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let pending = pendingRange
        pendingRange = nil
        try withRangeBlock { block in
            if let pending { try block.add(pending, ranges) }
            if block.fill > 0 { try block.flushBlock(ranges) }
        }
        try flushLocations(locations)
    }
}

/// A sample of the ranges written, as addresses and the location the table answers for each
/// (nil: before the first range): every range start while there are few, then an even spread of
/// at least one per block, with the address just before each sampled start and one between it
/// and the next; and the ends of the address space.
package struct RangeSampler {
    private var points: [(address: UInt64, expected: UInt32?)] = []
    private var first: SymbolTable.Range?
    private var last: SymbolTable.Range?
    /// A sampled range waiting for the next start (for the address between them).
    private var open: SymbolTable.Range?

    mutating func add(_ r: SymbolTable.Range, index: Int) {
        if let o = open {
            points.append((o.start + (r.start - o.start) / 2, o.location))
            open = nil
        }
        if index < 1000 || (index < 64_000 && index % 64 == 0) || index % BuildFile.rangesPerBlock == 0 {
            points.append((r.start, r.location))
            if r.start > 0 { points.append((r.start - 1, last?.location)) }
            open = r
        }
        if first == nil { first = r }
        last = r
    }

    /// The samples, a gap (SymbolTable.none) answering nil as it does in SymbolTable and the file.
    func samples() -> [(address: UInt64, expected: UInt32?)] {
        var out = points
        out.append((0, first.map { $0.start == 0 ? $0.location : nil } ?? nil))
        out.append((.max, last?.location))
        return out.map { ($0.address, $0.expected == SymbolTable.none ? nil : $0.expected) }
    }
}

extension BuildFile {
    /// Checks a freshly written file against the table it came from (sorted ranges; for
    /// unsorted input SymbolTable gives no defined answer).
    package static func checkRanges(of table: SymbolTable, at path: String) throws {
        let ranges = table.ranges
        guard !ranges.isEmpty, zip(ranges, ranges.dropFirst()).allSatisfy({ $0.start <= $1.start }) else { return }
        var sampler = RangeSampler()
        var index = 0
        for (i, r) in ranges.enumerated() where i + 1 == ranges.count || ranges[i + 1].start != r.start {
            sampler.add(r, index: index)
            index += 1
        }
        try check(sampler.samples(), at: path)
    }

    /// Looks `samples` up in the build file at `path`: each must find the expected location.
    package static func check(_ samples: [(address: UInt64, expected: UInt32?)], at path: String) throws {
        // Not mapped: the check runs while the import may still hold a large table in memory.
        let reader = try BuildFileSource.Reader(path: path, mapped: false)
        for (address, expected) in samples {
            let storedOrGap = try reader.rangeLocation(containing: address)
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
