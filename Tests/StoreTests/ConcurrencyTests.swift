// Imports and lookups at the same time: two importers on one store folder (threads with their
// own store objects and connections, and, when the `symbolicate` executable has been built next
// to the tests, two processes), an import waiting for another process (the sqlite3 tool) that
// holds the catalog's write lock, and lookups that run while a build is superseded.

import Foundation
import Import
import SymbolicateModel
import SystemSupport
import TestSupport
import Testing

@testable import Store

@Suite(.tags(.slow)) struct ConcurrencyTests {
    @Test(.enabled(if: !SampleFiles.variants.isEmpty, "Samples/build is missing"))
    func twoImportersOnOneFolder() throws {
        let folder = try StoreFixtures.scratchFolder()
        _ = try SymbolStore(directory: folder)
        let variants = SampleFiles.variants
        let summaries = Locked<[ImportSummary]>([])
        let errors = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let store = try SymbolStore(directory: folder)
                let summary = store.importPaths(variants, progress: nil)
                summaries.withLock { $0.append(summary) }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        #expect(errors.withLock { $0 }.isEmpty)
        let all = summaries.withLock { $0 }
        #expect(all.count == 2 && all.allSatisfy { $0.failures.isEmpty })
        let store = try SymbolStore(directory: folder)
        let result = try SampleFiles.expectStoreMatches(store, try SampleFiles.tables(under: variants))
        // Every build was written once: the other importer found it present.
        let imported = all.flatMap(\.imported).filter { $0.outcome == .imported }
        #expect(imported.count == result.builds)
        #expect(try store.verify().isHealthy)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.buildsDirectory).count == result.builds)
    }

    @Test(.enabled(if: !SampleFiles.variants.isEmpty, "needs Samples/build"), .needsExecutable)
    func twoImportProcessesOnOneFolder() throws {
        let executable = try #require(Repository.executable)
        let folder = try StoreFixtures.scratchFolder()
        let processes = try (0..<2).map { _ -> Process in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = ["import", "--store", folder] + SampleFiles.variants
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        for p in processes { p.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == [0, 0])
        let store = try SymbolStore(directory: folder)
        _ = try SampleFiles.expectStoreMatches(store, try SampleFiles.tables(under: SampleFiles.variants))
        #expect(try store.verify().isHealthy)
    }

    @Test(
        .tags(.corpus),
        .enabled(if: !SampleFiles.corpusDSYMs.isEmpty, "needs the shared corpus"), .needsExecutable)
    func importKilledHalfWayLeavesAConsistentStore() throws {
        let executable = try #require(Repository.executable)
        let folder = try StoreFixtures.scratchFolder()
        let inputs = SampleFiles.corpusDSYMs
        // Kill at several points: early (catalog creation, first file), mid-way, late.
        for delay: useconds_t in [30_000, 150_000, 400_000, 900_000] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = ["import", "--store", folder] + inputs
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            usleep(delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let store = try SymbolStore(directory: folder)
            let report = try store.verify(deep: true)
            #expect(report.isHealthy, "after a kill at \(delay) µs: \(report.problems)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: store.buildsDirectory).allSatisfy {
                    !$0.hasPrefix(TemporaryFile.prefix)
                })
        }
        let store = try SymbolStore(directory: folder)
        let summary = store.importPaths(inputs, progress: nil)
        #expect(summary.imported.allSatisfy { $0.outcome == .imported })
        _ = try SampleFiles.expectStoreMatches(store, try SampleFiles.tables(under: inputs))
        #expect(try store.verify().isHealthy)
    }

    @Test func importWaitsForAnotherProcessHoldingTheCatalogLock() throws {
        let sqlite3 = try #require(StoreFixtures.tool("sqlite3"), "the sqlite3 tool is not installed")
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let first = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(60)), functionCount: 10, seed: 60)
        let second = StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(61)), functionCount: 10, seed: 61)
        try store.importTable(first, source: "first")

        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: sqlite3)
        // A busy timeout, so that a probe holding the lock for a moment makes the holder's BEGIN
        // wait instead of fail (then nothing would ever hold the lock).
        holder.arguments = ["-cmd", ".timeout 30000", store.catalogPath]
        let input = Pipe()
        holder.standardInput = input
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nUPDATE builds SET status = status;\n".utf8))
        // The holder has the write lock once another connection cannot take it without waiting.
        #expect(
            Eventually.waitFor { !ProcessFacts.canTakeWriteLock(sqlite3: sqlite3, store.catalogPath) },
            "sqlite3 never took the catalog's write lock")

        // Readers are not blocked by the writer (WAL) ...
        #expect(try store.list().count == 1)
        StoreFixtures.expectSameLookups(try #require(try store.source(for: first.build.uuid, arch: nil)), first)
        // ... and a writer waits for it instead of failing: the import ends only after the
        // holder was told to commit, however long the machine takes to get there.
        let released = Locked(false)
        let release = Thread {
            usleep(200_000)
            released.withLock { $0 = true }
            input.fileHandleForWriting.write(Data("COMMIT;\n.quit\n".utf8))
        }
        release.start()
        #expect(try store.importTable(second, source: "second") == .imported)
        #expect(released.withLock { $0 }, "the import finished before the lock was released")
        holder.waitUntilExit()
        #expect(try store.list().count == 2)
        #expect(try store.verify().isHealthy)
    }

    @Test func lookupsDuringSupersedeSeeOneTableOrTheOther() throws {
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let uuid = StoreFixtures.uuid(70)
        let symtab = StoreFixtures.table(
            StoreFixtures.info(uuid, kind: .symbolTable), functionCount: 200, seed: 1, symbolsOnly: true)
        let dwarf = StoreFixtures.table(StoreFixtures.info(uuid), functionCount: 200, seed: 2)
        try store.importTable(symtab, source: "binary")
        let probes = StoreFixtures.probeAddresses(symtab, extra: 0)
        let bad = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            if worker == 0 {
                _ = try? store.importTable(dwarf, source: "dsym")
                return
            }
            for round in 0..<20 {
                guard let source = try? store.source(for: uuid, arch: .arm64) else {
                    bad.withLock { $0 += 1 }
                    continue
                }
                let table = source.build.kind == .debugInfo ? dwarf : symtab
                for (i, address) in probes.enumerated() where i % 20 == round {
                    if StoreFixtures.answer(source, address) != table.lookup(address) { bad.withLock { $0 += 1 } }
                }
            }
        }
        #expect(bad.withLock { $0 } == 0)
        #expect(try store.source(for: uuid, arch: .arm64)?.build.kind == .debugInfo)
    }
}
