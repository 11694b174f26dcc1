// gc on a bucket store against imports on other machines, which no lock keeps apart: an import
// that publishes a build again after gc read its entry keeps it (gc's delete of the entry is
// conditional on the version it read, and each publication writes a build file of its own, so
// gc's later deletes never reach the new file); a publication removes the file it replaced; gc
// removes objects no entry names once they are older than the grace period; and a reader whose
// entry named a file that is gone reads the entry again.

import Foundation
import ObjectStorage
import SymbolicateModel
import TestSupport
import Testing

@testable import BuildFiles
@testable import Store

@Suite(.needsMoto)
struct BucketGCTests {
    let client: S3Client
    let bucket: String
    let location: S3Location
    /// gc's grace period is over at once: every build is old enough to collect, and an import
    /// never counts a build as present, so it publishes it again.
    let noGrace: BucketStore

    init() throws {
        (client, bucket) = try MotoStandIn.freshBucket()
        location = try S3Location(bucket: bucket, prefix: "gc")
        noGrace = try BucketStore(
            location: location, client: client, cacheDirectory: try StoreFixtures.scratchFolder("gc-cache"),
            cacheBytes: 1 << 30, gracePeriod: 0)
    }

    func replica(_ name: String = #function) throws -> BucketStore {
        try BucketStore(
            location: location, client: client, cacheDirectory: try StoreFixtures.scratchFolder(name),
            cacheBytes: 1 << 30)
    }

    func buildObjects() throws -> [String] {
        try client.listAllObjects(bucket: bucket, prefix: location.key("builds/")).objects.compactMap {
            location.relativeKey($0.key)
        }.sorted()
    }

