// `symbolicate lookup`: atos's interface. Addresses are looked up as given (atos does not
// adjust return addresses); with -l they are runtime addresses of an image loaded there, with
// -s of an image slid by SLIDE from its __TEXT vmaddr. They come from the arguments, from -f
// FILE, or from stdin. Output, one address per line (one line per inline level with -i, or
// one line joined by -d's delimiter):
//   function (in Image) (File.swift:12)      with debug information
//   function (in Image) + 40                 symbol table only
//   0x1000                                   not found
// An address that is not a number is an error (exit 65) naming the word and where it came from,
// before anything is printed; -arch must name a slice the file has. With --build-id (a Mach-O
// UUID or an ELF build id, as reports write them) the symbols come from the store instead of a
// file: what a server-side Swift report names an image by.

import Foundation
import ObjectFiles
import Store
import SymbolicateModel
import Symbolication

enum LookupCommand: Command {
    static let name = "lookup"
    static let summary = "Look addresses up in one symbol file, as atos does"
    static let about = """
        USAGE: symbolicate lookup -o DSYM_OR_BINARY [-arch ARCH] [-l LOADADDR | -s SLIDE]
                                  [-i [-d DELIMITER]] [-fullPath] [-f FILE] [ADDR...]
               symbolicate lookup --build-id ID [--store S] [-arch ARCH] [-l LOADADDR | -s SLIDE] ...

        Prints the function and file:line for each ADDR (from the arguments, from -f FILE, or
        whitespace-separated on stdin when neither is given), in atos's format. An ADDR is hex
        with 0x (0x1000), bare hex (1a2b) or decimal digits.

        """

    static let symbolFile = ValueOption<String>(
        "-o", value: "PATH", help: "The symbol file: a .dSYM bundle, its DWARF file, a binary or an ELF file.")
    static let buildID = ValueOption<BuildID>.parsed(
        "--build-id", value: "ID", expected: "a Mach-O UUID or an ELF build id in hex",
        help: "Look up in the store's build of this id (a Mach-O UUID or an ELF build id, as reports write"
            + " them) instead of a file (-o)."
    ) { BuildID(string: $0) }
    static let arch = ValueOption<Arch>(
        ["-arch", "--arch"], value: "ARCH",
        help: "The slice to use (arm64, arm64e, x86_64, ...); it must be one the file has.",
        convert: { Arch(rawValue: $0) })
    static let loadAddress = ValueOption<UInt64>.address(
        "-l", value: "LOADADDR", what: "an address",
        help: "The image's load address: ADDRs are then runtime addresses.")
    static let slide = ValueOption<UInt64>.address(
        "-s", value: "SLIDE", what: "a slide",
        help: "The image's slide: loaded at its __TEXT vmaddr + SLIDE (instead of -l).")
    static let addressFile = ValueOption<String>(
        "-f", value: "FILE", help: "Read the ADDRs from FILE (whitespace-separated; `-` is stdin).")
    static let inlines = FlagOption("-i", help: "Show inlined functions, innermost first, one line each.")
    static let delimiter = ValueOption<String>(
        "-d", value: "DELIMITER",
        help: "Print an address's inlined functions (-i) on one line, joined by DELIMITER (default: one line"
            + " each).")
    static let fullPath = FlagOption(
        "-fullPath", "--fullPath", "-fullpath",
        help: "Print source files with their full path, as the debug information has it.")

    static let options: [any CommandOption] = [
        symbolFile, buildID, arch, loadAddress, slide, addressFile, inlines, delimiter, fullPath, StoreOption.store,
        StoreOption.cache, StoreOption.cacheSize,
    ]

