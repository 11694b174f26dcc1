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
    static let summary = "Symbolicate a .crash, .ips, MetricKit, resource or `sample` report (symbol files, store)"
    static let about = """
        USAGE: symbolicate [-o OUT] [-d DSYM]... [options] REPORT [SYMBOL_PATH...]

        Rewrites the frames of REPORT (`-` for stdin) into function + file:line, using the symbol
        files in SYMBOL_PATH and -d (dSYM bundles, .app bundles, .xcarchives, folders, Mach-O or ELF
        files), then the symbol store. Every byte that is not a symbolicated frame is kept.
        REPORT is a .crash or .ips report, a MetricKit payload (each frame gets symbolName,
        offsetIntoSymbol, fileName, lineNumber and inlineFrames), a resource report, hang report
        or spindump output (cpu usage, disk writes, wakeups, hangs: `???` replaced in place) or
        the output of macOS's `sample` (each `???` node named as `sample` names the nodes it has
        symbols for), or the Swift runtime's own crash report (SWIFT_BACKTRACE, text or JSON: each
        frame gets SYMBOL + OFFSET in IMAGE at FILE:LINE, or the runtime's symbol, offset and
        sourceLocation keys), matched to ELF debug files by build id.

        Without REPORT, the report is read from standard input when that is not a
        terminal: `symbolicate < in.crash`.

        """

    static let output = ValueOption<String>(
        "-o", "--output", value: "OUT", help: "Write the report to OUT (default: stdout; `-` is stdout).")
    static let verbose = FlagOption(
        "-v", "--verbose",
        help: "Also say which symbol file served each image, and list every file under the symbol paths that"
            + " could not be read (an unreadable dSYM is always named).")

    static let strict = FlagOption(
        "--strict",
        help: "Exit 3 when an image that is not a system image (under /System, /usr/lib, /usr/libexec) has"
            + " frames the report does not name and its symbols are missing or mismatched; the report is"
            + " still written.")

    /// Also listed by `symbolicate --help` under the commands.
    static let options: [any CommandOption] =
        [output, CommonOptions.symbolPath, StoreOption.store.adding("The default folder is used if it exists.")]
        + StoreOption.cacheOptions
        + [
            CommonOptions.noStore, CommonOptions.format, CommonOptions.noInline, CommonOptions.noAdjust, verbose,
            strict, PartialAnswers.partial,
        ] + DebuginfodOption.options

    static let epilogue = """
        EXIT STATUS: 0 the report was processed (even if some images were missing), 3
        with --strict: an image that is not a system image lacks symbols, 65 the input
        is not an Apple crash report, 64 usage error, 1 other failure (symbols in the store
        that could not be read now included, unless --partial).

        EXAMPLE: symbolicate -o out.crash in.crash App.app.dSYM

        """

    static func run(_ args: Arguments) throws -> Int32 {
        // No REPORT reads standard input when it is not a terminal (`symbolicate < in.crash`).
        guard let reportPath = args.positionals.first ?? (isatty(STDIN_FILENO) == 0 ? "-" : nil) else {
            throw UsageError("missing REPORT")
        }
        let format = try args.value(CommonOptions.format)
        let paths = try args.values(CommonOptions.symbolPath) + args.positionals.dropFirst()
        var store = try StoreOption.open(args, disabled: args.has(CommonOptions.noStore), mustExist: false)
        let debuginfod = try DebuginfodOption.fetcher(args, store: &store, noStore: args.has(CommonOptions.noStore))

        let bytes = try IO.read(reportPath)
        if args.positionals.isEmpty, bytes.isEmpty { throw UsageError("missing REPORT (standard input is empty)") }
        let pathLocator = try SymbolPathLocator(paths: paths)
        let locator = SymbolLocatorChain(paths: pathLocator, store: store, debuginfod: debuginfod)
        let settings = SymbolicationOptions(
            inlines: !args.has(CommonOptions.noInline), adjustReturnAddresses: !args.has(CommonOptions.noAdjust))
        let processed = try SymbolicationService(locator: locator, options: settings).process(bytes, format: format)
        try IO.write(processed.output, to: try args.value(output))

        Console.error(summary(processed))
        for note in processed.warnings { Console.error(note) }
        DebuginfodOption.report(debuginfod)
        if store == nil, !args.has(CommonOptions.noStore), try StoreOption.defaultIsAbsent(args),
            processed.outcome.symbolicatedFrames < processed.outcome.totalFrames
        {
            Console.error(
                "no store yet at \(StoreOption.directory(nil)): only the symbol paths given were searched"
                    + " (`symbolicate import PATH` fills it)")
        }
        // A dSYM that cannot be read is always named: without it, frames quietly fall back
        // to a binary's symbol table. Other unreadable files under the paths only with -v.
        for problem in pathLocator.scanProblems {
            if isInsideDSYM(problem.path) {
                Console.error("  dSYM not used, it cannot be read: \(problem.description)")
            } else if args.has(verbose) {
                Console.error("  skipped \(problem.description)")
            }
        }
        if args.has(verbose) { Console.error(sources(processed.outcome)) }
        if let failure = PartialAnswers.failure(processed.outcome, allowed: args.has(PartialAnswers.partial)) {
            Console.error(failure)
            return ExitCode.failure
        }
        let failures = processed.outcome.strictFailures
        if args.has(strict), !failures.isEmpty {
            Console.error(
                "--strict: no symbols for "
                    + failures.map { "\($0.image.name) \($0.image.uuid.map { "\($0)" } ?? "(no UUID)")" }
                    .joined(separator: ", "))
            return ExitCode.incomplete
        }
        return ExitCode.ok
    }

    static func isInsideDSYM(_ path: String?) -> Bool {
        guard let path else { return false }
        return PathParts.split(path).contains { $0.lowercased().hasSuffix(".dsym") }
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
        let trees = report.backtraces.filter { $0.kind == .sampleTree }.count
        var parts = ["\(report.format.rawValue) report"]
        if !report.threads.isEmpty || trees == 0 { parts.append("\(count: report.threads.count, "thread")") }
        if trees > 0 { parts.append("\(count: trees, "sample tree")") }
        if processed.missingImageList != nil {
            parts.append("no image list")
        } else {
            parts.append("\(count: report.images.count, "image")")
        }
        var lines = [
            "symbolicated \(outcome.symbolicatedFrames)/\(outcome.totalFrames) frames (\(parts.joined(separator: ", ")))"
        ]
        for image in outcome.images { lines.append("  " + image.summary) }
        for advice in DyldCacheAdvice.advise(report, missing: outcome.missing) { lines.append("  " + advice.summary) }
        return lines.joined(separator: "\n")
    }
}
