// The default command, with symbolicatecrash's arguments:
//   symbolicate [-o OUT] [-d DSYM]... REPORT [SYMBOL_PATH...]
// Symbol paths come first, then the store. The report goes to OUT (stdout without -o or with
// `-`); a summary of what was found and what is missing goes to stderr.

import Foundation
import Store
import SymbolicateModel
import Symbolication

enum SymbolicateCommand: Command {
    static let name = "symbolicate"
    static let summary = "Symbolicate a .crash, .ips, MetricKit or resource report (symbol files, store)"
    static let help = """
        USAGE: symbolicate [-o OUT] [-d DSYM]... [options] REPORT [SYMBOL_PATH...]

        Rewrites the frames of REPORT (`-` for stdin) into function + file:line, using the symbol
        files in SYMBOL_PATH and -d (dSYM bundles, .app bundles, .xcarchives, folders, Mach-O or ELF
        files), then the symbol store. Every byte that is not a symbolicated frame is kept.
        REPORT is a .crash or .ips report, a MetricKit payload (each frame gets symbolName,
        offsetIntoSymbol, fileName, lineNumber and inlineFrames) or a resource report (cpu usage,
        disk writes, wakeups: `???` replaced in place).

        OPTIONS:
        \(options)

        \(exitStatus)

        EXAMPLE: symbolicate -o out.crash in.crash App.app.dSYM

        """

    /// The options, also listed by `symbolicate --help` under the commands.
    static let options = """
          -o, --output OUT      Write the report to OUT (default: stdout; `-` is stdout).
          -d, --dsym PATH       A symbol path (repeatable), as symbolicatecrash's -d.
          --store DIR           The symbol store (default: $SYMBOLICATE_STORE, else
                                $XDG_DATA_HOME/symbolicate or ~/.local/share/symbolicate, if present).
        \(StoreOption.cacheHelp)
          --no-store            Use only the symbol paths given.
          --format FORMAT       crash (Apple text; translates .ips and MetricKit), ips (.ips
                                inputs only) or json (every frame with its status). Default: the
                                input's format.
          --no-inline           One line per frame: no inlined functions.
          --no-adjust           Look up return addresses as they are (not at address - 1).
          -v, --verbose         Also say which symbol file served each image, and list every
                                file under the symbol paths that could not be read (an
                                unreadable dSYM is always named).
          -h, --help            Show this help.
        """

    static let exitStatus = """
        EXIT STATUS: 0 the report was processed (even if some images were missing), 65 the input
        is not an Apple crash report, 64 usage error, 1 other failure.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, valued: StoreOption.valued.union(["-o", "-d", "--format"]),
            flags: ["--no-store", "--no-inline", "--no-adjust", "-v"],
            aliases: ["--output": "-o", "--dsym": "-d", "--verbose": "-v"])
        guard let reportPath = args.positionals.first else { throw UsageError("missing REPORT") }
        let format = try parseFormat(args.value("--format"))
        let paths = args.all("-d") + args.positionals.dropFirst()
        let store = try StoreOption.open(args, disabled: args.has("--no-store"), mustExist: false)

        let bytes = try IO.read(reportPath)
        let pathLocator = try SymbolPathLocator(paths: paths)
        let locator = SymbolLocatorChain(paths: pathLocator, store: store)
        let options = SymbolicationOptions(
            inlines: !args.has("--no-inline"), adjustReturnAddresses: !args.has("--no-adjust"))
        let processed = try SymbolicationService(locator: locator, options: options).process(bytes, format: format)
        try IO.write(processed.output, to: args.value("-o"))

        Console.error(summary(processed))
        // A dSYM that cannot be read is always named: without it, frames quietly fall back
        // to a binary's symbol table. Other unreadable files under the paths only with -v.
        for problem in pathLocator.scanProblems {
            if isInsideDSYM(problem.path) {
                Console.error("  dSYM not used, it cannot be read: \(problem.description)")
            } else if args.has("-v") {
                Console.error("  skipped \(problem.description)")
            }
        }
        if args.has("-v") { Console.error(sources(processed.outcome)) }
        return ExitCode.ok
    }

    static func parseFormat(_ text: String?) throws -> OutputFormat? {
        guard let text else { return nil }
        guard let format = OutputFormat(rawValue: text) else {
            throw UsageError("--format must be crash, ips or json, not '\(text)'")
        }
        return format
    }

    static func isInsideDSYM(_ path: String?) -> Bool {
        guard let path else { return false }
        return path.split(separator: "/").contains { $0.lowercased().hasSuffix(".dsym") }
    }

    /// For -v: which file served each image (`HoldApp: from PATH (dwarf)`, `from the store`).
    static func sources(_ outcome: SymbolicationOutcome) -> String {
        var lines = ["symbol files used:"]
        for image in outcome.images {
            guard let served = image.servedBy else { continue }
            let what = served.kind == .debugInfo ? "debug information" : "symbol table"
            if served.fromStore {
                lines.append("  \(image.image.name): the store's build (\(what)), imported from \(served.path)")
            } else {
                lines.append("  \(image.image.name): \(served.path) (\(what))")
            }
        }
        if lines.count == 1 { lines.append("  none") }
        return lines.joined(separator: "\n")
    }

    /// `symbolicated 12/40 frames (ips report, 3 threads, 5 images)` and one line per image;
    /// sample trees (microstackshot reports, aggregated MetricKit stacks) are counted as such,
    /// not as "0 threads".
    static func summary(_ processed: ProcessedReport) -> String {
        let report = processed.report
        let outcome = processed.outcome
        func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        let trees = report.backtraces.filter { $0.kind == .sampleTree }.count
        var parts = ["\(report.format.rawValue) report"]
        if !report.threads.isEmpty || trees == 0 { parts.append(counted(report.threads.count, "thread")) }
        if trees > 0 { parts.append(counted(trees, "sample tree")) }
        parts.append(counted(report.images.count, "image"))
        var lines = [
            "symbolicated \(outcome.symbolicatedFrames)/\(outcome.totalFrames) frames (\(parts.joined(separator: ", ")))"
        ]
        for image in outcome.images { lines.append("  " + image.summary) }
        return lines.joined(separator: "\n")
    }
}