    static let epilogue = """
        EXIT STATUS: 0 ok, 65 unreadable symbol file, a missing -arch slice or an ADDR that is not
        a number, 64 usage error, 1 other failure.

        EXAMPLES:
          symbolicate lookup -o App.app.dSYM -arch arm64 -l 0x102bc4000 -i 0x102bca4bc
          symbolicate lookup -o App.app.dSYM -s 0x2bc4000 -f addresses.txt
          symbolicate lookup --store /srv/symbols --build-id 3f2a9c0e41d7b6a85e0f2c9d1b7a64e3d2c1f0a9 -i 0x4011a8

        """

    struct Settings {
        var inlines = false
        var delimiter: String? = nil
        var fullPath = false
    }

    static func run(_ args: Arguments) throws -> Int32 {
        let path = try args.value(symbolFile)
        let id = try args.value(buildID)
        if path == nil && id == nil { throw UsageError("-o DSYM_OR_BINARY (or --build-id ID) is required") }
        if path != nil && id != nil { throw UsageError("give either -o DSYM_OR_BINARY or --build-id ID, not both") }
        if args.given(loadAddress) && args.given(slide) {
            throw UsageError("give either -l LOADADDR or -s SLIDE, not both")
        }
        let loadedAt = try args.value(loadAddress)
        let slidBy = try args.value(slide)
        let settings = Settings(
            inlines: args.has(inlines), delimiter: try args.value(delimiter), fullPath: args.has(fullPath))
        let words = try addressWords(args)
        let addresses = try parseWords(words)

        let source: any SymbolSource
        if let path {
            source = try pickSlice(path: path, arch: try args.value(arch)).loadSymbolTable()
        } else if let id {
            source = try storedSource(id, arch: try args.value(arch), args)
        } else {
            throw UsageError("-o DSYM_OR_BINARY (or --build-id ID) is required")
        }
        let build = source.build
        let vmaddr = build.textVMAddress
        var base = vmaddr
        if let loadedAt { base = loadedAt }
        if let slidBy {
            let (slid, overflow) = vmaddr.addingReportingOverflow(slidBy)
            guard !overflow else { throw UsageError("-s \(slidBy): __TEXT vmaddr + slide overflows 64 bits") }
            base = slid
        }
        let symbolicator = Symbolicator(
            locator: SymbolLocatorChain([]),
            options: SymbolicationOptions(inlines: settings.inlines, adjustReturnAddresses: false))

        var out = ""
        for (word, address) in zip(words.map(\.text), addresses) {
            guard address >= base else {
                out += "\(word)\n"
                continue
            }
            let result = symbolicator.lookup(address - base, in: source, isReturnAddress: false)
            if result.status == .failed {
                throw SymbolicateError(.io, result.error ?? "the symbols could not be read", path: build.path)
            }
            guard result.status == .symbolicated else {
                out += "\(word)\n"
                continue
            }
            let lines = result.frames.map { atosLine($0, image: build.name, fullPath: settings.fullPath) }
            if let delimiter = settings.delimiter {
                out += lines.joined(separator: delimiter) + "\n"
            } else {
                out += lines.map { $0 + "\n" }.joined()
            }
        }
        try Console.out(out)
        return ExitCode.ok
    }

    /// The store's build of `id` (of `arch` when given; a build id names one build, a UUID one
    /// slice of a universal binary); the store must exist.
    static func storedSource(_ id: BuildID, arch: Arch?, _ args: Arguments) throws -> any SymbolSource {
        guard let store = try StoreOption.open(args, disabled: false, mustExist: true) else {
            throw SymbolicateError(.notFound, "no symbol store to look \(id.uuidString) up in")
        }
        guard let source = try store.source(for: id, arch: arch) else {
            let which = arch.map { " for \($0)" } ?? ""
            throw SymbolicateError(
                .notFound,
                "the store has no build \(id.uuidString)\(which); import its symbol file first (`symbolicate import"
                    + " PATH`), or see `symbolicate list`")
        }
        return source
    }

    /// One word of input and where it was read, for messages.
    struct Word {
        var text: String
        var origin: String
    }

