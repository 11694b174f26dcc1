// `symbolicate gc --older-than DAYS [--dry-run]`: removes builds not imported (or used) for a while,
// stored reports (the server's POST /v1/reports) past their retention, and chunks of chunked
// uploads written more than a day ago, in a store folder as in a bucket.

import Foundation
import Server
import Store
import SymbolicateModel

enum GCCommand: Command {
    static let name = "gc"
    static let summary = "Remove old builds and expired stored reports from the symbol store"
    static let about = """
        USAGE: symbolicate gc [--store DIR] --older-than DAYS [--report-retention DAYS] [--dry-run]

        Removes builds imported more than DAYS days ago and not used by a lookup (or imported again)
        since, and leftovers of imports that were interrupted; stored reports (POST /v1/reports of
        `symbolicate serve`) not written for the report retention; and chunks of chunked uploads
        (sentry-cli's, `symbolicate upload`'s) written more than a day ago. Kept originals of removed
        builds are forgotten, and original files no build names (written over an hour ago) are removed.

        """

    /// Said when --older-than is missing.
    static let olderThanRequired = "--older-than DAYS is required (a whole number of days, 0 or more)"
    static let olderThan = ValueOption<Int>.integer(
        "--older-than", value: "DAYS", in: 0...Int.max,
        requirement: { "--older-than expects a whole number of days, 0 or more, got \($0)" },
        help: "Age threshold in days (required). On a bucket store, at least one day: a build imported or"
            + " used within the last day is kept, so gc cannot race an import on another machine.")
    static let dryRun = FlagOption("--dry-run", help: "Only list what would be removed.")

    static let options: [any CommandOption] =
        StoreOption.options + [olderThan, CommonOptions.reportRetention, dryRun]

    static let epilogue = """
        EXIT STATUS: 0 ok, 64 usage error, 1 failure.

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("gc takes no positional arguments") }
        guard let days = try args.value(olderThan) else { throw UsageError(olderThanRequired) }
        let retention = try args.value(CommonOptions.reportRetention) ?? StoredReportRetention.defaultDays
        let dryRun = args.has(Self.dryRun)
        guard let store = try StoreOption.open(args, disabled: false, mustExist: true) else {
            return ExitCode.failure
        }
        let removed = try store.garbageCollect(olderThanDays: days, dryRun: dryRun)
        if !dryRun, let originals = Originals.of(store) {
            let gone = Set(removed.map(\.uuid)).filter { (try? store.builds(matching: $0).isEmpty) == true }
            try originals.remove(Array(gone))
        }
        let hourAgo = Date().addingTimeInterval(-3600)
        let unnamed = try Originals.of(store)?.collectGarbage(writtenBefore: hourAgo, dryRun: dryRun) ?? []
        let location = try ReportStorageLocation(parsing: StoreOption.directory(try args.value(StoreOption.store)))
        let expired = try StoredReportRetention.removeExpired(at: location, days: retention, dryRun: dryRun)
        let verb = dryRun ? "would remove" : "removed"
        // What was (or would be) removed goes to stdout, for scripts and pipes.
        func say(_ line: String) throws { try Console.out(line + "\n") }
        for b in removed { try say("\(verb) \(b.uuid.uuidString) \(b.arch) \(b.name)") }
        try say("\(verb) \(count: removed.count, "build")")
        if !unnamed.isEmpty { try say("\(verb) \(count: unnamed.count, "original") no build names") }
        if !expired.isEmpty {
            try say("\(verb) \(count: expired.count, "stored report") not written for \(count: retention, "day")")
        }
        if let blobs = BlobStore.of(store) {
            let cutoff = Date().addingTimeInterval(-BlobStore.chunkLifetime)
            let chunks = try blobs.list(.sha1, olderThan: cutoff)
            if !dryRun { for chunk in chunks { try blobs.remove(chunk.key) } }
            if !chunks.isEmpty { try say("\(verb) \(count: chunks.count, "upload chunk") older than a day") }
        }
        return ExitCode.ok
    }
}
