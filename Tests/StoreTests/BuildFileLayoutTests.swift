// The packed layout of build files (schema version 4): locations as fixed 16-byte records, 252
// to a row, ranges as 8-byte records, in 64 KB pages; a file of the previous layout is refused by its version, never
// read as this one; a damaged block of locations is refused when the tables load and ends the
// chain of an in-place lookup, never a trap.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import BuildFiles
@testable import Store

@Suite struct BuildFileLayoutTests {
    private func written(_ table: SymbolTable) throws -> String {
        let path = try StoreFixtures.scratchFolder() + "/build.sqlite"
        try BuildFile.write(table, to: path)
        return path
    }

    private func integer(_ path: String, _ sql: String) throws -> Int64 {
        let statement = try Database(path: path, mode: .readOnly).prepare(sql)
        guard try statement.step() else { return -1 }
        return statement.int64(0)
    }

    @Test func locationsAndRangesArePackedRecords() throws {
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(40)), functionCount: 700, seed: 40)
        let path = try written(table)
        let locations = Int64(table.locations.count)
        #expect(try integer(path, "SELECT sum(length(records)) FROM locations") == 16 * locations)
        let perBlock = Int64(BuildFile.locationsPerBlock)
        #expect(try integer(path, "SELECT count(*) FROM locations") == (locations + perBlock - 1) / perBlock)
        #expect(try integer(path, "PRAGMA page_size") == 65536)
        let distinctStarts = Int64(Set(table.ranges.map(\.start)).count)
        #expect(try integer(path, "SELECT sum(length(block)) FROM ranges") == 8 * distinctStarts)
        StoreFixtures.expectSameLookups(try BuildFileSource(path: path, loadAfter: .max), table)
    }

    /// A reader keeps the blocks of ranges it read last and answers from them where a block
    /// alone decides: lookups in shuffled order, over more blocks than it keeps, at every range
    /// start, the byte before it and between two starts, answer as the table does.
    @Test func rangeBlocksReadBeforeAnswerAsTheQueryDoes() throws {
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(42)), functionCount: 3000, seed: 42)
        #expect(table.ranges.count > 2 * BuildFileSource.Reader.rangeBlockLimit * BuildFile.rangesPerBlock)
        let source = try BuildFileSource(path: try written(table), loadAfter: .max)
        var addresses = StoreFixtures.probeAddresses(table, extra: 2000)
        var random = SplitMix64(seed: 42)
        for round in 0..<2 {
            // Shuffled, then in runs of neighbours (a report's frames cluster in a few blocks).
            for i in addresses.indices.reversed() where i > 0 {
                addresses.swapAt(i, Int(random.next() % UInt64(i + 1)))
            }
            if round == 1 { addresses.sort { $0 / 4096 < $1 / 4096 } }
            var differ = 0
            for address in addresses where StoreFixtures.answer(source, address) != table.lookup(address) {
                differ += 1
            }
            #expect(differ == 0, "round \(round): \(differ) of \(addresses.count) lookups differ")
        }
    }

    @Test func aFileOfTheRowPerLocationLayoutIsRefusedByItsVersion() throws {
        let path = try StoreFixtures.scratchFolder() + "/v3.sqlite"
        let db = try Database(path: path, mode: .readWrite)
        try db.exec(
            """
            CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
            CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE functions(id INTEGER PRIMARY KEY, name TEXT NOT NULL, entry INTEGER NOT NULL);
            CREATE TABLE locations(
                id INTEGER PRIMARY KEY, function INTEGER NOT NULL, file INTEGER NOT NULL,
                line INTEGER NOT NULL, parent INTEGER NOT NULL);
            CREATE TABLE ranges(start INTEGER PRIMARY KEY, block BLOB NOT NULL);
            INSERT INTO meta VALUES ('uuid', '\(StoreFixtures.uuid(41).uuidString)'), ('arch', 'arm64'),
                ('kind', 'dwarf'), ('files', 0), ('functions', 1), ('locations', 1), ('ranges', 1);
            INSERT INTO functions VALUES (0, 'f', 4096);
            INSERT INTO locations VALUES (0, 0, 0, 1, 4294967295);
            PRAGMA user_version=3; PRAGMA application_id=\(BuildFile.applicationID);
            """)
        let mismatch = try #require(throws: BuildFile.VersionMismatch.self) { try BuildFileSource(path: path) }
        #expect(mismatch.found == 3 && BuildFile.schemaVersion > 3)
    }

    @Test func aDamagedLocationBlockIsRefusedOrEndsTheChain() throws {
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(42)), functionCount: 200, seed: 42)
        let path = try written(table)
        try Database(path: path, mode: .readWrite)
            .exec("UPDATE locations SET records = substr(records, 1, 20) WHERE block = 0")
        #expect(throws: SymbolicateError.self) { try BuildFileSource(path: path, loadAfter: 0) }
        let inPlace = try BuildFileSource(path: path, loadAfter: .max)
        // Record 0 survives (the first 16 bytes); the rest of block 0 is gone, so a range
        // whose innermost location is one of them has no answer, and every other one is unchanged.
        var gone = 0
        for range in table.ranges {
            guard let index = table.rangeIndex(containing: range.start) else { continue }
            let location = table.ranges[index].location
            let perBlock = UInt32(BuildFile.locationsPerBlock)
            if location >= 1 && location < perBlock {
                gone += 1
                #expect(try inPlace.lookup(range.start) == nil)
            } else if location >= perBlock && location != SymbolTable.none {
                // Its innermost level is intact; levels inlined into block 0's locations are cut.
                let chain = try #require(table.lookup(range.start))
                #expect(try inPlace.lookup(range.start)?.first == chain.first)
            }
        }
        #expect(gone > 0)
    }

    /// The writer asks its owner to start the disk's writing after every 8 MB of records taken
    /// (so the fsync after the commit waits for the last few megabytes), and not before.
    @Test func theWriterAsksForWritebackEveryEightMegabytes() throws {
        let writer = try BuildFileWriter(path: try StoreFixtures.scratchFolder() + "/build.sqlite")
        var asked: [Int] = []
        writer.onWriteback = { [unowned writer] in asked.append(writer.locationCount) }
        let location = SymbolTable.Location(function: 0, file: 0, line: 1, parent: SymbolTable.none)
        let chunk = Array(repeating: location, count: 100_000)
        for _ in 0..<12 { try writer.take(locations: chunk[...]) }
        // 16 bytes a location: 8 MB is 524,288 of them, asked for at the first chunk past it.
        #expect(BuildFileWriter.writebackBytes == 8 << 20)
        #expect(asked == [600_000, 1_200_000])
    }

    /// Files and functions go in 64 rows a statement, row 0 naming its key and the others taking
    /// SQLite's next one: at every count around the batch size the rows are keyed 0..<count, in order.
    @Test(arguments: [0, 1, 2, 63, 64, 65, 128, 129, 200])
    func rowsAreKeyedByTheirNumber(count: Int) throws {
        let db = try Database(path: try StoreFixtures.scratchFolder() + "/rows.sqlite", mode: .readWrite)
        try db.exec("CREATE TABLE functions(id INTEGER PRIMARY KEY, name TEXT NOT NULL, entry INTEGER NOT NULL)")
        try BuildFileWriter.insertRows(db, "functions", columns: ["name", "entry"], count: count) { s, i, p in
            try s.bind(p, "f\(i)")
            try s.bind(p + 1, Int64(i * 16))
        }
        let rows = try db.prepare("SELECT id, name, entry FROM functions ORDER BY id")
        var seen = 0
        while try rows.step() {
            #expect(rows.int64(0) == Int64(seen) && rows.text(1) == "f\(seen)" && rows.int64(2) == Int64(seen * 16))
            seen += 1
        }
        #expect(seen == count)
    }

    /// Ranges handed to the writer in pieces (as an import hands them, batch by batch) make the
    /// same file as the whole table written at once, shared starts resolved the same way (the
    /// last wins), a start 4 GB past its block's first cutting the block; ranges out of order
    /// are refused by name.
    @Test func rangesTakenInPiecesMakeTheSameFile() throws {
        var table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(48)), functionCount: 900, seed: 48)
        // A start shared by two ranges, and a jump of more than 4 GB.
        let far = (table.ranges.last?.start ?? 0) + 0x1_0000_0000
        table.ranges.insert(table.ranges[700], at: 700)
        table.ranges[701].location = table.ranges[690].location
        table.ranges.append(.init(start: far, location: table.ranges[10].location))
        table.ranges.append(.init(start: far + 16, location: SymbolTable.none))
        let folder = try StoreFixtures.scratchFolder()
        try BuildFile.write(table, to: folder + "/whole.sqlite")
        let writer = try BuildFileWriter(path: folder + "/pieces.sqlite")
        try writer.take(locations: table.locations[...])
        var random = SplitMix64(seed: 48)
        var at = 0
        while at < table.ranges.count {
            let n = min(table.ranges.count - at, 1 + random.below(700))
            try writer.take(ranges: table.ranges[at..<(at + n)])
            at += n
        }
        try writer.finish(table)
        let whole = try BuildFileSource(path: folder + "/whole.sqlite", loadAfter: .max)
        let pieces = try BuildFileSource(path: folder + "/pieces.sqlite", loadAfter: .max)
        let probes = StoreFixtures.probeAddresses(table, extra: 500) + [far - 1, far, far + 8, far + 16]
        var differ = 0
        for address in probes where StoreFixtures.answer(pieces, address) != StoreFixtures.answer(whole, address) {
            differ += 1
        }
        #expect(differ == 0)
        #expect(StoreFixtures.answer(pieces, far + 8) == table.lookup(far + 8))

        let backwards = try BuildFileWriter(path: folder + "/backwards.sqlite")
        try backwards.take(ranges: [table.ranges[5]][...])
        let error = #expect(throws: SymbolicateError.self) {
            try backwards.take(ranges: [table.ranges[4]][...])
        }
        #expect(error?.message.contains("out of order") == true)
    }
}
