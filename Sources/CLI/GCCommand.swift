// `symbolicate gc --older-than DAYS [--dry-run]`: removes builds not imported (or used) for a while,
// and stored reports (the server's POST /v1/reports) past their retention, in a store folder as
// in a bucket.

import Server
import Store

enum GCCommand: Command {
    static let name = "gc"
    static let summary = "Remove old builds and expired stored reports from the symbol store"
    static let help = """
        USAGE: symbolicate gc [--store DIR] --older-than DAYS [--report-retention DAYS] [--dry-run]

        Removes builds imported more than DAYS days ago and not used by a lookup since, and
        leftovers of imports that were interrupted; and stored reports (POST /v1/reports of
        `symbolicate serve`) not written for the report retention.

        OPTIONS:
          --store DIR         The store (default: $SYMBOLICATE_STORE, else the XDG data folder).
        \(StoreOption.cacheHelp)
          --older-than DAYS   Age threshold in days (required).
          --report-retention DAYS
                              Stored reports not written for DAYS days are removed (default: 90;
                              0 keeps them), as `serve --report-retention` does.
          --dry-run           Only list what would be removed.
          -h, --help          Show this help.

        EXIT STATUS: 0 ok, 64 usage error, 1 failure.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments, valued: StoreOption.valued.union(["--older-than", "--report-retention"]), flags: ["--dry-run"])
        guard args.positionals.isEmpty else { throw UsageError("gc takes no positional arguments") }
        guard let days = try args.integer("--older-than"), days >= 0 else {
            throw UsageError("--older-than DAYS is required (a whole number of days, 0 or more)")
        }
        let retention =
            try args.integer(
                "--report-retention", in: 0...36_500,
                "--report-retention must be a whole number of days from 0 (keep forever) to 36500")
            ?? StoredReportRetention.defaultDays
        let dryRun = args.has("--dry-run")
        guard let store = try StoreOption.open(args, disabled: false, mustExist: true) else {
            return ExitCode.failure
        }
        let removed = try store.garbageCollect(olderThanDays: days, dryRun: dryRun)
        let location = try ReportStorageLocation(parsing: StoreOption.directory(args.value("--store")))
        let expired = try StoredReportRetention.removeExpired(at: location, days: retention, dryRun: dryRun)
        let verb = dryRun ? "would remove" : "removed"
        for b in removed { Console.error("\(verb) \(b.uuid.uuidString) \(b.arch) \(b.name)") }
        Console.error("\(verb) \(removed.count) builds")
        if !expired.isEmpty {
            Console.error("\(verb) \(expired.count) stored reports not written for \(retention) days")
        }
        return ExitCode.ok
    }
}
