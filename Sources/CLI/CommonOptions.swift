// The options several commands take, declared once and listed by each command that takes
// them: `-h, --help` (every command), what symbolicates a report (`--format`, `-d`, `--no-store`,
// `--no-inline`, `--no-adjust`: the default command and batch), `--json`, and the stored reports'
// retention (serve and gc). The store's own options are in StoreOption.swift.

import Server
import Symbolication

enum CommonOptions {
    /// Handled before parsing (CommandLineTool), declared so that every command accepts and lists it.
    static let help = FlagOption("-h", "--help", help: "Show this help.")

    static let format = ValueOption<OutputFormat>(
        ["--format"], value: "FORMAT",
        help: "crash (Apple text; translates .ips and MetricKit), ips (the JSON an .ips or MetricKit input came"
            + " as; not for text reports) or json (every frame with its status). Default: the input's format."
    ) { text in
        guard let format = OutputFormat(rawValue: text.lowercased()) else {
            throw UsageError("--format must be crash, ips or json, not '\(text)'")
        }
        return format
    }

    static let symbolPath = RepeatedOption<String>(
        "-d", "--dsym", value: "PATH",
        help: "A symbol path searched before the store, as symbolicatecrash's -d: a .dSYM, .app or .xcarchive"
            + " bundle, a folder, a Mach-O or ELF file.")

    static let noStore = FlagOption("--no-store", help: "Use only the symbol paths given, not the store.")

    static let noInline = FlagOption("--no-inline", help: "One line per frame: no inlined functions.")

    static let noAdjust = FlagOption(
        "--no-adjust", help: "Look up return addresses as they are (not at address - 1).")

    static let json = FlagOption("--json", help: "Machine-readable output.")

    static let reportRetention = ValueOption<Int>.integer(
        "--report-retention", value: "DAYS", in: 0...36_500,
        requirement: "--report-retention must be a whole number of days from 0 (keep forever) to 36500",
        help: "Stored reports not written for DAYS days are removed (default: \(StoredReportRetention.defaultDays);"
            + " 0 keeps them forever); `symbolicate serve` and `symbolicate gc` apply the same rule.")
}
