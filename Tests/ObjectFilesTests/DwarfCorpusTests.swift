// Every dSYM slice of the shared corpus, read through our DWARF path and compared with
// llvm-symbolizer-14 at a few hundred addresses each: function chain, file and line must agree.

import Foundation
import SymbolicateModel
import Testing
@testable import ObjectFiles

struct DwarfCorpusTests {
    static func corpusDSYMs() -> [String] {
        guard Fixtures.exists(Fixtures.corpus) else { return [] }
        return (try? SymbolFileFinder.objectFiles(in: Fixtures.corpus))?.filter { $0.contains(".dSYM/") } ?? []
    }

    @Test func everyCorpusSliceMatchesLLVMSymbolizer() throws {
        let files = Self.corpusDSYMs()
        guard !files.isEmpty else {
            print("skipped: no corpus dSYMs at \(Fixtures.corpus)")
            return
        }
        var total = 0
        for file in files {
            let slices = try ObjectFile.slices(atPath: file)
            for slice in slices {
                let table = try slice.loadSymbolTable()
                let addresses = Symbolizer.sampleAddresses(table)
                let arch = slices.count > 1 ? slice.info.arch.rawValue : nil
                let mismatches = try Symbolizer.compare(table, obj: file, arch: arch, addresses: addresses)
                total += addresses.count
                #expect(mismatches.isEmpty, "\(file) \(slice.info.arch): \(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
            }
        }
        print("compared \(total) addresses over \(files.count) corpus dSYMs")
    }
}
