// The referee for address lookups: llvm-symbolizer-14 --inlines, asked about the same symbol
// file at the same addresses. The object-file, symbolication and atos tests compare our answers
// with its answers, never with our own earlier output; each decides how to read a level without
// a name (a gap, padding named only by the symbol table).

import Foundation

/// One level of llvm-symbolizer's inline chain: "" for a missing name or file, 0 for a missing line.
public struct SymbolizerLevel: Hashable, Sendable, CustomStringConvertible {
    public var function: String
    public var file: String
    public var line: Int

    public init(function: String, file: String, line: Int) {
        self.function = function
        self.file = file
        self.line = line
    }

    public var description: String { "\(function) \(file):\(line)" }
}

public enum LLVMSymbolizer {
    public static let path = "/usr/bin/llvm-symbolizer-14"

    /// Whether llvm-symbolizer-14 is installed (tests that need it are disabled without it).
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// llvm-symbolizer's levels at each of `addresses` in `obj` (the `arch` slice of a universal
    /// file), innermost first, as it prints them: an address it knows nothing of has one level
    /// with no name, file or line. Names stay mangled unless `demangle`.
    public static func levels(
        obj: String, arch: String?, addresses: [UInt64], demangle: Bool = false
    ) throws -> [[SymbolizerLevel]] {
        var arguments = ["--inlines", "--output-style=JSON", "--obj=\(obj)"]
        if !demangle { arguments.append("--no-demangle") }
        if let arch { arguments.append("--default-arch=\(arch)") }
        let input = addresses.map { "0x" + String($0, radix: 16) + "\n" }.joined()
        let result = try ProcessRunner.run(path, arguments, stdin: Array(input.utf8))
        guard result.status == 0 else { throw Failure("llvm-symbolizer-14 failed on \(obj): \(result.stderrText)") }
        var answers: [[SymbolizerLevel]] = []
        for line in result.stdoutText.split(separator: "\n") where !line.isEmpty {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Failure("llvm-symbolizer-14 printed \(line)")
            }
            let symbols = object["Symbol"] as? [[String: Any]] ?? []
            answers.append(
                symbols.map {
                    SymbolizerLevel(
                        function: $0["FunctionName"] as? String ?? "", file: $0["FileName"] as? String ?? "",
                        line: $0["Line"] as? Int ?? 0)
                })
        }
        guard answers.count == addresses.count else {
            throw Failure("llvm-symbolizer-14 answered \(answers.count) of \(addresses.count) addresses in \(obj)")
        }
        return answers
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