    static func table(_ n: UInt8) -> SymbolTable {
        StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(n)), functionCount: 60, seed: UInt64(n))
    }

    /// gc read the entry; an import then published the build again; gc's removal of what it read
    /// must not remove what the import wrote.
    @Test func aBuildPublishedAgainAfterGCReadItIsKept() throws {
        let table = Self.table(70)
        let id = table.build.uuid
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        let read = try noGrace.entry(uuid: id, arch: .arm64)
        let old = try #require(read.row)
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        #expect(try noGrace.delete(old, ifEntryIs: read.etag) == false)
        #expect(try noGrace.builds(matching: id).count == 1)
        StoreFixtures.expectSameLookups(try #require(try replica().source(for: id, arch: .arm64)), table)
    }

    /// gc removed the entry; an import published the build before gc's remaining deletes (use
    /// marker, name index, file) went out. The import's file is its own and survives them.
    @Test func aBuildPublishedBetweenGCsDeletesKeepsItsFile() throws {
        let table = Self.table(71)
        let id = table.build.uuid
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        let read = try noGrace.entry(uuid: id, arch: .arm64)
        let old = try #require(read.row)
        #expect(try noGrace.deleteEntry(old, ifEntryIs: read.etag))
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        try noGrace.deleteObjects(of: old)
        let current = try #require(try noGrace.row(uuid: id, arch: .arm64))
        #expect(current.file != old.file)
        StoreFixtures.expectSameLookups(try #require(try replica().source(for: id, arch: .arm64)), table)
    }

    /// Publishing a build again writes a new file and removes the one it replaced.
    @Test func aPublicationRemovesTheFileItReplaced() throws {
        let table = Self.table(72)
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        let first = try buildObjects()
        #expect(first.count == 1)
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        let second = try buildObjects()
        #expect(second.count == 1)
        #expect(second != first)
        #expect(try noGrace.row(uuid: table.build.uuid, arch: .arm64)?.file == second.first)
        #expect(try noGrace.verify(deep: false).isHealthy)
    }

    /// Objects under `builds/` that no entry names (an import killed between its two PUTs, a
    /// removal that stopped half-way) go once they are older than the grace period; the files
    /// entries name stay.
    @Test func gcRemovesObjectsNoEntryNames() throws {
        let table = Self.table(73)
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        let kept = try buildObjects()
        let stray = "builds/v\(BuildFile.schemaVersion)/\(table.build.uuid.uuidString)-arm64.0123456789abcdef.sqlite"
        try client.putObject(bucket: bucket, key: location.key(stray), bytes: [1, 2, 3])
        try client.putObject(bucket: bucket, key: location.key("builds/v1/old.sqlite"), bytes: [4])
        // Inside the grace period (a day by default) a stray object may be an import in flight: kept.
        #expect(try replica().garbageCollect(olderThanDays: 3650, dryRun: false).isEmpty)
        #expect(try buildObjects().count == 3)
        // Past it, the objects no entry names go; the build (younger than --older-than) stays.
        #expect(try noGrace.garbageCollect(olderThanDays: 3650, dryRun: false).isEmpty)
        #expect(try buildObjects() == kept)
        StoreFixtures.expectSameLookups(
            try #require(try replica("after").source(for: table.build.uuid, arch: .arm64)), table)
    }

    /// A reader holding an entry whose file has been replaced and removed reads the entry again
    /// and opens the file it names now.
    @Test func aReaderWithAReplacedEntryFindsTheNewFile() throws {
        let table = Self.table(74)
        let id = table.build.uuid
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        let stale = try #require(try noGrace.row(uuid: id, arch: .arm64))
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        let reader = try replica()
        StoreFixtures.expectSameLookups(try reader.openSource(stale), table)
    }

    /// A tampered entry cannot aim `remove` or a lookup at another key: only
    /// `builds/v<schema>/<UUID>-<arch>[.<16 hex digits>].sqlite` of its own UUID and arch is taken.
    @Test(arguments: [
        "catalog/other.json", "builds/v3/00000000-0000-0000-0000-000000000000-arm64.sqlite",
        "builds/vX/../../x.sqlite", "builds/v3/ID-arm64.0123456789ABCDEF.sqlite", "builds/v3/ID-arm64.abc.sqlite",
        "builds/v3/ID-arm64.0123456789abcdef/.sqlite",
    ])
    func anEntryNamesOnlyAFileOfItsOwnBuild(_ file: String) throws {
        let id = StoreFixtures.uuid(75)
        var row = StoredBuild(
            uuid: id, arch: .arm64, name: "HandMade", kind: .debugInfo, textVMAddress: 0, textSize: 0x1000,
            sourcePath: "/in/a", importedAt: Date(), lastUsedAt: nil, byteSize: 1, status: .ready, schemaVersion: 3,
            file: "")
        row.file = file.replacingOccurrences(of: "ID", with: id.uuidString)
        let read = try #require(BuildMetadata(row).row(lastUsedAt: nil))
        #expect(read.file == "builds/v3/\(id.uuidString)-arm64.sqlite")
        row.file = "builds/v3/\(id.uuidString)-arm64.0123456789abcdef.sqlite"
        #expect(BuildMetadata(row).row(lastUsedAt: nil)?.file == row.file)
    }

    /// An entry write whose first attempt landed but whose answer was lost is retried, and the
    /// retry finds the entry there (412): the entry it finds names this publication's file, so
    /// the write is done, and the file stays.
    @Test func aConditionalEntryWriteThatLandedBeforeItsRetryIsDone() throws {
        let table = StoreFixtures.table(
            StoreFixtures.info(StoreFixtures.uuid(76), kind: .symbolTable), functionCount: 40, seed: 76,
            symbolsOnly: true)
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        let row = try #require(try noGrace.row(uuid: table.build.uuid, arch: .arm64))
        // The "lost answer": the entry is already this publication's when the write is sent again.
        for condition: BucketStore.EntryCondition in [.createOnly, .ifMatch("0123456789abcdef0123456789abcdef")] {
            #expect(try noGrace.writeEntry(row, condition) == .written)
            #expect(try noGrace.row(uuid: table.build.uuid, arch: .arm64)?.file == row.file)
            #expect(try client.headObject(bucket: bucket, key: location.key(row.file)) != nil)
        }
        // An entry that names another publication's file is another import's: this one lost.
        var other = row
        other.file = BucketStore.buildKey(uuid: row.uuid, arch: row.arch, publication: BucketStore.newPublication())
        #expect(try noGrace.writeEntry(other, .createOnly) == .lost)
        #expect(try noGrace.row(uuid: table.build.uuid, arch: .arm64)?.file == row.file)
    }

    /// A publication that replaces an entry from before publications had names leaves that
    /// entry's file (`<UUID>-<arch>.sqlite`, which replicas not yet upgraded read and write) to
    /// gc, past the grace period.
    @Test func aFileOfTheOldLayoutIsLeftToGC() throws {
        let table = Self.table(77)
        let id = table.build.uuid
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        var row = try #require(try noGrace.row(uuid: id, arch: .arm64))
        let old = BucketStore.buildKey(uuid: id, arch: .arm64)
        let bytes = try client.getObject(bucket: bucket, key: location.key(row.file)).body
        try client.putObject(bucket: bucket, key: location.key(old), bytes: bytes)
        row.file = old
        try client.putObject(
            bucket: bucket, key: location.key(BucketStore.metadataKey(uuid: id, arch: .arm64)),
            bytes: BuildMetadata(row).encoded)
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        #expect(try buildObjects().contains(old))
        StoreFixtures.expectSameLookups(try #require(try replica().source(for: id, arch: .arm64)), table)
    }

    /// A catalog entry is read only under its own key: one that claims another build's UUID (a
    /// tampered or misplaced object) is damaged, and neither `remove` nor a lookup of either
    /// build follows it: a lookup of the build its key names fails with the damage (the store
    /// has an entry for it that cannot be read), it does not answer "absent".
    @Test func anEntryUnderAnotherBuildsKeyIsDamaged() throws {
        let a = Self.table(78)
        let b = Self.table(79)
        #expect(try noGrace.importTable(b, source: "/in/b") == .imported)
        let rowB = try #require(try noGrace.row(uuid: b.build.uuid, arch: .arm64))
        try client.putObject(
            bucket: bucket, key: location.key(BucketStore.metadataKey(uuid: a.build.uuid, arch: .arm64)),
            bytes: BuildMetadata(rowB).encoded)
        #expect {
            _ = try noGrace.source(for: a.build.uuid, arch: .arm64)
        } throws: { error in
            "\(error)".contains("not the one its key names")
        }
        #expect(try noGrace.remove([a.build.uuid]).isEmpty)
        #expect(try noGrace.verify(deep: false).problems.map(\.kind) == [.damaged])
        StoreFixtures.expectSameLookups(try #require(try replica().source(for: b.build.uuid, arch: .arm64)), b)
    }

    /// Use markers and name index entries whose build has no entry (a removal stopped half-way)
    /// go with gc once past the grace period; those of builds that have one stay.
    @Test func gcRemovesMarkersNoEntryOwns() throws {
        let table = Self.table(80)
        #expect(try noGrace.importTable(table, source: "/in/a") == .imported)
        _ = noGrace.touch(uuid: table.build.uuid, arch: .arm64)
        let ghost = StoreFixtures.uuid(81)
        _ = noGrace.touch(uuid: ghost, arch: .arm64)
        try client.putObject(
            bucket: bucket, key: location.key(BucketStore.nameKey("Ghost", uuid: ghost, arch: .arm64)), bytes: [])
        #expect(try noGrace.garbageCollect(olderThanDays: 3650, dryRun: false).isEmpty)
        let left = try client.listAllObjects(bucket: bucket, prefix: location.key("")).objects.compactMap {
            location.relativeKey($0.key)
        }
        #expect(!left.contains { $0.contains(ghost.uuidString) }, "\(left)")
        #expect(left.contains(BucketStore.useKey(uuid: table.build.uuid, arch: .arm64)))
        #expect(left.contains(BucketStore.nameKey("HandMade", uuid: table.build.uuid, arch: .arm64)))
    }
}
