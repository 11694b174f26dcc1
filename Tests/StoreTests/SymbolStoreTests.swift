// The store as a whole, with tables made by hand: lookups through the store equal the table's,
// re-import is a no-op, debug info supersedes a symbol table (never the reverse), arch
// compatibility, remove, gc, verify, statistics, schema versions, the default folder, and what
// an import killed half-way leaves behind.

import Foundation
import Import
import SymbolicateModel
import SystemSupport
import TestSupport
import Testing

@testable import BuildFiles
@testable import Store

@Suite struct SymbolStoreTests {
    @Test func importThenLookUpThroughTheStore() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(10)), functionCount: 120, seed: 10)
        #expect(try store.importTable(table, source: "/in/HandMade") == .imported)
        let source = try #require(try store.source(for: table.build.uuid, arch: .arm64))
        #expect(source.build.uuid == table.build.uuid)
        #expect(source.build.path == "/in/HandMade")
        StoreFixtures.expectSameLookups(source, table)

        // A second store object (another process, in effect) sees the same build.
        let again = try SymbolStore(directory: store.directory)
        StoreFixtures.expectSameLookups(try #require(try again.source(for: table.build.uuid, arch: nil)), table)
        #expect(try store.source(for: StoreFixtures.uuid(99), arch: nil) == nil)

        let rows = try store.list()
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.name == "HandMade" && row.kind == .debugInfo && row.status == .ready)
        #expect(row.textVMAddress == 0x1_0000_0000 && row.textSize == 0x10_0000)
        #expect(row.file == "builds/\(table.build.uuid.uuidString)-arm64.sqlite")
        #expect(row.byteSize > 4096 && row.sourcePath == "/in/HandMade")
        let stats = try store.statistics
        #expect(stats.builds == 1 && stats.debugInfoBuilds == 1 && stats.bytes == row.byteSize)
    }

    /// A file in an imported folder whose name is not UTF-8 cannot be opened by a String path:
    /// the import names it as a failure with what to do, instead of passing over it.
    @Test func aFileNameThatIsNotUTF8IsAFailureOfTheImport() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let folder = try StoreFixtures.scratchFolder("input")
        let raw = (Array((folder + "/App").utf8) + [0xFE, 0] as [UInt8]).map { CChar(bitPattern: $0) }
        let descriptor = open(raw, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(descriptor >= 0)
        close(descriptor)
        let summary = store.importPaths([folder], progress: nil)
        let failure = try #require(summary.failures.first)
        #expect(failure.path == folder + "/App\u{FFFD}")
        #expect(failure.error.message.contains("not valid UTF-8"), "\(failure)")
    }

    /// A name under an imported folder that cannot be looked at (here a loop of links) fails the
    /// import by name; a link to nothing is not a symbol file and is passed over.
    @Test func aNameThatCannotBeLookedAtIsAFailureOfTheImport() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let folder = try StoreFixtures.scratchFolder("input")
        let files = FileManager.default
        try files.createSymbolicLink(atPath: folder + "/a", withDestinationPath: "b")
        try files.createSymbolicLink(atPath: folder + "/b", withDestinationPath: "a")
        try files.createSymbolicLink(atPath: folder + "/gone", withDestinationPath: "missing")
        let summary = store.importPaths([folder], progress: nil)
        #expect(summary.failures.map(\.path) == [folder + "/a", folder + "/b"], "\(summary.failures)")
        #expect(
            summary.failures.allSatisfy { $0.error.message.contains(String(cString: strerror(ELOOP))) },
            "\(summary.failures)")
    }

    /// A pipe named as an input is refused at once: opening it would wait for a writer forever.
    @Test func aPipeNamedAsAnInputIsRefusedNotWaitedOn() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let pipe = try StoreFixtures.scratchFolder("input") + "/symbols.pipe"
        try #require(mkfifo(pipe, 0o600) == 0)
        let summary = store.importPaths([pipe], progress: nil)
        #expect(summary.failures.map(\.path) == [pipe])
        #expect(summary.failures.first?.error.message.contains("not a regular file") == true, "\(summary.failures)")
    }

    @Test func reimportIsANoOp() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(11)), functionCount: 20, seed: 11)
        #expect(try store.importTable(table, source: "a") == .imported)
        let before = try StoreFixtures.snapshot(store)
        #expect(try store.importTable(table, source: "b") == .alreadyPresent)
        #expect(try StoreFixtures.snapshot(store) == before)
        #expect(try store.list().first?.sourcePath == "a")
    }

    @Test func debugInfoSupersedesSymbolTableNeverTheReverse() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let uuid = StoreFixtures.uuid(12)
        let symtab = StoreFixtures.table(
            StoreFixtures.info(uuid, kind: .symbolTable), functionCount: 30, seed: 1, symbolsOnly: true)
        let dwarf = StoreFixtures.table(StoreFixtures.info(uuid, kind: .debugInfo), functionCount: 30, seed: 2)

        #expect(try store.importTable(symtab, source: "app/Binary") == .imported)
        StoreFixtures.expectSameLookups(try #require(try store.source(for: uuid, arch: .arm64)), symtab)
        #expect(try store.importTable(dwarf, source: "Binary.dSYM") == .superseded)
        // The open symbol-table build must not be served any more.
        StoreFixtures.expectSameLookups(try #require(try store.source(for: uuid, arch: .arm64)), dwarf)
        #expect(try store.importTable(symtab, source: "app/Binary") == .alreadyPresent)
        let rows = try store.builds(matching: uuid)
        #expect(rows.count == 1 && rows[0].kind == .debugInfo && rows[0].sourcePath == "Binary.dSYM")
        StoreFixtures.expectSameLookups(
            try #require(try SymbolStore(directory: store.directory).source(for: uuid, arch: .arm64)), dwarf)
    }

    @Test func archSelection() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let uuid = StoreFixtures.uuid(13)
        let arm64 = StoreFixtures.table(
            StoreFixtures.info(uuid, arch: .arm64, kind: .symbolTable), functionCount: 5, seed: 1, symbolsOnly: true)
        let x86 = StoreFixtures.table(StoreFixtures.info(uuid, arch: .x86_64), functionCount: 5, seed: 2)
        try store.importTable(arm64, source: "fat")
        try store.importTable(x86, source: "fat")
        #expect(try store.source(for: uuid, arch: .arm64)?.build.arch == .arm64)
        #expect(try store.source(for: uuid, arch: .arm64e)?.build.arch == .arm64)  // compatible family
        #expect(try store.source(for: uuid, arch: .x86_64)?.build.arch == .x86_64)
        // The UUID names the build whatever arch the report says (a spindump labels an x86_64
        // image x86_64h): no build of a fitting arch, so the best of the others.
        #expect(try store.source(for: uuid, arch: .armv7)?.build.arch == .x86_64)
        #expect(try store.source(for: uuid, arch: .x86_64h)?.build.kind == .debugInfo)
        #expect(try store.source(for: uuid, arch: nil)?.build.kind == .debugInfo)  // best kind wins
        #expect(try store.builds(matching: uuid).map(\.arch) == [.arm64, .x86_64])
    }

    @Test func removeAndGarbageCollect() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let tables = (20..<23).map {
            StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(UInt8($0))), functionCount: 4, seed: UInt64($0))
        }
        for t in tables { try store.importTable(t, source: "x") }
        _ = try store.source(for: tables[0].build.uuid, arch: nil)  // opened, then removed below

        let removed = try store.remove([tables[0].build.uuid, StoreFixtures.uuid(77)])
        #expect(removed.map(\.uuid) == [tables[0].build.uuid])
        #expect(try store.source(for: tables[0].build.uuid, arch: nil) == nil)
        #expect(!FileManager.default.fileExists(atPath: store.absolutePath(removed[0].file)))

        #expect(try store.garbageCollect(olderThanDays: 1, dryRun: true).isEmpty)
        let all = try store.garbageCollect(olderThanDays: 0, dryRun: true)
        #expect(all.count == 2)
        #expect(try store.list().count == 2)  // dry run changed nothing
        #expect(try store.garbageCollect(olderThanDays: 1, dryRun: false).isEmpty)
        #expect(try store.garbageCollect(olderThanDays: 0, dryRun: false).count == 2)
        #expect(try store.list().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.buildsDirectory).isEmpty)
        #expect(try store.statistics.builds == 0)
    }

    @Test func garbageCollectionSparesRecentlyUsedBuilds() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let used = StoreFixtures.table(
            StoreFixtures.info(StoreFixtures.uuid(24), name: "Used"), functionCount: 4, seed: 1)
        let idle = StoreFixtures.table(
            StoreFixtures.info(StoreFixtures.uuid(25), name: "Idle"), functionCount: 4, seed: 2)
        try store.importTable(used, source: "u")
        try store.importTable(idle, source: "i")
        // Both imported 30 days ago; a tampered file column must not redirect anything.
        let old = Date().addingTimeInterval(-30 * 86_400).timeIntervalSince1970
        try store.catalog.withLock {
            try $0.database.exec("UPDATE builds SET imported_at = \(old), file = '../../elsewhere'")
        }
        #expect(try store.list().allSatisfy { $0.file.hasPrefix("builds/") && $0.lastUsedAt == nil })
        _ = try store.source(for: used.build.uuid, arch: nil)
        let usedRow = try #require(try store.builds(matching: used.build.uuid).first)
        #expect(try #require(usedRow.lastUsedAt).timeIntervalSinceNow > -60)
        #expect(try store.garbageCollect(olderThanDays: 7, dryRun: true).map(\.name) == ["Idle"])
        #expect(try store.garbageCollect(olderThanDays: 7, dryRun: false).map(\.name) == ["Idle"])
        #expect(try store.list().map(\.name) == ["Used"])
        #expect(try store.verify().isHealthy)
    }

    @Test func verifyFindsMissingOrphanAndOutdatedFiles() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let a = StoreFixtures.table(
            StoreFixtures.info(StoreFixtures.uuid(30), name: "Alpha"), functionCount: 4, seed: 1)
        let b = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(31), name: "Beta"), functionCount: 4, seed: 2)
        let c = StoreFixtures.table(
            StoreFixtures.info(StoreFixtures.uuid(32), name: "Gamma"), functionCount: 4, seed: 3)
        for t in [a, b, c] { try store.importTable(t, source: "/gone/\(t.build.name)") }
        #expect(try store.verify(deep: true).isHealthy)

        let rows = try store.list()
        let alpha = try #require(rows.first { $0.name == "Alpha" })
        let beta = try #require(rows.first { $0.name == "Beta" })
        try FileManager.default.removeItem(atPath: store.absolutePath(alpha.file))
        try Database(path: store.absolutePath(beta.file), mode: .readWrite).exec("PRAGMA user_version=99")
        try Data("not a build".utf8).write(to: URL(fileURLWithPath: store.buildsDirectory + "/stray.sqlite"))

        let report = try store.verify()
        let kinds = Set(report.problems.map(\.kind))
        #expect(kinds == [.missingFile, .outdated, .orphanFile])
        #expect(report.buildsChecked == 3 && report.catalogSchemaVersion == 1)
        #expect(report.problems.first { $0.kind == .missingFile }?.uuid == alpha.uuid)
        let statuses = Dictionary(uniqueKeysWithValues: try store.list().map { ($0.name, $0.status) })
        #expect(statuses == ["Alpha": .missing, "Beta": .outdated, "Gamma": .ready])

        // Lookups name the build and say to re-import (the source files are gone, no rebuild).
        let fresh = try SymbolStore(directory: store.directory)
        let outdated = try #require(throws: SymbolicateError.self) { try fresh.source(for: beta.uuid, arch: .arm64) }
        #expect(outdated.code == .unsupported)
        #expect(outdated.message.contains(beta.uuid.uuidString) && outdated.message.contains("re-import"))
        #expect(outdated.message.contains("version 99"))
        let missing = try #require(throws: SymbolicateError.self) { try fresh.source(for: alpha.uuid, arch: nil) }
        #expect(missing.code == .notFound && missing.message.contains("Alpha"))

        // Re-importing repairs both; gc removes the orphan.
        #expect(try store.importTable(a, source: "/again/Alpha") == .imported)
        #expect(try store.importTable(b, source: "/again/Beta") == .imported)
        _ = try store.garbageCollect(olderThanDays: 3650, dryRun: false)
        #expect(try store.verify().isHealthy)
        StoreFixtures.expectSameLookups(try #require(try fresh.source(for: beta.uuid, arch: .arm64)), b)
    }

    @Test func killedImportLeavesNothingAndTheNextImportSucceeds() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let table = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(40)), functionCount: 40, seed: 40)
        // What a SIGKILL half-way leaves: a partial temporary build file, no catalog row.
        let partial = store.buildsDirectory + "/\(TemporaryFile.prefix)9f3a.sqlite"
        try Data(repeating: 0x53, count: 10_000).write(to: URL(fileURLWithPath: partial))
        let spool = store.temporaryDirectory + "/\(TemporaryFile.prefix)77.spool"
        try Data(repeating: 0, count: 100).write(to: URL(fileURLWithPath: spool))
        #expect(try store.list().isEmpty)

        let summary = store.importPaths([], progress: nil)
        #expect(summary.failures.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: partial) && !FileManager.default.fileExists(atPath: spool))
        #expect(try store.importTable(table, source: "t") == .imported)
        #expect(try store.verify().isHealthy)

        // verify cleans them up too, and says so.
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: partial))
        let report = try store.verify()
        #expect(report.isHealthy && report.repaired.map(\.kind) == [.staleTemporary])

        // Killed between the rename and the catalog row: a complete file with no row. verify
        // lists it again; lookups then work as before.
        try store.catalog.withLock { try $0.database.exec("DELETE FROM builds") }
        #expect(try store.list().isEmpty)
        let adopted = try store.verify()
        #expect(adopted.isHealthy && adopted.repaired.map(\.kind) == [.orphanFile])
        #expect(adopted.repaired.first?.uuid == table.build.uuid)
        let row = try #require(try store.list().first)
        #expect(row.sourcePath == "t" && row.kind == .debugInfo && row.status == .ready)
        StoreFixtures.expectSameLookups(try #require(try store.source(for: table.build.uuid, arch: nil)), table)
        #expect(try store.importTable(table, source: "t") == .alreadyPresent)
    }

    @Test func liveImportTemporaryIsKeptUntilItsProcessDies() throws {
        let flockTool = try #require(StoreFixtures.tool("flock"), "flock(1) is needed for this test")
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let live = store.buildsDirectory + "/\(TemporaryFile.prefix)live.sqlite"
        // Another process holds the lock on a temporary, as a running import does.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: flockTool)
        // -o: the lock belongs to flock itself, not to the command it runs.
        holder.arguments = ["-o", live, "sleep", "600"]
        try holder.run()
        // The command flock runs first (it holds no lock, but Foundation waits for it), then flock.
        func stopHolder() {
            let pid = holder.processIdentifier
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ pid_t($0) }) { kill(child, SIGKILL) }
            kill(pid, SIGKILL)
            holder.waitUntilExit()
        }
        defer { if holder.isRunning { stopHolder() } }
        // Held once a lock of our own cannot be taken without waiting.
        let held = Eventually.waitFor {
            let fd = open(live, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
        }
        #expect(held, "flock never took the lock")
        #expect(TemporaryFile.removeStale(in: store.buildsDirectory).isEmpty)
        #expect(FileManager.default.fileExists(atPath: live))
        stopHolder()
        #expect(TemporaryFile.removeStale(in: store.buildsDirectory) == ["\(TemporaryFile.prefix)live.sqlite"])
    }

    @Test func defaultDirectory() {
        #expect(
            SymbolStore.defaultDirectory(environment: ["SYMBOLICATE_STORE": "/s", "XDG_DATA_HOME": "/x", "HOME": "/h"])
                == "/s")
        #expect(SymbolStore.defaultDirectory(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/symbolicate")
        #expect(
            SymbolStore.defaultDirectory(environment: ["SYMBOLICATE_STORE": "", "XDG_DATA_HOME": "rel", "HOME": "/h"])
                == "/h/.local/share/symbolicate")
    }

    @Test func catalogOfANewerSchemaIsRefused() throws {
        let folder = try StoreFixtures.scratchFolder()
        _ = try SymbolStore(directory: folder)
        try Database(path: folder + "/catalog.sqlite", mode: .readWrite).exec("PRAGMA user_version=5")
        let error = try #require(throws: SymbolicateError.self) { try SymbolStore(directory: folder) }
        #expect(error.code == .unsupported && error.message.contains("schema version 5"))
    }
}
