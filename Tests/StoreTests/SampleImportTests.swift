// Importing real symbol files: the Samples builds (DWARF 4 and 5, arm64, x86_64, universal; each
// app binary next to its dSYM) and every dSYM of the shared corpus. For every slice the store
// keeps, lookups through the store must equal lookups in the SymbolTable read from the file.
// Also: a build file of an older schema is rebuilt from its source file on first use.

import Foundation
import Import
import ObjectFiles
import SymbolicateModel
import TestSupport
import Testing

@testable import BuildFiles
@testable import Store

enum SampleFiles {
    /// The repository root (TestSupport finds it, through a link if need be).
    static var repository: String { Repository.root }
    static var samplesBuild: String { Repository.samplesBuild }
    static var corpus: String { Repository.corpus }

    /// The sample variant folders (ios-arm64-dwarf4, ...), or [] when Samples are not built.
    static var variants: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: samplesBuild)) ?? []
        return names.sorted().map { samplesBuild + "/" + $0 }.filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue
        }
    }

    /// Every `*.dSYM` bundle of the corpus (outermost only).
    static var corpusDSYMs: [String] {
        guard let walker = FileManager.default.enumerator(atPath: corpus) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            if relative.hasSuffix(".dSYM"), !found.contains(where: { relative.hasPrefix($0 + "/") }) {
                found.append(relative)
                walker.skipDescendants()
            }
        }
        return found.sorted().map { corpus + "/" + $0 }
    }

    /// Every slice of every object file under `paths`, with its table.
    static func tables(under paths: [String]) throws -> [SymbolTable] {
        var tables: [SymbolTable] = []
        for path in paths {
            for file in try SymbolFileFinder.objectFiles(in: path) {
                for slice in try ObjectFile.slices(atPath: file) { tables.append(try slice.loadSymbolTable()) }
            }
        }
        return tables
    }

    /// Checks that the store holds the best table of every (UUID, arch) and answers as it does.
    static func expectStoreMatches(_ store: SymbolStore, _ tables: [SymbolTable]) throws -> (builds: Int, probes: Int) {
        var best: [String: SymbolTable] = [:]
        for t in tables {
            let key = "\(t.build.uuid)-\(t.build.arch)"
            if let known = best[key], known.build.kind >= t.build.kind { continue }
            best[key] = t
        }
        var probes = 0
        for (_, table) in best.sorted(by: { $0.key < $1.key }) {
            let source = try #require(try store.source(for: table.build.uuid, arch: table.build.arch))
            #expect(source.build.kind == table.build.kind, "\(table.build.name) \(table.build.arch)")
            #expect(source.build.arch == table.build.arch && source.build.textVMAddress == table.build.textVMAddress)
            probes += StoreFixtures.expectSameLookups(source, table)
        }
        #expect(try store.list().count == best.count)
        return (best.count, probes)
    }
}

@Suite(.tags(.slow), .enabled(if: !SampleFiles.variants.isEmpty, "Samples/build is missing: run Samples/generate.sh"))
struct SampleImportTests {
    @Test func samplesImportAndLookUpLikeTheFiles() throws {
        let variants = SampleFiles.variants
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let summary = store.importPaths(variants, progress: nil)
        #expect(summary.failures.isEmpty, "\(summary.failures)")
        let tables = try SampleFiles.tables(under: variants)
        let result = try SampleFiles.expectStoreMatches(store, tables)
        #expect(result.builds == summary.imported.count)
        // Each app binary sits next to its dSYM: the binary's symbol table never wins.
        #expect(try store.list().allSatisfy { $0.kind == .debugInfo })
        #expect(summary.imported.count + summary.alreadyPresent.count == tables.count)
        #expect(result.probes > 1000)

        // Idempotent: a second import changes nothing.
        let before = try StoreFixtures.snapshot(store)
        let again = store.importPaths(variants, progress: nil)
        #expect(again.imported.isEmpty && again.failures.isEmpty && again.alreadyPresent.count == tables.count)
        #expect(try StoreFixtures.snapshot(store) == before)
    }

