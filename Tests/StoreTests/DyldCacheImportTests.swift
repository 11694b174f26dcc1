// Importing dyld shared caches into a store: every image a build keyed by its UUID, a second
// import a no-op, the richer table kept whatever the order the same images arrive in (local
// symbols beat exported names only), and an image that cannot be read failing alone while the
// others stay imported and the store stays healthy.

import Foundation
import Import
import ObjectFiles
import SymbolicateModel
import TestSupport
import Testing

@testable import Store

@Suite(.needsSamples, .needsPython)
struct DyldCacheImportTests {
    @Test func importOnceThenNothing() throws {
        let folder = try StoreFixtures.scratchFolder()
        let main = try CacheFixture.make("ios15", in: folder + "/cache")
        let store = try SymbolStore(directory: folder + "/store")
        let first = store.importPaths([main], progress: nil)
        #expect(first.failures.isEmpty, "\(first.failures)")
        #expect(first.imported.count == 2 && first.imported.allSatisfy { $0.kind == .symbolTable })
        let again = store.importPaths([folder + "/cache"], progress: nil)
        #expect(again.imported.isEmpty && again.alreadyPresent.count == 2 && again.failures.isEmpty)
        #expect(try store.verify().isHealthy)
    }

    @Test(arguments: [true, false])
    func theRicherTableWins(localsFirst: Bool) throws {
        let folder = try StoreFixtures.scratchFolder()
        let full = try CacheFixture.make("ios16", in: folder + "/full")
        let bare = try CacheFixture.make("ios16", in: folder + "/bare", extra: ["--no-locals"])
        let store = try SymbolStore(directory: folder + "/store")
        let order = localsFirst ? [full, bare] : [bare, full]
        let summaries = order.map { store.importPaths([$0], progress: nil) }
        #expect(summaries.allSatisfy { $0.failures.isEmpty })
        #expect(try store.list().count == 2)
        #expect(try store.list().allSatisfy { $0.kind == .symbolTable })
        if localsFirst {
            #expect(summaries[1].alreadyPresent.count == 2)
        } else {
            #expect(summaries[0].imported.allSatisfy { $0.kind == .exports })
            #expect(summaries[1].imported.count == 2)
        }
    }

    @Test func anImageCutShortFailsAloneAndTheOthersStay() throws {
        let folder = try StoreFixtures.scratchFolder()
        let main = try CacheFixture.make("ios16", in: folder + "/cache")
        try FileHandle(forUpdatingAtPath: main + ".01").map {
            try $0.truncate(atOffset: 0x6000)
            try $0.close()
        }
        let store = try SymbolStore(directory: folder + "/store")
        let summary = store.importPaths([main], progress: nil)
        #expect(summary.imported.count == 1)
        #expect(summary.failures.count == 1)
        #expect(summary.failures.first?.error.message.contains("cut short") == true, "\(summary.failures)")
        #expect(try store.list().count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory).isEmpty)
        #expect(try store.verify().isHealthy)
    }

    @Test(arguments: ["zip", "tar"])
    func aSplitCacheInAnArchive(format: String) throws {
        let folder = try StoreFixtures.scratchFolder()
        _ = try CacheFixture.make("ios16", in: folder + "/cache")
        let archive = folder + "/cache." + format
        let script = """
            import os, sys, tarfile, zipfile
            src, out, kind = sys.argv[1:]
            names = sorted(os.listdir(src))
            if kind == "zip":
                with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                    for n in names: z.write(os.path.join(src, n), "caches/" + n)
            else:
                with tarfile.open(out, "w") as t:
                    for n in names: t.add(os.path.join(src, n), "caches/" + n)
            """
        let made = try ProcessRunner.run("python3", ["-c", script, folder + "/cache", archive, format])
        #expect(made.status == 0, "\(made.stderrText)")
        let store = try SymbolStore(directory: folder + "/store")
        let summary = store.importPaths([archive], progress: nil)
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        #expect(summary.imported.count == 2 && summary.imported.allSatisfy { $0.kind == .symbolTable })
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory).isEmpty)
        let again = store.importPaths([archive], progress: nil)
        #expect(again.alreadyPresent.count == 2 && again.imported.isEmpty)
    }
}