    /// The ADDR words: arguments, then -f FILE, else stdin.
    static func addressWords(_ args: Arguments) throws -> [Word] {
        var words = args.positionals.enumerated().map { Word(text: $1, origin: "argument \($0 + 1)") }
        var sources: [(name: String, bytes: [UInt8])] = []
        if let file = try args.value(addressFile) {
            sources.append((file == "-" ? "stdin" : file, try IO.read(file, expected: "a file of addresses")))
        } else if words.isEmpty {
            sources.append(("stdin", [UInt8](FileHandle.standardInput.readDataToEndOfFile())))
        }
        for source in sources {
            let text = String(decoding: source.bytes, as: UTF8.self)
            // `isNewline`: a CRLF line end is one character, "\r\n", neither "\r" nor "\n".
            let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            for (number, line) in lines.enumerated() {
                for word in line.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                    words.append(Word(text: String(word), origin: "\(source.name) line \(number + 1)"))
                }
            }
        }
        return words
    }

    /// Every word as an address; the first that is not one ends the command before any output.
    static func parseWords(_ words: [Word]) throws -> [UInt64] {
        try words.map { word in
            guard let address = parseAddress(word.text) else {
                throw SymbolicateError(
                    .badInput,
                    "'\(word.text)' (\(word.origin)) is not an address: give hex (0x1000, 1a2b) or decimal digits")
            }
            return address
        }
    }

    static func atosLine(_ frame: SymbolicatedFrame, image: String, fullPath: Bool = false) -> String {
        if let file = fullPath ? frame.file : frame.fileName {
            return "\(frame.symbol) (in \(image)) (\(file):\(frame.line ?? 0))"
        }
        return "\(frame.symbol) (in \(image)) + \(frame.symbolOffset ?? 0)"
    }

    /// The slice to look up in: the one -arch names (exactly: atos does not take an arm64 slice
    /// for arm64e), else the only one. Slices of one build (a dSYM and its binary side by side)
    /// are one choice, its debug information first. Two builds of the arch asked for (an .app
    /// and the frameworks inside it) are refused: neither is taken for the other.
    static func pickSlice(path: String, arch: Arch?) throws -> ObjectSlice {
        var slices: [ObjectSlice] = []
        for file in try SymbolFileFinder.objectFiles(in: path) {
            slices += try ObjectFile.slices(atPath: file)
        }
        guard !slices.isEmpty else {
            throw SymbolicateError(.badInput, "holds no Mach-O or ELF symbol file", path: path)
        }
        var candidates = slices
        if let arch {
            candidates = slices.filter { $0.info.arch == arch }
            guard !candidates.isEmpty else {
                let have = slices.map(\.info.arch.rawValue).joined(separator: ", ")
                throw SymbolicateError(
                    .badInput, "has no \(arch) slice (it has: \(have)); choose one of those with -arch", path: path)
            }
        }
        // One slice of each build, in the order found.
        var seen = Set<BuildKey>()
        let builds = candidates.filter { seen.insert(BuildKey(uuid: $0.info.uuid, arch: $0.info.arch)).inserted }
        if builds.count == 1 {
            return candidates.first { $0.info.kind == .debugInfo } ?? candidates[0]
        }
        if arch == nil, Set(builds.map(\.info.arch)).count == builds.count {
            let have = candidates.map { "\($0.info.arch) (\($0.info.name))" }.joined(separator: ", ")
            throw UsageError("\(path) holds several slices: \(have); choose one with -arch")
        }
        let have = builds.map { "\($0.info.name) \($0.info.arch) (\($0.info.path))" }.joined(separator: ", ")
        let which = arch.map { "several \($0) builds" } ?? "several builds of one arch"
        throw UsageError("\(path) holds \(which): \(have); give -o the .dSYM or binary of the one to look up in")
    }

    private struct BuildKey: Hashable {
        var uuid: BuildID
        var arch: Arch
    }
}
