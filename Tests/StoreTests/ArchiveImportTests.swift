// Archives: .zip, .tar, .tar.gz of Samples bundles import exactly what the folders import (also
// when every member is spooled to disk, and from an archive nested in an archive); damaged
// archives and dSYMs, unsafe member paths and expansion bombs are refused with a message and
// leave the store unchanged. Archives are made with the zip and tar tools at test time.

import Foundation
import Import
import SymbolicateModel
import TestSupport
import Testing

@testable import Store

@Suite(.tags(.slow), .enabled(if: !SampleFiles.variants.isEmpty, "Samples/build is missing: run Samples/generate.sh"))
struct ArchiveImportTests {
    let variant = SampleFiles.variants.first ?? ""
    let bundles = ["HoldApp.app", "HoldApp.app.dSYM", "HoldKit.framework.dSYM"]

    private func tool(_ name: String) throws -> String {
        try #require(StoreFixtures.tool(name), "\(name) is not installed")
    }

    /// Zips or tars the sample bundles into `folder/name`; returns the archive path.
    private func archive(_ name: String, in folder: String) throws -> String {
        let out = folder + "/" + name
        let result: (status: Int32, stderr: String)
        if name.hasSuffix(".zip") {
            result = try StoreFixtures.run(try tool("zip"), ["-qr", out] + bundles, in: variant)
        } else {
            result = try StoreFixtures.run(
                try tool("tar"), [name.hasSuffix(".gz") ? "-czf" : "-cf", out] + bundles, in: variant)
        }
        #expect(result.status == 0, "\(result.stderr)")
        return out
    }

    private func expectLikeTheFolder(_ store: SymbolStore, _ summary: ImportSummary, archive: String) throws {
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        let tables = try SampleFiles.tables(under: bundles.map { variant + "/" + $0 })
        _ = try SampleFiles.expectStoreMatches(store, tables)
        #expect(try store.list().allSatisfy { $0.kind == .debugInfo && $0.sourcePath.hasPrefix(archive + ":") })
        #expect(Set(try store.list().map(\.name)) == ["HoldApp", "HoldKit"])
        #expect(Set(summary.imported.map(\.name)) == ["HoldApp", "HoldKit"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory).isEmpty)
        #expect(try store.verify().isHealthy)
    }

