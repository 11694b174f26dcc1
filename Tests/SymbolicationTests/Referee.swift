// The referee for symbol lookups: llvm-symbolizer-14 --inlines, run on the same symbol file at
// the adjusted addresses, and llvm-objdump-14 for the __TEXT vmaddr. Tests compare our answers
// with these tools' answers, never with our own earlier output.

import Foundation
import TestSupport

struct RefereeFrame: Equatable, CustomStringConvertible {
    var function: String
    var file: String
    var line: Int

    var description: String { "\(function) \(file):\(line)" }
}

enum Referee {
    static let symbolizer = "/usr/bin/llvm-symbolizer-14"
    static let objdump = "/usr/bin/llvm-objdump-14"

    static var available: Bool { FileManager.default.isExecutableFile(atPath: symbolizer) }

    /// Inline chains (innermost first) for each address, raw (mangled) names.
    static func symbolize(_ file: String, arch: String?, addresses: [UInt64]) throws -> [[RefereeFrame]] {
        var args = ["--inlines", "--no-demangle", "--output-style=JSON", "--obj=\(file)"]
        if let arch { args.append("--default-arch=\(arch)") }
        args += addresses.map { "0x" + String($0, radix: 16) }
        let output = try run(symbolizer, args)
        var result: [[RefereeFrame]] = []
        var objects: [[String: Any]] = []
        for line in output.split(separator: "\n") where !line.isEmpty {
            let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
            if let array = value as? [[String: Any]] { objects += array }
            if let object = value as? [String: Any] { objects.append(object) }
        }
        for object in objects {
            let symbols = object["Symbol"] as? [[String: Any]] ?? []
            result.append(
                symbols.compactMap { s in
                    guard let name = s["FunctionName"] as? String, !name.isEmpty else { return nil }
                    return RefereeFrame(
                        function: name, file: s["FileName"] as? String ?? "", line: s["Line"] as? Int ?? 0)
                })
        }
        return result
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
    static var corpusAvailable: Bool { Repository.corpusPresent }
}
