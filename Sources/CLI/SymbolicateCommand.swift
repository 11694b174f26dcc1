// The default command, with symbolicatecrash's arguments:
//   symbolicate [-o OUT] [-d DSYM]... REPORT [SYMBOL_PATH...]
// Symbol paths come first, then the store. The report goes to OUT (stdout without -o or with
// `-`); a summary of what was found and what is missing goes to stderr.

import Foundation
import Store
import Symbolication
import SymbolicateModel

enum SymbolicateCommand: Command {
    static let name = "symbolicate"
    static let summary = "Symbolicate a crash report (.crash, .ips) with dSYMs, binaries or the store"
    static let help = """
        USAGE: symbolicate [-o OUT] [-d DSYM]... [options] REPORT [SYMBOL_PATH...]

        Rewrites the frames of REPORT (`-` for stdin) into function + file:line, using the symbol
        files in SYMBOL_PATH and -d (dSYM bundles, .app bundles, .xcarchives, folders, Mach-O or ELF
        files), then the symbol store. Every byte that is not a symbolicated frame is kept.

        OPTIONS:
          -o, --output OUT      Write the report to OUT (default: stdout; `-` is stdout).
          -d, --dsym PATH       A symbol path (repeatable), as symbolicatecrash's -d.
          --store DIR           The symbol store (default: $SYMBOLICATE_STORE, else
                                $XDG_DATA_HOME/symbolicate or ~/.local/share/symbolicate, if present).
          --no-store            Use only the symbol paths given.
          --format FORMAT       crash (Apple text; translates .ips), ips (.ips inputs only) or json
                                (every frame with its status). Default: the input's format.
          --no-inline           One line per frame: no inlined functions.
          --no-adjust           Look up return addresses as they are (not at address - 1).
          -v, --verbose         Also list symbol files that could not be read.
          -h, --help            Show this help.

        EXIT STATUS: 0 the report was processed (even if some images were missing), 65 the input
        is not an Apple crash report, 64 usage error, 1 other failure.

        EXAMPLE: symbolicate -o out.crash in.crash App.app.dSYM

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, valued: ["-o", "-d", "--store", "--format"],
            flags: ["--no-store", "--no-inline", "--no-adjust", "-v"],
            aliases: ["--output": "-o", "--dsym": "-d", "--verbose": "-v"])
        guard let reportPath = args.positionals.first else { throw UsageError("missing REPORT") }
        let format = try parseFormat(args.value("--format"))
        let paths = args.all("-d") + args.positionals.dropFirst()
        let store = try StoreOption.open(args.value("--store"), disabled: args.has("--no-store"), mustExist: false)

        let bytes = try IO.read(reportPath)
        let pathLocator = try SymbolPathLocator(paths: paths)
        let locator = SymbolLocatorChain(paths: pathLocator, store: store)
        let options = SymbolicationOptions(inlines: !args.has("--no-inline"), adjustReturnAddresses: !args.has("--no-adjust"))
        let processed = try SymbolicationService(locator: locator, options: options).process(bytes, format: format)
        try IO.write(processed.output, to: args.value("-o"))

        Console.error(summary(processed))
        if args.has("-v") {
            for problem in pathLocator.scanProblems { Console.error("  skipped \(problem.description)") }
        }
        return ExitCode.ok
    }

    static func parseFormat(_ text: String?) throws -> OutputFormat? {
        guard let text else { return nil }
        guard let format = OutputFormat(rawValue: text) else {
            throw UsageError("--format must be crash, ips or json, not '\(text)'")
        }
        return format
    }

    /// `symbolicated 12/40 frames (ips, 3 threads, 5 images)` and one line per image.
    static func summary(_ processed: ProcessedReport) -> String {
        let report = processed.report
        let outcome = processed.outcome
        var lines = [
            "symbolicated \(outcome.symbolicatedFrames)/\(outcome.totalFrames) frames "
                + "(\(report.format.rawValue) report, \(report.threads.count) threads, \(report.images.count) images)"
        ]
        for image in outcome.images { lines.append("  " + image.summary) }
        return lines.joined(separator: "\n")
    }
}

/// `--store DIR` / `$SYMBOLICATE_STORE` / the XDG default, opened only when it exists unless
/// the command creates stores.
enum StoreOption {
    static func directory(_ explicit: String?) -> String {
        explicit ?? SymbolStore.defaultDirectory(environment: ProcessInfo.processInfo.environment)
    }

    /// Opens the store; nil when `disabled`, or when it does not exist and `mustExist` is false
    /// and no directory was named explicitly.
    static func open(_ explicit: String?, disabled: Bool, mustExist: Bool) throws -> SymbolStore? {
        if disabled { return nil }
        let dir = directory(explicit)
        let exists = FileManager.default.fileExists(atPath: dir + "/catalog.sqlite")
        if !exists {
            if explicit != nil || mustExist {
                throw SymbolicateError(
                    .notFound, "no symbol store here; create one with `symbolicate import --store \(dir) PATH`",
                    path: dir)
            }
            return nil
        }
        return try SymbolStore(directory: dir)
    }
}
