// Every dSYM slice of the shared corpus, read through our DWARF path and compared with
// llvm-symbolizer-14 at a few hundred addresses each: function chain, file and line must agree.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

@Suite(.tags(.corpus, .slow))
struct DwarfCorpusTests {
    static func corpusDSYMs() -> [String] {
        guard Fixtures.exists(Fixtures.corpus) else { return [] }
        return (try? SymbolFileFinder.objectFiles(in: Fixtures.corpus))?.filter { $0.contains(".dSYM/") } ?? []
    }

    @Test(.enabled(if: !corpusDSYMs().isEmpty, "no corpus dSYMs at ../shared/corpus/real"))
    func everyCorpusSliceMatchesLLVMSymbolizer() throws {
        let files = Self.corpusDSYMs()
        var total = 0
        for file in files {
            let slices = try ObjectFile.slices(atPath: file)
            for slice in slices {
                let table = try slice.loadSymbolTable()
                let addresses = Symbolizer.sampleAddresses(table)
                let arch = slices.count > 1 ? slice.info.arch.rawValue : nil
                let mismatches = try Symbolizer.compare(table, obj: file, arch: arch, addresses: addresses)
                total += addresses.count
                #expect(
                    mismatches.isEmpty,
                    "\(file) \(slice.info.arch): \(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
            }
        }
        print("compared \(total) addresses over \(files.count) corpus dSYMs")
    }

    /// Loads from many threads at once (each reading its units on several threads of its own)
    /// must agree with a serial load.
    @Test(.enabled(if: !corpusDSYMs().isEmpty, "no corpus dSYMs at ../shared/corpus/real"))
    func concurrentLoadsAgree() throws {
        let files = Array(Self.corpusDSYMs().prefix(6))
        let slices = try files.flatMap { try ObjectFile.slices(atPath: $0) }
        let serial = try slices.map { try $0.loadSymbolTable() }
        let results = ResultBox(count: slices.count * 3)
        DispatchQueue.concurrentPerform(iterations: slices.count * 3) { i in
            let table = try? slices[i % slices.count].loadSymbolTable()
            results.set(i, table.map { ($0.ranges, $0.locations, $0.functions, $0.files) })
        }
        for i in 0..<(slices.count * 3) {
            let t = serial[i % slices.count]
            let got = results.get(i)
            #expect(got?.0 == t.ranges && got?.1 == t.locations && got?.2 == t.functions && got?.3 == t.files)
        }
    }
}

private final class ResultBox: @unchecked Sendable {
    typealias Value = ([SymbolTable.Range], [SymbolTable.Location], [SymbolTable.Function], [String])
    private let lock = NSLock()
    private var values: [Value?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ v: Value?) { lock.withLock { values[i] = v } }
    func get(_ i: Int) -> Value? { lock.withLock { values[i] } }
}
