// Test support: paths of the shared corpus and of the Samples builds, running the LLVM tools
// (llvm-symbolizer-14 gives the expected answers), and comparing a SymbolTable with
// llvm-symbolizer at many addresses.

import Foundation
import SymbolicateModel
import TestSupport

@testable import ObjectFiles

enum Fixtures {
    static let repo = URL(fileURLWithPath: Repository.root)
    static var corpus: String { Repository.corpus }
    static var samples: String { Repository.samplesBuild }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// A fresh temporary folder, removed by the caller with `cleanup`.
    static func temporaryDirectory() throws -> String { try Repository.scratchFolder("objectfiles") }

    static func cleanup(_ dir: String) { try? FileManager.default.removeItem(atPath: dir) }
}

struct ToolResult {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs a program (found on PATH) and collects its output.
func run(_ tool: String, _ arguments: [String], input: String? = nil) throws -> ToolResult {
    let result = try ProcessRunner.run(tool, arguments, stdin: input.map { Array($0.utf8) })
    return ToolResult(status: result.status, output: result.stdoutText, errors: result.stderrText)
}

func toolExists(_ tool: String) -> Bool { ProcessRunner.exists(tool) }

enum Symbolizer {
    /// llvm-symbolizer's chains (innermost first) at each address; an empty chain where it knows nothing.
    static func chains(obj: String, arch: String?, addresses: [UInt64]) throws -> [[SymbolizerLevel]] {
        try LLVMSymbolizer.levels(obj: obj, arch: arch, addresses: addresses).map { chain in
            chain == [SymbolizerLevel(function: "", file: "", line: 0)] ? [] : chain
        }
    }

    static func ours(_ table: SymbolTable, _ address: UInt64) -> [SymbolizerLevel] {
        guard let chain = table.lookup(address) else { return [] }
        return chain.map {
            SymbolizerLevel(function: $0.function == "??" ? "" : $0.function, file: $0.file ?? "", line: $0.line ?? 0)
        }
    }

    /// Addresses to compare at: evenly spread over __TEXT, plus starts and midpoints of the
    /// table's ranges (at most `limit` in all).
    static func sampleAddresses(_ table: SymbolTable, limit: Int = 400) -> [UInt64] {
        var set: Set<UInt64> = []
        let b = table.build
        if b.textSize > 0 {
            for i in 0..<100 { set.insert(b.textVMAddress + b.textSize / 100 * UInt64(i) + UInt64(i % 4)) }
        }
        let r = table.ranges
        let step = max(1, r.count / max(1, (limit - set.count) / 3))
        var i = 0
        while i < r.count {
            set.insert(r[i].start)
            if i + 1 < r.count {
                set.insert(r[i].start + (r[i + 1].start - r[i].start) / 2)
                set.insert(r[i + 1].start - 1)
            }
            i += step
        }
        // A size-less last symbol reaches the end of the address space; its closing gap starts at the top.
        return set.filter { $0 != .max }.sorted()
    }

    /// Mismatches between our table and llvm-symbolizer (empty when they agree everywhere).
    static func compare(_ table: SymbolTable, obj: String, arch: String?, addresses: [UInt64]) throws -> [String] {
        let expected = try chains(obj: obj, arch: arch, addresses: addresses)
        var mismatches: [String] = []
        for (a, want) in zip(addresses, expected) {
            let got = ours(table, a)
            if got != want {
                mismatches.append("0x\(String(a, radix: 16)): llvm \(want) ours \(got)")
            }
        }
        return mismatches
    }
}
