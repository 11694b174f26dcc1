// `symbolicate gc --older-than DAYS [--dry-run]`: removes builds not imported (or used) for a while.

import Store

enum GCCommand: Command {
    static let name = "gc"
    static let summary = "Remove old builds from the symbol store"
    static let help = """
        USAGE: symbolicate gc [--store DIR] --older-than DAYS [--dry-run]

        Removes builds imported more than DAYS days ago and not used by a lookup since, and
        leftovers of imports that were interrupted.

        OPTIONS:
          --store DIR         The store (default: $SYMBOLICATE_STORE, else the XDG data folder).
        \(StoreOption.cacheHelp)
          --older-than DAYS   Age threshold in days (required).
          --dry-run           Only list what would be removed.
          -h, --help          Show this help.

        EXIT STATUS: 0 ok, 64 usage error, 1 failure.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: StoreOption.valued.union(["--older-than"]), flags: ["--dry-run"])
        guard args.positionals.isEmpty else { throw UsageError("gc takes no positional arguments") }
        guard let days = try args.integer("--older-than"), days >= 0 else {
            throw UsageError("--older-than DAYS is required (a whole number of days, 0 or more)")
        }
        guard let store = try StoreOption.open(args, disabled: false, mustExist: true) else {
            return ExitCode.failure
        }
        let dryRun = args.has("--dry-run")
        let removed = try store.garbageCollect(olderThanDays: days, dryRun: dryRun)
        let verb = dryRun ? "would remove" : "removed"
        for b in removed { Console.error("\(verb) \(b.uuid.uuidString) \(b.arch) \(b.name)") }
        Console.error("\(verb) \(removed.count) builds")
        return ExitCode.ok
    }
}
