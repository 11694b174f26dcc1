// `gc` and `import` of one build on one store folder: the two serialize on the catalog's write
// lock, and an import that finds the build already there marks it used, so whatever the order,
// an import that reports success leaves the build in the store. Each side has its own store
// object and connections, as two processes would.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import BuildFiles
@testable import Store

@Suite(.tags(.slow)) struct GCRaceTests {
    static let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(60)), functionCount: 40, seed: 60)

    /// Makes the build look imported and last used `days` days ago.
    static func age(_ store: SymbolStore, days: Double) throws {
        let old = Date().addingTimeInterval(-days * 86_400).timeIntervalSince1970
        let db = try Database(path: store.catalogPath, mode: .readWrite)
        db.setBusyTimeout(milliseconds: Catalog.busyTimeoutMilliseconds)
        try db.exec("UPDATE builds SET imported_at = \(old), last_used_at = \(old)")
    }

    /// An import that finds the build present, then a gc of builds unused for 5 days: the
    /// import's answer was the last use, so gc keeps the build.
    @Test func anImportThatFindsTheBuildPresentKeepsItFromTheNextGC() throws {
        let folder = try StoreFixtures.scratchFolder()
        let importer = try SymbolStore(directory: folder)
        let collector = try SymbolStore(directory: folder)
        #expect(try importer.importTable(Self.table, source: "/in/HandMade") == .imported)
        try Self.age(importer, days: 10)
        #expect(try importer.importTable(Self.table, source: "/in/HandMade") == .alreadyPresent)
        #expect(try collector.garbageCollect(olderThanDays: 5, dryRun: false).isEmpty)
        #expect(try importer.list().map(\.uuid) == [Self.table.build.uuid])
        #expect(try importer.source(for: Self.table.build.uuid, arch: .arm64) != nil)
    }

    /// The same at the same moment, many times: gc may run first (and the import then writes the
    /// build again) or second (and finds it in use); never may both succeed with the store empty.
    @Test func gcAndImportAtOnceNeverLeaveAReportedBuildMissing() throws {
        let folder = try StoreFixtures.scratchFolder()
        let importer = try SymbolStore(directory: folder)
        let collector = try SymbolStore(directory: folder)
        #expect(try importer.importTable(Self.table, source: "/in/HandMade") == .imported)
        for round in 0..<40 {
            try Self.age(importer, days: 10)
            let outcome = Locked<ImportOutcome?>(nil)
            let removed = Locked<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    let result = try? importer.importTable(Self.table, source: "/in/HandMade")
                    outcome.withLock { $0 = result }
                } else {
                    let result = (try? collector.garbageCollect(olderThanDays: 5, dryRun: false))?.count ?? -1
                    removed.withLock { $0 = result }
                }
            }
            let reported = outcome.withLock { $0 }
            #expect(reported == .alreadyPresent || reported == .imported, "round \(round)")
            #expect(removed.withLock { $0 } >= 0, "round \(round): gc failed")
            #expect(
                try collector.list().map(\.uuid) == [Self.table.build.uuid],
                "round \(round): import said \(String(describing: reported)), gc removed \(removed.withLock { $0 })")
            #expect(
                FileManager.default.fileExists(
                    atPath: importer.absolutePath(
                        SymbolStore.fileName(uuid: Self.table.build.uuid, arch: .arm64))))
        }
    }
}
