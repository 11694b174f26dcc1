// A build file's checksum, recorded when it is published, against damage SQLite cannot see: a
// single flipped bit anywhere in the file is found by `verify`; a flipped digit in a function name
// (which SQLite reads without complaint, and which changes the printed name) makes a server's
// store refuse the file instead of answering with the wrong name; a bucket replica refuses to
// cache a damaged object; catalogs and entries written before checksums existed still read, and
// those whose builds carry the SHA-256 an earlier release recorded are checked by it.

import Foundation
import ObjectStorage
import SymbolicateModel
import TestSupport
import Testing

@testable import BuildFiles
@testable import Store

@Suite struct BuildChecksumTests {
    static func flip(_ path: String, byte offset: Int, bit: Int) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        var byte = try #require(try handle.read(upToCount: 1)).first ?? 0
        byte ^= UInt8(1 << bit)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte])
    }

    /// The offset of the first occurrence of `text` in the file at `path`.
    static func offset(of text: String, in path: String) throws -> Int {
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let needle = Data(text.utf8)
        return try #require(bytes.range(of: needle)).lowerBound
    }

    @Test func publicationRecordsTheFilesChecksum() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(40)), functionCount: 50, seed: 40)
        try store.importTable(table, source: "/gone/HandMade")
        let row = try #require(try store.list().first)
        guard case .crc32(let crc)? = row.checksum else {
            Issue.record("no CRC-32 recorded: \(String(describing: row.checksum))")
            return
        }
        // GNU gzip, not zlib, says what the file's CRC-32 is: a gzip stream ends with the CRC-32
        // of its data and the data's size, little-endian (RFC 1952 2.3.1).
        let gzip = try ProcessRunner.run("gzip", ["-1", "-c", store.absolutePath(row.file)])
        #expect(gzip.status == 0)
        let trailer = Array(gzip.stdout.suffix(8))
        #expect(trailer.count == 8)
        let gzipCRC = trailer.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(crc == gzipCRC)
        #expect(row.checksum?.recorded == "crc32:" + String(format: "%08x", gzipCRC))
        // In the catalog: the `checksum` column, not the `sha256` one releases before read.
        let catalog = try Database(path: store.directory + "/catalog.sqlite", mode: .readOnly)
        let columns = try catalog.prepare("SELECT checksum, sha256 FROM builds")
        #expect(try columns.step())
        #expect(columns.text(0) == row.checksum?.recorded && columns.isNull(1))
    }

    /// A build published by a release that recorded the file's SHA-256 (in the `sha256` column)
    /// is checked by it: whole it verifies, one bit changed it is damaged, named by its SHA-256;
    /// its row keeps the SHA-256 in that column when it is written again.
    @Test func aBuildPublishedWithItsSHA256IsCheckedByIt() throws {
        let directory = try StoreFixtures.scratchFolder()
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(46)), functionCount: 60, seed: 46)
        try SymbolStore(directory: directory).importTable(table, source: "/gone/HandMade")
        let file = try #require(try SymbolStore(directory: directory).list().first).file
        let sum = try ProcessRunner.run("sha256sum", [directory + "/" + file])
        let digest = String(String(decoding: sum.stdout, as: UTF8.self).prefix(64))
        try Database(path: directory + "/catalog.sqlite", mode: .readWrite).exec(
            "UPDATE builds SET checksum = NULL, sha256 = '\(digest.uppercased())'")

        let store = try SymbolStore(directory: directory)
        let row = try #require(try store.list().first)
        #expect(row.checksum == .sha256(digest))
        #expect(try store.verify().isHealthy)
        let catalog = try Catalog(path: directory + "/catalog.sqlite")
        try catalog.database.writeTransaction { try catalog.put(row) }
        let columns = try Database(path: directory + "/catalog.sqlite", mode: .readOnly).prepare(
            "SELECT checksum, sha256 FROM builds")
        #expect(try columns.step())
        #expect(columns.isNull(0) && columns.text(1) == digest)

        try Self.flip(store.absolutePath(row.file), byte: Int(row.byteSize) / 2, bit: 3)
        let problem = try #require(try store.verify().problems.first)
        #expect(problem.kind == .damaged && problem.message.contains("SHA-256"), "\(problem.message)")
        #expect(problem.message.contains(digest), "\(problem.message)")
    }

    /// A bucket entry carries a CRC-32 in `checksum` and a SHA-256 (an earlier release's) in
    /// `sha256`; either reads back as it was, and a value of neither form is no checksum.
    @Test func bucketEntriesCarryEitherChecksum() throws {
        var row = StoredBuild(
            build: StoreFixtures.info(StoreFixtures.uuid(47)), importedAt: Date(timeIntervalSince1970: 1),
            lastUsedAt: nil, byteSize: 10, status: .ready, schemaVersion: Int(BuildFile.schemaVersion),
            file: "builds/x.sqlite", checksum: .crc32(0x0012_abcd))
        let crcEntry = String(decoding: BuildMetadata(row).encoded, as: UTF8.self)
        #expect(crcEntry.contains("\"checksum\":\"crc32:0012abcd\"") && !crcEntry.contains("sha256"), "\(crcEntry)")
        #expect(BuildMetadata(row).row(lastUsedAt: nil)?.checksum == .crc32(0x0012_abcd))
        let digest = String(repeating: "ab", count: 32)
        row.checksum = .sha256(digest)
        let shaEntry = String(decoding: BuildMetadata(row).encoded, as: UTF8.self)
        #expect(shaEntry.contains("\"sha256\":\"\(digest)\"") && !shaEntry.contains("checksum"), "\(shaEntry)")
        #expect(BuildMetadata(row).row(lastUsedAt: nil)?.checksum == .sha256(digest))
        for odd in ["crc32:12", "crc32:0012abcg", "md5:0012abcd", ""] {
            var entry = BuildMetadata(row)
            entry.sha256 = nil
            entry.checksum = odd
            #expect(entry.row(lastUsedAt: nil)?.checksum == nil, "\(odd)")
        }
    }

    /// Sixty single-bit flips spread over the whole file, each on its own: every one is a problem
    /// for `verify` (without --deep), and the file restored is healthy again.
    @Test func verifyFindsEverySingleBitFlip() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(41)), functionCount: 400, seed: 41)
        try store.importTable(table, source: "/gone/HandMade")
        let row = try #require(try store.list().first)
        let path = store.absolutePath(row.file)
        let size = Int(row.byteSize)
        var rng = SplitMix64(seed: 41)
        var unseen: [Int] = []
        for n in 0..<60 {
            // One flip in each sixtieth of the file, at a random byte and bit of it.
            let offset = n * size / 60 + rng.below(size / 60)
            let bit = rng.below(8)
            try Self.flip(path, byte: offset, bit: bit)
            let report = try store.verify()
            if !report.problems.contains(where: { $0.uuid == row.uuid && ($0.kind == .damaged || $0.kind == .outdated) }
            ) {
                unseen.append(offset)
            }
            try Self.flip(path, byte: offset, bit: bit)
        }
        #expect(unseen.isEmpty, "flips verify did not see, at byte offsets \(unseen) of \(size)")
        #expect(try store.verify().isHealthy)
        #expect(try store.list().first?.status == .ready)
    }

    /// A digit of a function name flipped: SQLite reads the file without complaint and the lookup
    /// answers another name. A server's store (which checks files when it opens them) refuses it,
    /// naming the damage; `verify` names it too.
    @Test func aServersStoreRefusesADamagedFileInsteadOfAnsweringAWrongName() throws {
        let directory = try StoreFixtures.scratchFolder()
        let store = try SymbolStore(directory: directory)
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(42)), functionCount: 30, seed: 42)
        try store.importTable(table, source: "/gone/HandMade")
        let row = try #require(try store.list().first)
        let path = store.absolutePath(row.file)
        // The name answered at a function's entry, one digit of it changed in the file: "…F25" → "…F24".
        let entry = table.functions[25].entry
        let right = try #require(try store.source(for: row.uuid, arch: .arm64)?.lookup(entry)?.first?.function)
        #expect(right == "$s8HandMade4funcyyF25")
        try Self.flip(path, byte: try Self.offset(of: right, in: path) + right.utf8.count - 1, bit: 0)

        let unchecked = try #require(try SymbolStore(directory: directory).source(for: row.uuid, arch: .arm64))
        let wrong = try #require(try unchecked.lookup(entry)).first?.function
        #expect(wrong == "$s8HandMade4funcyyF24", "the damage this test is about: a wrong name, no error")

        let server = try SymbolStore(directory: directory)
        server.checkBuildFilesWhenOpening()
        let error = try #require(throws: SymbolicateError.self) { try server.source(for: row.uuid, arch: .arm64) }
        #expect(error.message.contains("damaged") && error.message.contains("CRC-32"), "\(error.message)")
        #expect(error.message.contains(row.uuid.uuidString))
        let problem = try #require(try store.verify().problems.first)
        #expect(problem.kind == .damaged && problem.message.contains("CRC-32"), "\(problem.message)")
    }

    /// A catalog written before checksums were recorded: a writer adds the column, its rows have
    /// none and verify as before; a read-only reader reads it as it is.
    @Test func aCatalogWithoutChecksumsStillReads() throws {
        let directory = try StoreFixtures.scratchFolder()
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(43)), functionCount: 20, seed: 43)
        try SymbolStore(directory: directory).importTable(table, source: "/gone/HandMade")
        try Database(path: directory + "/catalog.sqlite", mode: .readWrite).exec(
            "ALTER TABLE builds DROP COLUMN sha256; ALTER TABLE builds DROP COLUMN checksum")

        let old = try Catalog(readingOnly: directory + "/catalog.sqlite")
        let read = try #require(try old.all().first)
        #expect(read.uuid == table.build.uuid && read.checksum == nil)

        let store = try SymbolStore(directory: directory)
        #expect(try store.list().first?.checksum == nil)
        #expect(try store.verify().isHealthy)
        StoreFixtures.expectSameLookups(try #require(try store.source(for: table.build.uuid, arch: nil)), table)
        // A build imported now gets its checksum in the column added.
        let next = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(44)), functionCount: 20, seed: 44)
        try store.importTable(next, source: "/gone/Next")
        #expect(try store.list().first { $0.uuid == next.build.uuid }?.checksum != nil)
    }
}

