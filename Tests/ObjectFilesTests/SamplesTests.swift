// The Samples builds (iOS arm64 DWARF 4 and 5, simulator x86_64 DWARF 4, universal DWARF 5):
// every dSYM slice against llvm-symbolizer-14, every app binary's symbol table (no DWARF)
// likewise, and build identities against Samples/build/images.tsv.

import Foundation
import SymbolicateModel
import Testing

@testable import ObjectFiles

struct SamplesTests {
    static func variants() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: Fixtures.samples) else { return [] }
        return names.filter { !$0.contains(".") }.sorted().map { Fixtures.samples + "/" + $0 }
    }

    @Test(.enabled(if: !variants().isEmpty, "no Samples builds in Samples/build"))
    func dSYMsMatchLLVMSymbolizer() throws {
        let variants = Self.variants()
        var compared = 0
        var dwarf5 = 0
        for variant in variants {
            let files = try SymbolFileFinder.objectFiles(in: variant).filter { $0.contains(".dSYM/") }
            #expect(files.count >= 2, "\(variant): \(files)")
            for file in files {
                let slices = try ObjectFile.slices(atPath: file)
                for slice in slices {
                    #expect(slice.info.kind == .debugInfo)
                    let table = try slice.loadSymbolTable()
                    #expect(table.ranges.count > 10, "\(file) \(slice.info.arch) has only \(table.ranges.count) ranges")
                    let addresses = Symbolizer.sampleAddresses(table)
                    let arch = slices.count > 1 ? slice.info.arch.rawValue : nil
                    let mismatches = try Symbolizer.compare(table, obj: file, arch: arch, addresses: addresses)
                    #expect(
                        mismatches.isEmpty,
                        "\(file) \(slice.info.arch): \(mismatches.count) mismatches: \(mismatches.prefix(5))")
                    compared += addresses.count
                }
                if variant.hasSuffix("dwarf5") { dwarf5 += 1 }
            }
        }
        #expect(dwarf5 >= 4)
        print("compared \(compared) addresses in the Samples dSYMs")
    }

    @Test(.enabled(if: !variants().isEmpty, "no Samples builds in Samples/build"))
    func appBinariesFallBackToTheirSymbolTable() throws {
        let variants = Self.variants()
        for variant in variants {
            let files = try SymbolFileFinder.objectFiles(in: variant + "/HoldApp.app")
            #expect(files.count == 2, "\(files)")
            for file in files {
                let slices = try ObjectFile.slices(atPath: file)
                for slice in slices {
                    #expect(slice.info.kind == .symbolTable)
                    let table = try slice.loadSymbolTable()
                    #expect(table.files.isEmpty)
                    #expect(
                        table.locations.allSatisfy {
                            $0.file == SymbolTable.none && $0.line == SymbolTable.none && $0.parent == SymbolTable.none
                        })
                    // nlist names lose their leading underscore (`_main` -> `main`), as atos shows them.
                    if file.hasSuffix("/HoldApp") {
                        #expect(table.functions.contains { $0.name == "main" })
                        #expect(!table.functions.contains { $0.name == "_main" })
                    }
                    let addresses = Symbolizer.sampleAddresses(table, limit: 200)
                    let arch = slices.count > 1 ? slice.info.arch.rawValue : nil
                    let mismatches = try Symbolizer.compare(table, obj: file, arch: arch, addresses: addresses)
                    #expect(mismatches.isEmpty, "\(file) \(slice.info.arch): \(mismatches.prefix(5))")
                }
            }
        }
    }

    @Test(.enabled(if: Fixtures.exists(Fixtures.samples + "/images.tsv"), "no Samples/build/images.tsv"))
    func buildIdentitiesMatchTheManifest() throws {
        let text = try String(contentsOfFile: Fixtures.samples + "/images.tsv", encoding: .utf8)
        var checked = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 9 else { continue }
            let uuid = BuildID(string: f[3])
            let text = UInt64(f[4].dropFirst(2), radix: 16)
            let size = UInt64(f[5].dropFirst(2), radix: 16)
            for path in [f[7], f[8]] {
                let slices = try ObjectFile.slices(atPath: Fixtures.samples + "/" + path)
                let slice = slices.first { $0.info.arch.rawValue == f[2] }
                #expect(slice != nil, "\(path) has no \(f[2]) slice")
                #expect(slice?.info.uuid == uuid, "\(path) \(f[2])")
                #expect(slice?.info.textVMAddress == text, "\(path) \(f[2])")
                #expect(slice?.info.textSize == size, "\(path) \(f[2])")
                #expect(slice?.info.name == f[1])
                checked += 1
            }
        }
        #expect(checked >= 10)
    }
}
