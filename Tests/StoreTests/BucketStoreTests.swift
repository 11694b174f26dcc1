// The bucket store against moto's S3 stand-in: what goes in comes out with the same lookups as
// the table it was made from; keys carry the schema version and each build has one metadata
// object (no catalog file); debug information supersedes a symbol table in either order, also
// when a symbol-table writer's PUTs land after the debug info's (the race the create-only entry
// closes); remove, gc's grace period, verify on damaged, missing and orphaned objects; sync from a
// folder store, resumed; and the failures that must be named with their bucket and key.

import Foundation
import Import
import ObjectStorage
import SymbolicateModel
import TestSupport
import Testing

@testable import BuildFiles
@testable import Store

@Suite(.needsMoto)
struct BucketStoreTests {
    let client: S3Client
    let bucket: String
    let cache: String
    let store: BucketStore

    init() throws {
        (client, bucket) = try MotoStandIn.freshBucket()
        cache = try StoreFixtures.scratchFolder("bucket-cache")
        store = try BucketStore(
            location: try S3Location(bucket: bucket, prefix: "team/symbols"), client: client, cacheDirectory: cache,
            cacheBytes: 1 << 30)
    }

    /// Another replica over the same bucket, with an empty cache of its own.
    func freshReplica(_ name: String) throws -> BucketStore {
        try BucketStore(
            location: store.location, client: client, cacheDirectory: try StoreFixtures.scratchFolder(name),
            cacheBytes: 1 << 30)
    }

    func keys(_ prefix: String = "") throws -> [String] {
        try client.listAllObjects(bucket: bucket, prefix: prefix).objects.map(\.key)
    }

