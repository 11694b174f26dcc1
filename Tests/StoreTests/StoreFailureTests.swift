// An import that fails half-way (a full disk, a catalog that refuses the row) says so in one
// line naming the store and the build, and leaves the store as it was: no orphaned build file,
// no temporary, no row.

import Foundation
import SymbolicateModel
import Testing

@testable import BuildFiles
@testable import Store

@Suite struct StoreFailureTests {
    static func table(_ n: UInt8, functions: Int = 3000) -> SymbolTable {
        StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(n)), functionCount: functions, seed: UInt64(n))
    }

    /// One line, short, naming the build and the store.
    static func expectOneLine(_ error: any Error, store: SymbolStore, build: BuildID) {
        let text = "\(error)"
        #expect(!text.contains("\n"))
        #expect(text.count < 400, "\(text.count) characters: \(text)")
        #expect(text.contains(store.directory))
        #expect(text.contains(build.uuidString))
        #expect(!text.contains("?2, ?3"), "SQL placeholders in the message")
    }

    @Test func aCatalogRowThatCannotBeWrittenLeavesNoBuildFile() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let refuse = try Database(path: store.catalogPath, mode: .readWrite)
        try refuse.exec("CREATE TRIGGER refuse BEFORE INSERT ON builds BEGIN SELECT RAISE(ABORT, 'refused'); END")
        let table = Self.table(1)
        #expect(throws: SymbolicateError.self) { try store.importTable(table, source: "/in/HandMade") }
        do {
            try store.importTable(table, source: "/in/HandMade")
        } catch {
            Self.expectOneLine(error, store: store, build: table.build.uuid)
        }
        #expect(try StoreFixtures.snapshot(store) == [])
        try refuse.exec("DROP TRIGGER refuse")
        #expect(try store.importTable(table, source: "/in/HandMade") == .imported)
        #expect(try store.verify().problems.isEmpty)
    }

    @Test(.enabled(if: Mounts.available, "needs root and mount(8) for a small tmpfs"))
    func aFullDiskWhileWritingTheBuildIsOneLineAndLeavesNothing() throws {
        let disk = try Mounts.tmpfs(kilobytes: 1024)
        defer { Mounts.unmount(disk) }
        let store = try SymbolStore(directory: disk + "/store")
        _ = Mounts.fill(disk)
        let table = Self.table(2)
        do {
            try store.importTable(table, source: "/in/HandMade")
            Issue.record("the import succeeded on a full disk")
        } catch {
            Self.expectOneLine(error, store: store, build: table.build.uuid)
            #expect("\(error)".contains("the disk is full"), "\(error)")
        }
        #expect(try StoreFixtures.snapshot(store) == [])
    }

    @Test(.enabled(if: Mounts.available, "needs root and mount(8) for a small tmpfs"))
    func aFullDiskAtTheCatalogCommitLeavesNoOrphan() throws {
        let disk = try Mounts.tmpfs(kilobytes: 2048)
        defer { Mounts.unmount(disk) }
        let store = try SymbolStore(directory: disk + "/store")
        let table = Self.table(3)
        let pending = try store.prepare(table, source: "/in/HandMade")
        let filler = Mounts.fill(disk)
        do {
            _ = try store.commit(pending, mode: .new)
            Issue.record("the catalog commit succeeded on a full disk")
        } catch {
            Self.expectOneLine(error, store: store, build: table.build.uuid)
        }
        unlink(filler)
        #expect(try StoreFixtures.snapshot(store) == [])
        #expect(try store.verify().problems.isEmpty)
        #expect(try store.importTable(table, source: "/in/HandMade") == .imported)
    }
}