@Suite(.needsMoto)
struct BucketChecksumTests {
    /// An object damaged in the bucket (same size, one bit changed): a replica with an empty cache
    /// refuses it with the cause and keeps no copy; verify names it.
    @Test func aReplicaRefusesADamagedObject() throws {
        let (client, bucket) = try MotoStandIn.freshBucket()
        let location = try S3Location(bucket: bucket, prefix: "symbols")
        let store = try BucketStore(
            location: location, client: client, cacheDirectory: try StoreFixtures.scratchFolder("writer"),
            cacheBytes: 1 << 30)
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(45)), functionCount: 30, seed: 45)
        try store.importTable(table, source: "/gone/HandMade")
        let row = try #require(try store.list().first)
        #expect(row.checksum != nil)

        let key = location.key(row.file)
        var bytes = try client.getObject(bucket: bucket, key: key).body
        let name = Array("$s8HandMade4funcyyF25".utf8)
        let at = try #require(
            (0...(bytes.count - name.count)).first { bytes[$0..<($0 + name.count)].elementsEqual(name) })
        bytes[at + name.count - 1] ^= 1
        try client.putObject(bucket: bucket, key: key, bytes: bytes, contentType: "application/vnd.sqlite3")

        let cache = try StoreFixtures.scratchFolder("replica")
        let replica = try BucketStore(location: location, client: client, cacheDirectory: cache, cacheBytes: 1 << 30)
        let error = try #require(throws: SymbolicateError.self) { try replica.source(for: row.uuid, arch: .arm64) }
        #expect(error.message.contains("damaged") && error.message.contains("CRC-32"), "\(error.message)")
        let kept = FileManager.default.enumerator(atPath: cache)?.allObjects.compactMap { $0 as? String } ?? []
        #expect(!kept.contains { $0.hasSuffix(".sqlite") }, "\(kept)")
        let problem = try #require(try replica.verify().problems.first)
        #expect(problem.kind == .damaged && problem.message.contains("CRC-32"), "\(problem.message)")
    }
}
