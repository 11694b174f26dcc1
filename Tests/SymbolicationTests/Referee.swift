// The referee for symbol lookups: llvm-symbolizer-14 --inlines (TestSupport's LLVMSymbolizer), run
// on the same symbol file at the adjusted addresses, and llvm-objdump-14 for the __TEXT vmaddr.
// Tests compare our answers with these tools' answers, never with our own earlier output.

import Foundation
import TestSupport

enum Referee {
    static let objdump = "/usr/bin/llvm-objdump-14"

    /// Inline chains (innermost first) for each address, raw (mangled) names; levels without a
    /// name are left out.
    static func symbolize(_ file: String, arch: String?, addresses: [UInt64]) throws -> [[SymbolizerLevel]] {
        try LLVMSymbolizer.levels(obj: file, arch: arch, addresses: addresses).map { chain in
            chain.filter { !$0.function.isEmpty }
        }
    }

    /// `__TEXT` vmaddr of the slice of `file` for `arch`.
    static func textVMAddress(_ file: String, arch: String) throws -> UInt64? {
        let output = try run(objdump, ["--macho", "--private-headers", "--arch=\(arch)", file])
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for (i, line) in lines.enumerated() where line == "segname __TEXT" && i + 1 < lines.count {
            let parts = lines[i + 1].split(separator: " ")
            if parts.count == 2, parts[0] == "vmaddr" {
                return UInt64(parts[1].dropFirst(2), radix: 16)
            }
        }
        return nil
    }

    static func run(_ tool: String, _ args: [String]) throws -> String {
        try ProcessRunner.run(tool, args).stdoutText
    }
}

/// The fixture folders, under the names the symbolication tests use.
enum Paths {
    static var repository: String { Repository.root }
    static var corpus: String { Repository.corpus }
    static var samples: String { Repository.samples }
}
