// Build files on their own: a SymbolTable written to SQLite and queried in place must answer
// every address exactly as the table does (inline chains, gaps, duplicate starts, addresses on
// both sides of 2^63, damaged indices), and a file of another schema version is refused by name.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import BuildFiles
@testable import Store

@Suite struct BuildFileTests {
    /// A source keeps answering for the file it was opened on. A superseding import renames a new
    /// build file over the old one while lookups are running, and a bucket store's cache may evict
    /// the file; a connection opened after that (the pool of readers was empty) would read the new
    /// file's ranges against the old file's functions in memory, and name other functions, or find
    /// no file. The lookup waits for a reader opened on the old file instead, and answers from it.
    @Test(arguments: [false, true])
    func aFileReplacedOrRemovedUnderASourceIsNotReadForIt(removed: Bool) throws {
        let id = StoreFixtures.uuid(70)
        let old = StoreFixtures.table(
            StoreFixtures.info(id, kind: .symbolTable), functionCount: 50, seed: 70, symbolsOnly: true)
        let new = StoreFixtures.table(StoreFixtures.info(id), functionCount: 80, seed: 71)
        let folder = try StoreFixtures.scratchFolder()
        let path = folder + "/build.sqlite"
        try BuildFile.write(old, to: path)
        try BuildFile.write(new, to: folder + "/new.sqlite")
        let source = try BuildFileSource(path: path, loadAfter: 0)
        let held = source.takeReader()
        #expect((removed ? unlink(path) : rename(folder + "/new.sqlite", path)) == 0)
        let probes = StoreFixtures.probeAddresses(old)
        let answers = Locked([[SymbolTable.Resolved]?]())
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let found = probes.map { StoreFixtures.answer(source, $0) }
            answers.withLock { $0 = found }
            finished.signal()
        }
        // Wait until the lookups found the pool empty (the case this is about) and wait for the
        // held reader: nothing else can serve them, since the file was replaced.
        #expect(Eventually.waitFor { source.lookupsWaitingForReader == 1 }, "no lookup waited for a reader")
        source.putBack(held)
        finished.wait()
        #expect(answers.withLock { $0 } == probes.map { old.lookup($0) })
    }

    /// The table written to a build file, opened twice: tables in memory, and rows read per lookup.
    private func written(_ table: SymbolTable) throws -> [BuildFileSource] {
        let folder = try StoreFixtures.scratchFolder()
        let path = folder + "/build.sqlite"
        try BuildFile.write(table, to: path)
        try BuildFile.checkRanges(of: table, at: path)
        let inMemory = try BuildFileSource(path: path, loadAfter: 0)
        let inPlace = try BuildFileSource(path: path, loadAfter: .max)
        #expect(inMemory.tablesAreLoaded && !inPlace.tablesAreLoaded)
        return [inMemory, inPlace]
    }

    /// Both ways of opening answer like the table.
    @discardableResult
    private func expectSame(_ table: SymbolTable, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> BuildFileSource
    {
        let sources = try written(table)
        for source in sources { StoreFixtures.expectSameLookups(source, table, sourceLocation: sourceLocation) }
        #expect(!sources[1].tablesAreLoaded, sourceLocation: sourceLocation)
        return sources[1]
    }

    @Test(arguments: [1, 17, 400])
    func roundTripMatchesTableLookup(functions: Int) throws {
        let table = StoreFixtures.table(
            StoreFixtures.info(StoreFixtures.uuid(1)), functionCount: functions, seed: UInt64(functions))
        let source = try expectSame(table)
        #expect(source.build == table.build)
        let loaded = try source.loadedTables()
        #expect(loaded.files == table.files)
        #expect(loaded.functions == table.functions)
        #expect(loaded.locations == table.locations)
        let probes = StoreFixtures.expectSameLookups(source, table)
        #expect(probes > 4 * table.ranges.count / 2)
        // The generator makes inline chains: some lookups must return more than one level.
        #expect(table.ranges.contains { (table.lookup($0.start)?.count ?? 0) > 2 })
    }

    @Test func symbolTableOnlyBuild() throws {
        let info = StoreFixtures.info(StoreFixtures.uuid(2), kind: .symbolTable, name: "libsystem_kernel.dylib")
        let table = StoreFixtures.table(info, functionCount: 50, seed: 2, symbolsOnly: true)
        let source = try expectSame(table)
        let hit = try #require(try source.lookup(table.ranges[0].start + 1))
        #expect(hit.count == 1 && hit[0].file == nil && hit[0].line == nil)
    }

    @Test func addressesAcrossTheSignBit() throws {
        var table = SymbolTable(build: StoreFixtures.info(StoreFixtures.uuid(3), arch: .x86_64))
        table.functions = [
            .init(name: "low", entry: 0x10), .init(name: "mid", entry: 0x7FFF_FFFF_FFFF_FFF0),
            .init(name: "kernel", entry: 0xFFFF_FFFF_8000_0000),
        ]
        table.locations = (0..<3).map {
            .init(function: UInt32($0), file: SymbolTable.none, line: 0, parent: SymbolTable.none)
        }
        table.ranges = [
            .init(start: 0x10, location: 0), .init(start: 0x20, location: SymbolTable.none),
            .init(start: 0x7FFF_FFFF_FFFF_FFF0, location: 1),
            .init(start: 0x8000_0000_0000_0010, location: SymbolTable.none),
            .init(start: 0xFFFF_FFFF_8000_0000, location: 2),
            .init(start: 0xFFFF_FFFF_FFFF_FF00, location: SymbolTable.none),
        ]
        let source = try expectSame(table)
        #expect(try source.lookup(0x8000_0000_0000_0000)?.first?.function == "mid")
        #expect(try source.lookup(0xFFFF_FFFF_8000_0004)?.first?.function == "kernel")
        #expect(try source.lookup(0xFFFF_FFFF_FFFF_FFFF) == nil)
    }

    @Test func damagedIndicesEndTheChainLikeTheTable() throws {
        var table = SymbolTable(build: StoreFixtures.info(StoreFixtures.uuid(4)), files: ["a.c"])
        table.functions = [.init(name: "f", entry: 0x100)]
        table.locations = [
            .init(function: 0, file: 0, line: 1, parent: SymbolTable.none),
            .init(function: 0, file: 9, line: 2, parent: 0),  // file out of range
            .init(function: 7, file: 0, line: 3, parent: 0),  // function out of range
            .init(function: 0, file: 0, line: 4, parent: 3),  // a cycle: the table stops at 256 levels
            .init(function: 0, file: 0, line: 5, parent: 99),  // parent out of range
        ]
        table.ranges = [
            .init(start: 0x100, location: 1), .init(start: 0x104, location: 2), .init(start: 0x108, location: 3),
            .init(start: 0x10C, location: 4), .init(start: 0x110, location: 40),
            .init(start: 0x114, location: SymbolTable.none),
        ]
        let source = try expectSame(table)
        #expect(try source.lookup(0x108)?.count == 256)
        #expect(try source.lookup(0x110) == nil)
    }

    @Test func emptyTableAndUnicodeNames() throws {
        let empty = SymbolTable(build: StoreFixtures.info(StoreFixtures.uuid(5)))
        #expect(try written(empty).allSatisfy { try $0.lookup(0x1000) == nil })

        var table = SymbolTable(
            build: StoreFixtures.info(StoreFixtures.uuid(6), name: "Ünïcødé App"), files: ["", "/ü/ß.swift"])
        table.functions = [.init(name: "$s3Appé1fyyF", entry: 0x40), .init(name: "", entry: 0)]
        table.locations = [
            .init(function: 0, file: 1, line: 3, parent: SymbolTable.none),
            .init(function: 1, file: 0, line: 0, parent: 0),
        ]
        table.ranges = [.init(start: 0x40, location: 1), .init(start: 0x50, location: SymbolTable.none)]
        let source = try expectSame(table)
        #expect(source.build.name == "Ünïcødé App")
    }

    @Test func otherSchemaVersionIsRefused() throws {
        let folder = try StoreFixtures.scratchFolder()
        let path = folder + "/old.sqlite"
        try BuildFile.write(
            StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(7)), functionCount: 3, seed: 1), to: path)
        try Database(path: path, mode: .readWrite).exec("PRAGMA user_version=0")
        #expect(throws: BuildFile.VersionMismatch.self) { try BuildFileSource(path: path) }

        try Database(path: path, mode: .readWrite).exec(
            "PRAGMA user_version=\(BuildFile.schemaVersion); PRAGMA application_id=1")
        #expect(throws: SymbolicateError.self) { try BuildFileSource(path: path) }

        let garbage = folder + "/garbage.sqlite"
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: garbage))
        let error = try #require(throws: SymbolicateError.self) { try BuildFileSource(path: garbage) }
        #expect(error.message.contains("SQLite"))
    }

    @Test func lookupsFromManyThreadsAgree() throws {
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(8)), functionCount: 300, seed: 8)
        let path = try StoreFixtures.scratchFolder() + "/build.sqlite"
        try BuildFile.write(table, to: path)
        // Tables move to memory after 500 lookups, while other threads are looking up.
        let source = try BuildFileSource(path: path, loadAfter: 500)
        let probes = StoreFixtures.probeAddresses(table)
        let expected = probes.map { table.lookup($0) }
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for (i, address) in probes.enumerated() where i % 8 == worker || worker % 2 == 0 {
                if StoreFixtures.answer(source, address) != expected[i] { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(source.tablesAreLoaded)
    }

    @Test func adaptiveLoadingThreshold() throws {
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(9)), functionCount: 2000, seed: 9)
        let path = try StoreFixtures.scratchFolder() + "/build.sqlite"
        try BuildFile.write(table, to: path)
        let source = try BuildFileSource(path: path)
        #expect(source.loadAfter == (table.files.count + table.functions.count + table.locations.count) / 16)
        let probes = StoreFixtures.probeAddresses(table)
        for address in probes.prefix(source.loadAfter - 1) { _ = try source.lookup(address) }
        #expect(!source.tablesAreLoaded)
        for address in probes.prefix(2) { _ = try source.lookup(address) }
        #expect(source.tablesAreLoaded)
        StoreFixtures.expectSameLookups(source, table)
    }
}