    @Test(arguments: ["bundles.zip", "bundles.tar", "bundles.tar.gz"])
    func archiveImportsLikeTheFolder(name: String) throws {
        let folder = try StoreFixtures.scratchFolder()
        let path = try archive(name, in: folder)
        let store = try SymbolStore(directory: folder + "/store")
        let events = Locked<[ImportProgress]>([])
        let summary = store.importPaths([path]) { p in events.withLock { $0.append(p) } }
        try expectLikeTheFolder(store, summary, archive: path)
        let last = try #require(events.withLock { $0.last })
        #expect(
            last.inputsDone == 1 && last.inputsTotal == 1
                && last.slicesDone == summary.imported.count + summary.alreadyPresent.count)
        #expect(events.withLock { $0.contains { $0.item.contains(".dSYM/Contents/Resources/DWARF/") } })
    }

    /// Imports `path` into a new store with `limits`; returns the summary and the members that
    /// had a spool file in the store's tmp/ while they were read (seen from the progress calls).
    private func importWatchingSpools(
        _ path: String, into store: String, limits: ArchiveImportLimits
    ) throws -> (SymbolStore, ImportSummary, [String]) {
        let store = try SymbolStore(directory: store, archiveLimits: limits)
        let temporary = store.temporaryDirectory
        let spooled = Locked<[String]>([])
        let summary = store.importPaths([path]) { progress in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
            if names.contains(where: { $0.hasSuffix(".spool") }) { spooled.withLock { $0.append(progress.item) } }
        }
        return (store, summary, spooled.withLock { $0 })
    }

    @Test func largeMembersAreSpooledToDisk() throws {
        let folder = try StoreFixtures.scratchFolder()
        let path = try archive("bundles.tar.gz", in: folder)
        var limits = ArchiveImportLimits()
        limits.memberMemoryLimit = 1024
        let (store, summary, spooled) = try importWatchingSpools(path, into: folder + "/store", limits: limits)
        try expectLikeTheFolder(store, summary, archive: path)
        // Every DWARF member is larger than 1 KiB: each was read from a spool file.
        let dwarfMembers = Set(summary.imported.filter { $0.kind == .debugInfo }.map(\.source))
        #expect(!dwarfMembers.isEmpty)
        #expect(dwarfMembers.isSubset(of: spooled), "spooled: \(spooled)")
        // With the default limit the same members stay in memory: no spool file is made.
        let (_, inMemory, none) = try importWatchingSpools(
            path, into: folder + "/store2", limits: ArchiveImportLimits())
        #expect(inMemory.failures.isEmpty)
        #expect(none.isEmpty, "\(none)")
    }

    @Test func nestedArchive() throws {
        let folder = try StoreFixtures.scratchFolder()
        _ = try archive("bundles.zip", in: folder)
        let outer = folder + "/outer.tar.gz"
        #expect(try StoreFixtures.run(try tool("tar"), ["-czf", outer, "bundles.zip"], in: folder).status == 0)
        let store = try SymbolStore(directory: folder + "/store")
        let summary = store.importPaths([outer], progress: nil)
        try expectLikeTheFolder(store, summary, archive: outer)
        #expect(try store.list().allSatisfy { $0.sourcePath.hasPrefix(outer + ":bundles.zip:") })
    }

    /// A store holding one build, and a snapshot of it, to check that refusals change nothing.
    private func populatedStore(_ folder: String, limits: ArchiveImportLimits = .init()) throws -> (
        SymbolStore, [String]
    ) {
        let store = try SymbolStore(directory: folder + "/store", archiveLimits: limits)
        try store.importTable(
            StoreFixtures.table(StoreFixtures.info(StoreFixtures.uuid(50)), functionCount: 3, seed: 5), source: "t")
        return (store, try StoreFixtures.snapshot(store))
    }

    private func expectRefused(
        _ store: SymbolStore, _ snapshot: [String], _ path: String, saying words: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let summary = store.importPaths([path], progress: nil)
        #expect(summary.imported.isEmpty, sourceLocation: sourceLocation)
        let failure = try #require(summary.failures.first, sourceLocation: sourceLocation)
        #expect(words.isEmpty || failure.error.message.contains(words), "\(failure)", sourceLocation: sourceLocation)
        #expect(!failure.error.message.isEmpty, sourceLocation: sourceLocation)
        #expect(try StoreFixtures.snapshot(store) == snapshot, sourceLocation: sourceLocation)
    }

    @Test func damagedArchivesAreRefusedAndChangeNothing() throws {
        let folder = try StoreFixtures.scratchFolder()
        let (store, snapshot) = try populatedStore(folder)
        for name in ["bundles.zip", "bundles.tar.gz"] {
            let good = try Data(contentsOf: URL(fileURLWithPath: try archive(name, in: folder)))
            // Cut short: the end of the archive is missing.
            let truncated = folder + "/truncated-" + name
            try good.prefix(good.count * 2 / 3).write(to: URL(fileURLWithPath: truncated))
            // Either says it was cut short.
            try expectRefused(store, snapshot, truncated, saying: "cut short")
            if name.hasSuffix(".zip") {
                // Cut where a member begins: every member before the cut is whole, and only the
                // missing central directory says that the rest is gone.
                let signature = Data([0x50, 0x4B, 0x03, 0x04])
                let last = try #require(good.range(of: signature, options: .backwards))
                let cut = folder + "/cut-" + name
                try good.prefix(upTo: last.lowerBound).write(to: URL(fileURLWithPath: cut))
                try expectRefused(store, snapshot, cut, saying: "central directory")
            } else {
                // The gzip trailer's CRC-32 does not match: libarchive inflates the data without an
                // error, so only the checksum says the builds read from it may be damaged.
                var bytes = [UInt8](good)
                bytes[bytes.count - 8] ^= 0x01
                let mismatched = folder + "/crc-" + name
                try Data(bytes).write(to: URL(fileURLWithPath: mismatched))
                try expectRefused(store, snapshot, mismatched, saying: "gzip check failed: incorrect data check")
            }
            // Scrambled in the middle: compressed data no longer decodes.
            var bytes = [UInt8](good)
            for i in stride(from: bytes.count / 2, to: min(bytes.count, bytes.count / 2 + 4096), by: 7) {
                bytes[i] ^= 0x5A
            }
            let scrambled = folder + "/scrambled-" + name
            try Data(bytes).write(to: URL(fileURLWithPath: scrambled))
            let summary = store.importPaths([scrambled], progress: nil)
            #expect(summary.imported.isEmpty && !summary.failures.isEmpty, "\(name): \(summary.failures)")
            #expect(try StoreFixtures.snapshot(store) == snapshot)
        }
    }

    @Test func damagedDSYMIsRefusedWithAMessage() throws {
        let folder = try StoreFixtures.scratchFolder()
        let (store, snapshot) = try populatedStore(folder)
        let dwarf = variant + "/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"
        let good = try Data(contentsOf: URL(fileURLWithPath: dwarf))
        let broken = folder + "/HoldApp"
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: broken))
        try expectRefused(store, snapshot, broken, saying: "")
        #expect(store.importPaths([broken], progress: nil).failures.first?.path.hasPrefix(broken) == true)

        // Inside an archive, the damaged member fails alone; the good ones go in.
        let zip = folder + "/mixed.zip"
        #expect(
            try StoreFixtures.run(
                try tool("zip"),
                ["-qj", zip, broken, variant + "/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"]
            ).status == 0)
        let mixed = store.importPaths([zip], progress: nil)
        #expect(mixed.imported.map(\.name) == ["HoldKit"])
        #expect(mixed.failures.count == 1 && mixed.failures.allSatisfy { $0.path.hasPrefix(zip + ":HoldApp") })

        let notObject = folder + "/notes.txt"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notObject))
        #expect(store.importPaths([notObject, folder + "/absent"], progress: nil).failures.count == 2)
    }

    @Test func unsafeMemberPathsAreRefused() throws {
        let folder = try StoreFixtures.scratchFolder()
        let (store, snapshot) = try populatedStore(folder)
        try FileManager.default.createDirectory(atPath: folder + "/a", withIntermediateDirectories: true)
        let dwarf = variant + "/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        try FileManager.default.copyItem(atPath: dwarf, toPath: folder + "/a/HoldKit")

        let slipZip = folder + "/slip.zip"
        #expect(try StoreFixtures.run(try tool("zip"), ["-q", slipZip, "../a/HoldKit"], in: folder + "/a").status == 0)
        try expectRefused(store, snapshot, slipZip, saying: "unsafe path")

        let slipTar = folder + "/slip.tar"
        #expect(
            try StoreFixtures.run(
                try tool("tar"), ["-P", "--transform", "s,^,../,", "-cf", slipTar, "HoldKit"], in: folder + "/a"
            ).status == 0)
        try expectRefused(store, snapshot, slipTar, saying: "unsafe path")

        let absoluteTar = folder + "/absolute.tar"
        #expect(try StoreFixtures.run(try tool("tar"), ["-P", "-cf", absoluteTar, folder + "/a/HoldKit"]).status == 0)
        try expectRefused(store, snapshot, absoluteTar, saying: "unsafe path")
    }

    @Test func expansionBombsAreRefused() throws {
        let folder = try StoreFixtures.scratchFolder()
        var limits = ArchiveImportLimits()
        limits.expansionFloor = 1 << 20
        limits.maxEntries = 10
        let (store, snapshot) = try populatedStore(folder, limits: limits)
        try FileManager.default.createDirectory(atPath: folder + "/bomb", withIntermediateDirectories: true)
        // 8 MB of zeros compress to a few KB: far more than 20 times the archive, and over the floor.
        try Data(count: 8 << 20).write(to: URL(fileURLWithPath: folder + "/bomb/zeros"))
        let bomb = folder + "/bomb.tar.gz"
        #expect(try StoreFixtures.run(try tool("tar"), ["-czf", bomb, "zeros"], in: folder + "/bomb").status == 0)
        try expectRefused(store, snapshot, bomb, saying: "expansion bomb")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: bomb)[.size] as? Int)
        try expectRefused(
            store, snapshot, bomb,
            saying: "more than 1048576 bytes (the floor for any archive; 20 times its \(size) bytes is less)")
        let zipBomb = folder + "/bomb.zip"
        #expect(try StoreFixtures.run(try tool("zip"), ["-q", zipBomb, "zeros"], in: folder + "/bomb").status == 0)
        try expectRefused(store, snapshot, zipBomb, saying: "expansion bomb")

        for i in 0..<12 { try Data([UInt8(i)]).write(to: URL(fileURLWithPath: folder + "/bomb/f\(i)")) }
        let many = folder + "/many.tar"
        #expect(
            try StoreFixtures.run(try tool("tar"), ["-cf", many] + (0..<12).map { "f\($0)" }, in: folder + "/bomb")
                .status == 0)
        try expectRefused(store, snapshot, many, saying: "more than 10 entries")
    }

    /// A member named in UTF-8 (general-purpose bit 11, as Python's zipfile writes it) gives the
    /// build its name; it is not lost to the C locale as `member-1`.
    @Test(.enabled(if: StoreFixtures.tool("python3") != nil, "python3 (which writes the zip) is not installed"))
    func utf8MemberNamesNameTheBuild() throws {
        let folder = try StoreFixtures.scratchFolder()
        let zip = folder + "/utf8.zip"
        let dwarf = variant + "/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:
                z.write(sys.argv[1], 'Café.framework.dSYM/Contents/Resources/DWARF/Café')
            """
        let result = try StoreFixtures.run(try tool("python3"), ["-c", script, dwarf, zip])
        #expect(result.status == 0, "\(result.stderr)")
        let store = try SymbolStore(directory: folder + "/store")
        let summary = store.importPaths([zip], progress: nil)
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        #expect(!summary.imported.isEmpty)
        #expect(try store.list().map(\.name) == summary.imported.map { _ in "Café" })
        #expect(
            try store.list().allSatisfy { $0.sourcePath == zip + ":Café.framework.dSYM/Contents/Resources/DWARF/Café" })
    }
}
