// `symbolicate verify`: checks that every catalog row has a readable build file of the current
// schema with the checksum it was published with, and cleans leftovers of interrupted imports.

import Store
import SymbolicateModel

enum VerifyCommand: Command {
    static let name = "verify"
    static let summary = "Check the symbol store's catalog and build files"
    static let about = """
        USAGE: symbolicate verify [--store DIR] [--deep]

        Checks every build of the store: its file exists, opens, has the current schema version,
        matches its catalog row, and has the checksum recorded when it was imported (a CRC-32; a
        SHA-256 for builds of earlier releases), so a changed byte is found even where SQLite reads
        the file without complaint. Removes temporary files left by interrupted imports. Builds that
        need re-importing are named. Kept originals are checked too: every index record names a stored
        file (--deep: whose bytes still hash to its SHA-256 name).

        """

    static let deep = FlagOption(
        "--deep", help: "Also run SQLite's quick_check on every build file (reads every page; slower).")

    static let options: [any CommandOption] = StoreOption.options + [deep]

    static let epilogue = """
        EXIT STATUS: 0 healthy, 1 problems found (listed on stderr), 64 usage error.

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("verify takes no positional arguments") }
        guard let store = try StoreOption.open(args, disabled: false, mustExist: true) else {
            return ExitCode.failure
        }
        var report = try store.verify(deep: args.has(deep))
        report.problems += try Originals.of(store)?.problems(deep: args.has(deep)) ?? []
        // The results go to stdout, for scripts and pipes; errors stay on stderr.
        var lines = report.repaired.map { "repaired \($0.description)" }
        lines += report.problems.map { "problem  \($0.description)" }
        lines.append(
            "checked \(count: report.buildsChecked, "build"): "
                + (report.isHealthy ? "healthy" : "\(count: report.problems.count, "problem")"))
        try Console.out(lines.joined(separator: "\n") + "\n")
        return report.isHealthy ? ExitCode.ok : ExitCode.failure
    }
}
