// `symbolicate lookup`: atos's interface. Addresses are looked up as given (atos does not
// adjust return addresses); with -l they are runtime addresses of an image loaded there.
// Output, one address per line (or one line per inline level with -i):
//   function (in Image) (File.swift:12)      with debug information
//   function (in Image) + 40                 symbol table only
//   0x1000                                   not found

import Foundation
import ObjectFiles
import Symbolication
import SymbolicateModel

enum LookupCommand: Command {
    static let name = "lookup"
    static let summary = "Look addresses up in one symbol file, as atos does"
    static let help = """
        USAGE: symbolicate lookup -o DSYM_OR_BINARY [-arch ARCH] [-l LOADADDR] [-i] [ADDR...]

        Prints the function and file:line for each ADDR (from the arguments, or whitespace-separated
        on stdin when none are given), in atos's format.

        OPTIONS:
          -o PATH         The symbol file: a .dSYM bundle, its DWARF file, a binary or an ELF file.
          -arch ARCH      The slice of a universal file (arm64, arm64e, x86_64, ...).
          -l LOADADDR     The image's load address: ADDRs are then runtime addresses.
          -i              Show inlined functions, innermost first, one line each.
          -h, --help      Show this help.

        EXIT STATUS: 0 ok, 65 unreadable symbol file, 64 usage error, 1 other failure.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["-o", "-arch", "-l"], flags: ["-i"], aliases: ["--arch": "-arch"])
        guard let path = args.value("-o") else { throw UsageError("-o DSYM_OR_BINARY is required") }
        var loadAddress: UInt64? = nil
        if let l = args.value("-l") {
            guard let value = parseAddress(l) else { throw UsageError("-l expects an address, got '\(l)'") }
            loadAddress = value
        }
        let slice = try pickSlice(path: path, arch: args.value("-arch").map(Arch.init(rawValue:)))
        let table = try slice.loadSymbolTable()
        let symbolicator = Symbolicator(
            locator: SymbolLocatorChain([]),
            options: SymbolicationOptions(inlines: args.has("-i"), adjustReturnAddresses: false))

        var words = Array(args.positionals)
        if words.isEmpty {
            let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            words = input.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).map(String.init)
        }
        var out = ""
        for word in words {
            guard let address = parseAddress(word) else {
                out += "\(word)\n"
                continue
            }
            let offset: UInt64
            if let loadAddress {
                guard address >= loadAddress else {
                    out += "\(word)\n"
                    continue
                }
                offset = address - loadAddress
            } else {
                guard address >= table.build.textVMAddress else {
                    out += "\(word)\n"
                    continue
                }
                offset = address - table.build.textVMAddress
            }
            let result = symbolicator.lookup(offset, in: table, isReturnAddress: false)
            guard result.status == .symbolicated else {
                out += "\(word)\n"
                continue
            }
            for frame in result.frames {
                out += atosLine(frame, image: table.build.name)
            }
        }
        try Console.out(out)
        return ExitCode.ok
    }

    static func atosLine(_ frame: SymbolicatedFrame, image: String) -> String {
        if let file = frame.fileName {
            return "\(frame.symbol) (in \(image)) (\(file):\(frame.line ?? 0))\n"
        }
        return "\(frame.symbol) (in \(image)) + \(frame.symbolOffset ?? 0)\n"
    }

    static func pickSlice(path: String, arch: Arch?) throws -> ObjectSlice {
        var slices: [ObjectSlice] = []
        for file in try SymbolFileFinder.objectFiles(in: path) {
            slices += try ObjectFile.slices(atPath: file)
        }
        guard !slices.isEmpty else {
            throw SymbolicateError(.badInput, "holds no Mach-O or ELF symbol file", path: path)
        }
        if let arch {
            if let exact = slices.first(where: { $0.info.arch == arch }) { return exact }
            if let compatible = slices.first(where: { $0.info.arch.isCompatible(with: arch) }) { return compatible }
            let have = slices.map(\.info.arch.rawValue).joined(separator: ", ")
            throw SymbolicateError(.badInput, "has no \(arch) slice (it has: \(have))", path: path)
        }
        if slices.count == 1, let only = slices.first { return only }
        let have = slices.map { "\($0.info.arch) (\($0.info.name))" }.joined(separator: ", ")
        throw UsageError("\(path) holds several slices: \(have); choose one with -arch")
    }
}
