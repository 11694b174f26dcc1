// A store this process cannot write (a read-only mount, another user's folder) still serves
// every read: list, lookups, verify (which then checks and repairs nothing). Writers refuse with
// one plain sentence. The mount case uses a read-only bind mount, which even root cannot write
// through; the permission case needs a user that permissions apply to.

import Foundation
import Import
import SymbolicateModel
import Testing

@testable import Store

@Suite struct ReadOnlyStoreTests {
    static let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(40)), functionCount: 200, seed: 40)

    /// A store holding `table`; the writing store object is returned when `keepOpen` (its WAL
    /// and shared-memory files then exist), else closed, as after a clean shutdown.
    static func makeStore(keepOpen: Bool) throws -> (folder: String, writer: SymbolStore?) {
        let folder = try StoreFixtures.scratchFolder()
        var writer: SymbolStore? = try SymbolStore(directory: folder + "/store")
        #expect(try writer?.importTable(table, source: "/in/HandMade") == .imported)
        if !keepOpen { writer = nil }
        return (folder, writer)
    }

    static func expectReadsWork(_ store: SymbolStore) throws {
        #expect(store.isReadOnly)
        #expect(try store.list().map(\.uuid) == [table.build.uuid])
        StoreFixtures.expectSameLookups(try #require(try store.source(for: table.build.uuid, arch: .arm64)), table)
        let report = try store.verify()
        #expect(report.problems.isEmpty && report.buildsChecked == 1)
        #expect(try store.garbageCollect(olderThanDays: 0, dryRun: true).count == 1)
    }

    static func expectWritesRefused(_ store: SymbolStore) {
        func expectRefused(_ operation: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(operation) succeeded on a read-only store")
            } catch {
                #expect(
                    "\(error)" == "store \(store.directory) is read-only: \(operation) needs write access "
                        + "(check the mount and the folder's permissions)")
            }
        }
        let other = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(41)), functionCount: 20, seed: 41)
        expectRefused("import") { try store.importTable(other, source: "/in/Other") }
        expectRefused("remove") { _ = try store.remove([table.build.uuid]) }
        expectRefused("gc") { _ = try store.garbageCollect(olderThanDays: 0, dryRun: false) }
        let summary = store.importPaths(["/in/Other"], progress: nil)
        #expect(
            summary.failures.map(\.error.message).allSatisfy { $0.contains("is read-only: import needs write access") })
        #expect(summary.failures.count == 1)
    }

    @Test(
        .enabled(if: Mounts.available, "needs root and mount(8) for a read-only bind mount"), arguments: [false, true])
    func aReadOnlyMountIsReadAndNeverWritten(writerOpen: Bool) throws {
        let (folder, writer) = try Self.makeStore(keepOpen: writerOpen)
        let view = folder + "/view"
        #expect(mkdir(view, 0o755) == 0)
        try Mounts.readOnlyView(of: folder + "/store", at: view)
        defer { Mounts.unmount(view) }
        let store = try SymbolStore(directory: view)
        try Self.expectReadsWork(store)
        Self.expectWritesRefused(store)
        #expect(try store.list().count == 1)
        _ = writer
    }

    /// Permissions bind only users other than root; as root this cannot be shown.
    @Test(.enabled(if: geteuid() != 0, "root ignores permissions; the read-only mount test covers root"))
    func aFolderWithoutWritePermissionIsReadAndNeverWritten() throws {
        let (folder, _) = try Self.makeStore(keepOpen: false)
        let store = folder + "/store"
        for path in [store, store + "/builds", store + "/tmp"] { #expect(chmod(path, 0o555) == 0) }
        #expect(chmod(store + "/catalog.sqlite", 0o444) == 0)
        defer { for path in [store, store + "/builds", store + "/tmp"] { chmod(path, 0o755) } }
        let readOnly = try SymbolStore(directory: store)
        try Self.expectReadsWork(readOnly)
        Self.expectWritesRefused(readOnly)
    }

    @Test(.enabled(if: Mounts.available, "needs root and mount(8) for a read-only bind mount"))
    func noStoreOnAReadOnlyMountSaysSo() throws {
        let folder = try StoreFixtures.scratchFolder()
        let empty = folder + "/empty"
        let view = folder + "/view"
        #expect(mkdir(empty, 0o755) == 0 && mkdir(view, 0o755) == 0)
        try Mounts.readOnlyView(of: empty, at: view)
        defer { Mounts.unmount(view) }
        #expect(throws: SymbolicateError.self) { try SymbolStore(directory: view) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty) == [])
    }
}