    @Test func binaryFirstThenDSYMSupersedes() throws {
        let variant = try #require(SampleFiles.variants.first, "Samples/build is missing")
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let app = store.importPaths([variant + "/HoldApp.app"], progress: nil)
        #expect(app.failures.isEmpty && !app.imported.isEmpty)
        #expect(try store.list().allSatisfy { $0.kind == .symbolTable })
        let dsym = store.importPaths([variant + "/HoldApp.app.dSYM"], progress: nil)
        #expect(dsym.imported.map(\.kind) == [.debugInfo])
        let uuid = try #require(dsym.imported.first?.uuid)
        let row = try #require(try store.builds(matching: uuid).first)
        #expect(row.kind == .debugInfo && row.sourcePath.hasSuffix("/DWARF/HoldApp"))
        let superseded = store.importPaths([variant + "/HoldApp.app"], progress: nil)
        #expect(superseded.imported.isEmpty && superseded.alreadyPresent.count == app.imported.count)
        _ = try SampleFiles.expectStoreMatches(
            store,
            try SampleFiles.tables(under: [variant + "/HoldApp.app.dSYM"])
                + SampleFiles.tables(under: [variant + "/HoldApp.app/Frameworks"]))
    }

    @Test func outdatedBuildFileIsRebuiltFromItsSource() throws {
        let variant = try #require(SampleFiles.variants.first, "Samples/build is missing")
        let dsym = variant + "/HoldApp.app.dSYM"
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let summary = store.importPaths([dsym], progress: nil)
        let item = try #require(summary.imported.first)
        let row = try #require(try store.builds(matching: item.uuid).first)
        try Database(path: store.absolutePath(row.file), mode: .readWrite).exec("PRAGMA user_version=0")
        #expect(try store.verify().problems.map(\.kind) == [.outdated])

        let fresh = try SymbolStore(directory: store.directory, rebuilder: SourceRebuilder())
        let source = try #require(try fresh.source(for: item.uuid, arch: item.arch))
        StoreFixtures.expectSameLookups(source, try #require(try SampleFiles.tables(under: [dsym]).first))
        #expect(try fresh.verify().isHealthy)
        #expect(try fresh.list().first?.status == .ready)
    }

    /// A lookup that read a build's row just before another process removed the build finds its
    /// file gone. It must not rebuild the build from its source: the removal stands.
    @Test func aLookupRacingARemoveDoesNotBringTheBuildBack() throws {
        let variant = try #require(SampleFiles.variants.first, "Samples/build is missing")
        let folder = try StoreFixtures.scratchFolder()
        let reader = try SymbolStore(directory: folder, rebuilder: SourceRebuilder())
        let remover = try SymbolStore(directory: folder)
        let item = try #require(reader.importPaths([variant + "/HoldApp.app.dSYM"], progress: nil).imported.first)
        let row = try #require(try reader.builds(matching: item.uuid).first)
        #expect(try remover.remove([item.uuid]).count == 1)
        let source = try? reader.openSource(row)
        #expect(source == nil, "the removed build was rebuilt")
        #expect(try remover.list().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: remover.buildsDirectory).isEmpty)
    }
}

@Suite(
    .tags(.corpus, .slow),
    .enabled(if: !SampleFiles.corpusDSYMs.isEmpty, "the shared corpus is absent (../shared/corpus/real)"))
struct CorpusImportTests {
    @Test func corpusDSYMsImportAndLookUpLikeTheFiles() throws {
        let dsyms = SampleFiles.corpusDSYMs
        let store = try SymbolStore(directory: try StoreFixtures.scratchFolder())
        let summary = store.importPaths(dsyms, progress: nil)
        let tables = try SampleFiles.tables(under: dsyms)
        // Corpus files the reader refuses must be refused by the import too, with a reason.
        for failure in summary.failures { #expect(!failure.error.message.isEmpty) }
        let result = try SampleFiles.expectStoreMatches(store, tables)
        #expect(result.builds >= 10, "\(result.builds) builds from \(dsyms.count) dSYMs")
    }
}
