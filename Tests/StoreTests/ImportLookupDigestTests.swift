// What an import answers, pinned: every dSYM slice of the Samples and of the shared corpus is
// imported into a fresh store, and the store's answers (function, entry, file and line of every
// frame of the inline chain) at a fixed set of addresses are hashed and compared with the
// digests recorded in Fixtures/import-lookups.tsv. The addresses come from the file, not from
// the table the import built: every line-row and scope boundary the DWARF states, every symbol
// address, and the address before each, so a change to the builder or the build-file layout
// that keeps every answer keeps the digest, and one that changes a single answer does not.
// The digests were recorded from the import as it stood before its builder was made faster;
// `SYMBOLICATE_RECORD_LOOKUP_DIGESTS=1 swift test --filter ImportLookupDigestTests` rewrites
// the file, for a change that means to alter answers (say why in its commit).

import Foundation
import Import
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles
@testable import Store

// Serialized: when recording, both tests rewrite the one fixture file.
@Suite(.serialized, .tags(.slow))
struct ImportLookupDigestTests {
    static let fixture = Repository.root + "/Tests/StoreTests/Fixtures/import-lookups.tsv"
    static var recording: Bool { ProcessInfo.processInfo.environment["SYMBOLICATE_RECORD_LOOKUP_DIGESTS"] == "1" }

    /// One recorded row: where the dSYM is (`samples/...` or `corpus/...`), the slice, and the digest.
    struct Row: Equatable {
        var file: String
        var uuid: String
        var arch: String
        var addresses: Int
        var digest: String

        var line: String { [file, uuid, arch, String(addresses), digest].joined(separator: "\t") }
    }

    /// Every dSYM bundle to pin, by its name in the fixture and its path here.
    static func bundles(corpus: Bool) -> [(name: String, path: String)] {
        var out: [(String, String)] = []
        for variant in SampleFiles.variants {
            for file in (try? SymbolFileFinder.objectFiles(in: variant)) ?? [] where file.contains(".dSYM/") {
                out.append(("samples/" + file.dropFirst(SampleFiles.samplesBuild.count + 1), file))
            }
        }
        if corpus {
            for bundle in SampleFiles.corpusDSYMs {
                for file in (try? SymbolFileFinder.objectFiles(in: bundle)) ?? [] {
                    out.append(("corpus/" + file.dropFirst(SampleFiles.corpus.count + 1), file))
                }
            }
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// FNV-1a, 64 bits: enough to tell two sets of answers apart, and written out in the test.
    struct FNV1a {
        private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ text: String) {
            for byte in text.utf8 {
                value ^= UInt64(byte)
                value &*= 0x0000_0100_0000_01b3
            }
        }
        var hex: String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }

    /// The addresses a slice is probed at, from its DWARF and its symbol table.
    static func addresses(_ slice: ObjectSlice) throws -> [UInt64] {
        let sections: [String: ByteReader]
        let pointerSize: Int
        let symbols: [RawSymbol]
        switch slice.format {
        case .machO(let m): (sections, pointerSize, symbols) = (try m.debugSections(), m.is64 ? 8 : 4, try m.symbols())
        case .elf(let e): (sections, pointerSize, symbols) = (try e.debugSections(), e.is64 ? 8 : 4, try e.symbols())
        }
        let info = try DebugInfoReader.read(sections: sections, pointerSize: pointerSize, backend: .own(threads: 1))
        var points = Set<UInt64>()
        for l in info.lines {
            points.insert(l.start)
            points.insert(l.end)
        }
        for s in info.scopes {
            points.insert(s.start)
            points.insert(s.end)
        }
        for s in symbols {
            points.insert(s.address)
            if s.size != 0 { points.insert(s.address &+ s.size) }
        }
        var out = Set<UInt64>()
        for p in points {
            out.insert(p)
            out.insert(p &- 1)
        }
        return out.sorted()
    }

    /// The digest of what `source` answers at `addresses`.
    static func digest(_ source: any SymbolSource, _ addresses: [UInt64]) -> String {
        var hash = FNV1a()
        for address in addresses {
            hash.add(String(address, radix: 16))
            for frame in StoreFixtures.answer(source, address) ?? [] {
                hash.add("\t\(frame.function)@\(String(frame.entry, radix: 16)) \(frame.file ?? "-"):")
                hash.add(frame.line.map(String.init) ?? "-")
            }
            hash.add("\n")
        }
        return hash.hex
    }

    /// Imports every bundle into a fresh store and hashes the store's answers, slice by slice.
    static func rows(corpus: Bool) throws -> [Row] {
        var rows: [Row] = []
        for (name, path) in bundles(corpus: corpus) {
            let dir = try StoreFixtures.scratchFolder()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let store = try SymbolStore(directory: dir + "/store")
            for slice in try ObjectFile.slices(atPath: path) where slice.info.kind == .debugInfo {
                _ = try store.importSlice(slice, source: path)
                let source = try #require(try store.source(for: slice.info.uuid, arch: slice.info.arch))
                let addresses = try addresses(slice)
                rows.append(
                    Row(
                        file: name, uuid: slice.info.uuid.uuidString, arch: slice.info.arch.rawValue,
                        addresses: addresses.count, digest: digest(source, addresses)))
            }
        }
        return rows
    }

    static func recorded() throws -> [Row] {
        let text = try String(contentsOfFile: fixture, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 5, let n = Int(f[3]) else { return nil }
            return Row(file: f[0], uuid: f[1], arch: f[2], addresses: n, digest: f[4])
        }
    }

    @Test(.enabled(if: !SampleFiles.variants.isEmpty, "no Samples builds in Samples/build"))
    func samplesAnswerAsRecorded() throws {
        let rows = try Self.rows(corpus: false)
        #expect(rows.count >= 8)
        try compare(rows, prefix: "samples/")
    }

    @Test(.tags(.corpus), .needsCorpus)
    func corpusAnswersAsRecorded() throws {
        let rows = try Self.rows(corpus: true).filter { $0.file.hasPrefix("corpus/") }
        #expect(!rows.isEmpty)
        try compare(rows, prefix: "corpus/")
    }

    func compare(_ rows: [Row], prefix: String) throws {
        if Self.recording {
            let kept = ((try? Self.recorded()) ?? []).filter { !$0.file.hasPrefix(prefix) }
            let all = (kept + rows).sorted { ($0.file, $0.arch) < ($1.file, $1.arch) }
            let header = "# dSYM\tUUID\tarch\taddresses\tFNV-1a of the answers (ImportLookupDigestTests)\n"
            try (header + all.map(\.line).joined(separator: "\n") + "\n").write(
                toFile: Self.fixture, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try Self.recorded().filter { $0.file.hasPrefix(prefix) }
        for row in rows {
            let known = recorded.first { $0.file == row.file && $0.uuid == row.uuid && $0.arch == row.arch }
            #expect(known != nil, "\(row.file) \(row.arch): no recorded digest")
            if let known {
                #expect(known == row, "\(row.file) \(row.arch): answers differ from the recorded ones")
            }
        }
        #expect(rows.count == recorded.count, "\(recorded.count) recorded slices, \(rows.count) imported")
    }
}
