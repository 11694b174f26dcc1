// `symbolicate sync --from DIR --store s3://BUCKET[/PREFIX]`: copies a folder store's builds into
// a bucket store, so moving a team to replicas that share a bucket is one command. Each build
// file goes up by one PUT and then its metadata entry; builds the bucket already has (as good or
// better) are skipped, so a sync that was interrupted is resumed by running it again.

import Foundation
import Store
import SymbolicateModel

enum SyncCommand: Command {
    static let name = "sync"
    static let summary = "Copy a folder store's builds into a bucket store (resumable)"
    static let help = """
        USAGE: symbolicate sync --from DIR --store s3://BUCKET[/PREFIX] [--cache DIR] [--cache-size SIZE]

        Copies every build of the folder store DIR into the bucket store. Builds the bucket
        already has, with symbols as good or better, are skipped: run it again to resume a sync
        that was interrupted. Each build is printed on stderr as it is handled.
        (Stored reports of the server are not copied by this command.)

        OPTIONS:
          --from DIR        The folder store to copy from (read only).
        \(StoreOption.cacheHelp)
          -h, --help        Show this help.

        EXIT STATUS: 0 every build copied or already there, 1 some build could not be copied
        (each is named with the reason), 64 usage error, 65 the bucket location is malformed.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, valued: StoreOption.valued.union(["--from"]), flags: [])
        guard args.positionals.isEmpty else { throw UsageError("sync takes no positional arguments") }
        guard let from = args.value("--from") else { throw UsageError("sync needs --from DIR (a folder store)") }
        guard let target = args.value("--store"), StoreLocation.isBucket(target) else {
            throw UsageError("sync needs --store s3://BUCKET[/PREFIX] (the bucket store to copy into)")
        }
        guard FileManager.default.fileExists(atPath: from + "/catalog.sqlite") else {
            throw SymbolicateError(
                .notFound, "no symbol store here (no catalog.sqlite): name a folder store with --from", path: from)
        }
        let source = try SymbolStore(directory: from)
        guard let bucket = try StoreOption.open(args, disabled: false, mustExist: true) as? BucketStore else {
            throw UsageError("sync needs --store s3://BUCKET[/PREFIX] (the bucket store to copy into)")
        }
        let totals = try bucket.sync(from: source) { index, count, build, outcome, error in
            let what = "\(build.uuid.uuidString) \(build.arch) \(build.name)"
            switch outcome {
            case .copied: Console.error("[\(index)/\(count)] copied  \(what)")
            case .skipped: Console.error("[\(index)/\(count)] present \(what)")
            case .failed: Console.error("[\(index)/\(count)] failed  \(what): \(error?.message ?? "unknown error")")
            }
        }
        Console.error(
            "copied \(totals.copied) builds to \(bucket.locationDescription), \(totals.skipped) already there, \(totals.failed) failed"
        )
        return totals.failed == 0 ? ExitCode.ok : ExitCode.failure
    }
}