    @Test func importedBuildsAnswerAsTheirTables() throws {
        let a = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(1)), functionCount: 300, seed: 1)
        let b = StoreFixtures.table(
            StoreFixtures.info(StoreFixtures.uuid(2), arch: .x86_64), functionCount: 200, seed: 2)
        #expect(try store.importTable(a, source: "/in/a") == .imported)
        #expect(try store.importTable(b, source: "/in/b") == .imported)
        #expect(try store.importTable(a, source: "/in/a") == .alreadyPresent)

        let all = try keys()
        let v = BuildFile.schemaVersion
        // `builds/v<schema>/<UUID>-<arch>.<publication: 16 hex digits>.sqlite`
        #expect(
            all.contains {
                $0.hasPrefix("team/symbols/builds/v\(v)/\(StoreFixtures.uuid(1).uuidString)-arm64.")
                    && $0.hasSuffix(".sqlite") && $0.utf8.count == "team/symbols/builds/v\(v)/".utf8.count + 36 + 30
            })
        #expect(all.contains("team/symbols/catalog/\(StoreFixtures.uuid(2).uuidString)-x86_64.json"))
        #expect(!all.contains { $0.hasSuffix("catalog.sqlite") })

        // A second store with an empty cache (another replica) answers the same.
        let replica = try freshReplica("replica")
        let source = try #require(try replica.source(for: StoreFixtures.uuid(1), arch: .arm64))
        StoreFixtures.expectSameLookups(source, a)
        #expect(try replica.source(for: StoreFixtures.uuid(3), arch: .arm64) == nil)
        let listed = try replica.list()
        #expect(listed.map(\.uuid) == [StoreFixtures.uuid(1), StoreFixtures.uuid(2)])
        #expect(listed.allSatisfy { $0.status == .ready && $0.byteSize > 0 })
        #expect(try replica.statistics.builds == 2)
    }

    @Test(arguments: [false, true])
    func debugInfoSupersedesASymbolTableInEitherOrder(_ debugInfoFirst: Bool) throws {
        let id = StoreFixtures.uuid(7)
        let dwarf = StoreFixtures.table(StoreFixtures.info(id, kind: .debugInfo), functionCount: 120, seed: 7)
        let symtab = StoreFixtures.table(
            StoreFixtures.info(id, kind: .symbolTable), functionCount: 120, seed: 7, symbolsOnly: true)
        if debugInfoFirst {
            #expect(try store.importTable(dwarf, source: "/d") == .imported)
            #expect(try store.importTable(symtab, source: "/s") == .alreadyPresent)
        } else {
            #expect(try store.importTable(symtab, source: "/s") == .imported)
            #expect(try store.importTable(dwarf, source: "/d") == .superseded)
        }
        #expect(try store.builds(matching: id).map(\.kind) == [.debugInfo])
        let fresh = try freshReplica("fresh")
        StoreFixtures.expectSameLookups(try #require(try fresh.source(for: id, arch: .arm64)), dwarf)
    }

    /// A replica that cached a symbol table serves the debug info that replaced it in the bucket.
    @Test func aReplicaDropsACachedBuildThatWasSuperseded() throws {
        let id = StoreFixtures.uuid(15)
        let dwarf = StoreFixtures.table(StoreFixtures.info(id, kind: .debugInfo), functionCount: 80, seed: 15)
        let symtab = StoreFixtures.table(
            StoreFixtures.info(id, kind: .symbolTable), functionCount: 80, seed: 15, symbolsOnly: true)
        try store.importTable(symtab, source: "/s")
        let replica = try freshReplica("stale")
        StoreFixtures.expectSameLookups(try #require(try replica.source(for: id, arch: .arm64)), symtab)
        #expect(try store.importTable(dwarf, source: "/d") == .superseded)
        StoreFixtures.expectSameLookups(try #require(try replica.source(for: id, arch: .arm64)), dwarf)
    }

    /// A symbol-table writer that read "nothing there" before a debug-info writer published, and
    /// whose PUTs arrive afterwards, must change neither the file nor the entry.
    @Test func aLateSymbolTableWriterLosesTheRace() throws {
        let id = StoreFixtures.uuid(8)
        let dwarf = StoreFixtures.table(StoreFixtures.info(id, kind: .debugInfo), functionCount: 90, seed: 8)
        let symtab = StoreFixtures.table(
            StoreFixtures.info(id, kind: .symbolTable), functionCount: 90, seed: 8, symbolsOnly: true)
        // Stage the symbol table's file as its import would, before the debug info lands.
        let staging = try SymbolStore(directory: try StoreFixtures.scratchFolder("late-staging"))
        try staging.importTable(symtab, source: "/s")
        let staged = try #require(try staging.list().first)
        #expect(try store.importTable(dwarf, source: "/d") == .imported)
        // The late writer's PUTs, exactly as `publish` sends them when it saw no entry: its file
        // under a publication of its own (which replaces nothing), then its entry, create-only.
        let publication = BucketStore.buildKey(uuid: id, arch: .arm64, publication: BucketStore.newPublication())
        try client.uploadObject(
            bucket: bucket, key: store.location.key(publication), fromFile: staging.absolutePath(staged.file),
            createOnly: false)
        var entry = staged
        entry.file = publication
        #expect(throws: ObjectStorageError.self) {
            try client.putObject(
                bucket: bucket, key: store.location.key(BucketStore.metadataKey(uuid: id, arch: .arm64)),
                bytes: BuildMetadata(entry).encoded, createOnly: true)
        }
        #expect(try store.builds(matching: id).map(\.kind) == [.debugInfo])
        let fresh = try freshReplica("late")
        StoreFixtures.expectSameLookups(try #require(try fresh.source(for: id, arch: .arm64)), dwarf)
        // And through publish itself: the staged symbol table is reported present, nothing changes.
        #expect(try store.publish(staged, file: staging.absolutePath(staged.file)) == .alreadyPresent)
        #expect(try store.builds(matching: id).map(\.kind) == [.debugInfo])
    }

    /// Two stores (two replicas) importing one build at once, debug info on one side and its
    /// symbol table on the other, end with the debug info however their requests interleave.
    @Test func concurrentWritersEndWithTheDebugInfo() throws {
        for round in 0..<6 {
            let id = StoreFixtures.uuid(UInt8(40 + round))
            let dwarf = StoreFixtures.table(
                StoreFixtures.info(id, kind: .debugInfo), functionCount: 60, seed: UInt64(round))
            let symtab = StoreFixtures.table(
                StoreFixtures.info(id, kind: .symbolTable), functionCount: 60, seed: UInt64(round), symbolsOnly: true)
            let other = try freshReplica("writer")
            let failures = Locked([String]())
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                do {
                    if side == round % 2 {
                        try store.importTable(dwarf, source: "/d")
                    } else {
                        try other.importTable(symtab, source: "/s")
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            #expect(try store.builds(matching: id).map(\.kind) == [.debugInfo])
            let reader = try freshReplica("reader")
            StoreFixtures.expectSameLookups(try #require(try reader.source(for: id, arch: .arm64)), dwarf)
        }
    }

    @Test func otherBuildsOfANameComeFromTheNameIndex() throws {
        let (a, b, c) = (StoreFixtures.uuid(30), StoreFixtures.uuid(31), StoreFixtures.uuid(32))
        try store.importTable(StoreFixtures.table(StoreFixtures.info(a), functionCount: 20, seed: 30), source: "/a")
        try store.importTable(StoreFixtures.table(StoreFixtures.info(b), functionCount: 20, seed: 31), source: "/b")
        try store.importTable(
            StoreFixtures.table(StoreFixtures.info(c, name: "Other"), functionCount: 20, seed: 32), source: "/c")
        #expect(try store.builds(named: "handmade", otherThan: a).map(\.uuid) == [b])
        #expect(try store.builds(named: "Other", otherThan: a).map(\.uuid) == [c])
        #expect(try store.builds(named: "Missing", otherThan: a).isEmpty)
        _ = try store.remove([b])
        #expect(try store.builds(named: "HandMade", otherThan: a).isEmpty)
        #expect(try keys(store.location.key("names/handmade/")).count == 1)
    }

    @Test func removeDeletesEntryUseMarkAndFile() throws {
        let id = StoreFixtures.uuid(9)
        try store.importTable(StoreFixtures.table(StoreFixtures.info(id), functionCount: 50, seed: 9), source: "/x")
        _ = try store.source(for: id, arch: .arm64)
        #expect(try keys().contains { $0.contains("/names/handmade/") })
        #expect(try store.remove([id]).count == 1)
        #expect(try keys().isEmpty)
        #expect(try store.source(for: id, arch: .arm64) == nil)
        #expect(try store.remove([id]).isEmpty)
    }

    @Test func gcKeepsWhatIsInsideTheGracePeriod() throws {
        let id = StoreFixtures.uuid(10)
        try store.importTable(StoreFixtures.table(StoreFixtures.info(id), functionCount: 40, seed: 10), source: "/x")
        // --older-than 0 on a bucket still keeps a build imported a moment ago.
        #expect(try store.garbageCollect(olderThanDays: 0, dryRun: false).isEmpty)
        #expect(try store.list().count == 1)
        // A store whose grace period has passed removes it, entry, use mark and file.
        let noGrace = try BucketStore(
            location: store.location, client: client, cacheDirectory: cache, cacheBytes: 1 << 30, gracePeriod: 0)
        #expect(try noGrace.garbageCollect(olderThanDays: 0, dryRun: true).count == 1)
        #expect(try noGrace.list().count == 1)
        #expect(try noGrace.garbageCollect(olderThanDays: 0, dryRun: false).map(\.uuid) == [id])
        #expect(try keys().isEmpty)
    }

    @Test func verifyNamesDamagedMissingAndOrphanedObjects() throws {
        let ids = [StoreFixtures.uuid(11), StoreFixtures.uuid(12), StoreFixtures.uuid(13)]
        for (n, id) in ids.enumerated() {
            try store.importTable(
                StoreFixtures.table(StoreFixtures.info(id), functionCount: 30, seed: UInt64(n)), source: "/x")
        }
        #expect(try store.verify(deep: false).isHealthy)
        let key = { (id: BuildID) in
            try self.store.location.key(#require(try self.store.row(uuid: id, arch: .arm64)).file)
        }
        // 11: the object replaced by garbage of the same size; 12: the object gone; an orphan object.
        let size = try #require(try client.headObject(bucket: bucket, key: key(ids[0]))).size
        try client.putObject(bucket: bucket, key: key(ids[0]), bytes: [UInt8](repeating: 0x41, count: Int(size)))
        try client.deleteObject(bucket: bucket, key: key(ids[1]))
        try client.putObject(
            bucket: bucket, key: store.location.key("builds/v\(BuildFile.schemaVersion)/stray.sqlite"),
            bytes: [1, 2, 3])
        try client.putObject(bucket: bucket, key: store.location.key("catalog/junk.json"), bytes: Array("{".utf8))

        let other = try freshReplica("verify")
        let report = try other.verify(deep: false)
        let kinds = Dictionary(grouping: report.problems, by: \.kind).mapValues(\.count)
        #expect(kinds[.damaged] == 2, "\(report.problems)")  // the garbage object and the junk entry
        #expect(kinds[.missingFile] == 1)
        #expect(kinds[.orphanFile] == 1)
        #expect(
            report.problems.contains {
                $0.kind == .damaged && $0.uuid == ids[0] && $0.message.contains("s3://\(bucket)/team/symbols/builds/")
            })
        // A lookup of the damaged build fails for that build only, naming the object.
        #expect {
            _ = try other.source(for: ids[0], arch: .arm64)
        } throws: { error in
            (error as? SymbolicateError)?.message.contains(
                "s3://\(bucket)/team/symbols/builds/v\(BuildFile.schemaVersion)/") == true
        }
        #expect(try other.source(for: ids[2], arch: .arm64) != nil)
    }

    @Test func verifyReadsACachedCopyAgain() throws {
        let id = StoreFixtures.uuid(15)
        try store.importTable(StoreFixtures.table(StoreFixtures.info(id), functionCount: 30, seed: 15), source: "/x")
        let other = try freshReplica("verify-cached")
        // The first verify fetches the object (checked as it comes in) and finds it whole.
        #expect(try other.verify(deep: false).isHealthy)
        // The cached copy then changes in place, same size: the next verify reads it again.
        let row = try #require(try other.row(uuid: id, arch: .arm64))
        let cached = other.cache.path(for: row.file)
        var bytes = try #require(FileManager.default.contents(atPath: cached)).map { $0 }
        bytes[bytes.count - 1] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: cached))
        let problems = try other.verify(deep: false).problems
        #expect(problems.map(\.kind) == [.damaged], "\(problems)")
        #expect(problems.first?.message.contains("CRC-32") == true, "\(problems)")
    }

    @Test func anImportWritesOverADamagedEntry() throws {
        let id = StoreFixtures.uuid(14)
        let entry = store.location.key(BucketStore.metadataKey(uuid: id, arch: .arm64))
        try client.putObject(bucket: bucket, key: entry, bytes: Array("{\"format\": 1, \"uu".utf8))
        #expect(try store.verify(deep: false).problems.map(\.kind) == [.damaged])
        let symtab = StoreFixtures.table(
            StoreFixtures.info(id, kind: .symbolTable), functionCount: 30, seed: 14, symbolsOnly: true)
        #expect(try store.importTable(symtab, source: "/s") == .imported)
        #expect(try store.builds(matching: id).map(\.kind) == [.symbolTable])
        #expect(try store.verify(deep: false).isHealthy)
    }

    @Test func syncCopiesAFolderStoreAndResumes() throws {
        let folder = try SymbolStore(directory: try StoreFixtures.scratchFolder("sync-source"))
        let tables = (20..<24).map { n in
            StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(UInt8(n))), functionCount: 40, seed: UInt64(n))
        }
        for table in tables { try folder.importTable(table, source: "/in") }
        // One build is in the bucket already: a sync that stopped after it.
        try store.importTable(tables[0], source: "/in")
        var seen: [BucketStore.SyncOutcome] = []
        let first = try store.sync(from: folder) { _, _, _, outcome, _ in seen.append(outcome) }
        #expect(first.copied == 3 && first.skipped == 1 && first.failed == 0)
        #expect(seen.count == 4)
        let again = try store.sync(from: folder) { _, _, _, _, _ in }
        #expect(again.copied == 0 && again.skipped == 4)
        for table in tables {
            StoreFixtures.expectSameLookups(try #require(try store.source(for: table.build.uuid, arch: .arm64)), table)
        }
    }

    @Test func aMissingBucketIsNamed() throws {
        let missing = try BucketStore(
            location: try S3Location(bucket: "no-such-bucket-\(getpid())"), client: client, cacheDirectory: cache,
            cacheBytes: 1 << 30)
        #expect {
            _ = try missing.list()
        } throws: { error in
            let message = (error as? SymbolicateError)?.message ?? ""
            return message.contains("s3://no-such-bucket-\(getpid())") && message.contains("does not exist")
        }
        let summary = missing.importPaths(["/nonexistent-\(getpid())"], progress: nil)
        #expect(summary.imported.isEmpty && summary.failures.count >= 1)
    }

    @Test func anUnreachableEndpointIsNamedNotTrapped() throws {
        let port = try #require(Loopback.freePort())
        let dead = try S3Client(
            configuration: MotoStandIn.configuration(S3Endpoint(scheme: "http", host: "127.0.0.1:\(port)")))
        let unreachable = try BucketStore(
            location: try S3Location(bucket: "symbols", prefix: "p"), client: dead, cacheDirectory: cache,
            cacheBytes: 1 << 30)
        #expect {
            _ = try unreachable.source(for: StoreFixtures.uuid(1), arch: .arm64)
        } throws: { error in
            let message = (error as? SymbolicateError)?.message ?? ""
            return message.contains("s3://symbols/p/catalog/") && message.contains("cannot reach")
        }
        #expect(throws: SymbolicateError.self) { try unreachable.checkReachable() }
        #expect(throws: SymbolicateError.self) {
            try unreachable.importTable(
                StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(1)), functionCount: 10, seed: 1), source: "/x"
            )
        }
    }
}
