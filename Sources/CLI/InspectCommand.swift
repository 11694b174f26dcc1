// `symbolicate inspect [--json] REPORT`: the parsed model of a report (header fields, threads,
// frames, images), to check what the parser understood.

import Reports

enum InspectCommand: Command {
    static let name = "inspect"
    static let summary = "Show what a crash report contains (header, threads, frames, images)"
    static let about = """
        USAGE: symbolicate inspect [--json] REPORT

        Parses REPORT (`-` for stdin) and prints its header fields, threads with their frames, and
        its binary images with UUIDs and load addresses. Nothing is symbolicated.

        """

    static let options: [any CommandOption] = [CommonOptions.json]

    static let epilogue = """
        EXIT STATUS: 0 ok, 65 not an Apple crash report, 64 usage error, 1 other failure.

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError("inspect takes exactly one REPORT")
        }
        let report = try ReportParser.parse(try IO.read(path))
        // The JSON ends with a newline as the text does (and as `--format json` does).
        try Console.out(
            args.has(CommonOptions.json) ? ReportInspector.json(report) + "\n" : ReportInspector.text(report))
        return ExitCode.ok
    }
}
