// `symbolicate sync --from DIR --store s3://BUCKET[/PREFIX]`: copies a folder store's builds and
// the server's stored reports into a bucket store, so moving a team to replicas that share a
// bucket is one command. Each build file goes up by one PUT and then its metadata entry; builds
// the bucket already has (as good or better) are skipped, and so are kept originals and stored
// reports already there (Originals.copy, StoredReportCopy), so a sync that was interrupted is
// resumed by running it again.

import Foundation
import Import
import Server
import Store
import SymbolicateModel

enum SyncCommand: Command {
    static let name = "sync"
    static let summary = "Copy a folder store's builds and stored reports into a bucket store (resumable)"
    static let about = """
        USAGE: symbolicate sync --from DIR --store s3://BUCKET[/PREFIX] [--cache DIR] [--cache-size SIZE]

        Copies every build of the folder store DIR into the bucket store, then the original files
        it keeps (import or serve --keep-originals) with their index, then the reports
        `symbolicate serve --store DIR` stored (DIR/reports.sqlite), so replicas serving the
        bucket answer GET /v1/reports/ID for them. Builds the bucket already has, with symbols
        as good or better, are skipped, and so are originals and reports already there: run it again to
        resume a sync that was interrupted. Each build is printed on stderr as it is handled.

        """

    static let from = ValueOption<String>("--from", value: "DIR", help: "The folder store to copy from (read only).")

    static let options: [any CommandOption] =
        [from, StoreOption.store.adding("Here, the bucket store to copy into (required).")] + StoreOption.cacheOptions

    static let epilogue = """
        EXIT STATUS: 0 every build and stored report copied or already there, 1 some build or
        the stored reports could not be copied (each is named with the reason), 64 usage error,
        65 the bucket location is malformed or the bucket is not configured (no credentials, a bad
        AWS_ENDPOINT_URL).

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("sync takes no positional arguments") }
        guard let folder = try args.value(from) else { throw UsageError("sync needs --from DIR (a folder store)") }
        guard let target = try args.value(StoreOption.store), StoreLocation.isBucket(target) else {
            throw UsageError("sync needs --store s3://BUCKET[/PREFIX] (the bucket store to copy into)")
        }
        guard FileManager.default.fileExists(atPath: folder + "/catalog.sqlite") else {
            throw SymbolicateError(
                .notFound, "no symbol store here (no catalog.sqlite): name a folder store with --from", path: folder)
        }
        let source = try SymbolStore(directory: folder, rebuilder: SourceRebuilder())
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
            "copied \(count: totals.copied, "build") to \(bucket.locationDescription), \(totals.skipped) already there, \(totals.failed) failed"
        )
        let originalsCopied = try copyOriginals(from: source, to: bucket)
        // Reports after builds: a report copied first would name UUIDs the bucket has no build for yet.
        let reportsCopied = copyStoredReports(from: folder, to: target)
        return totals.failed == 0 && originalsCopied && reportsCopied ? ExitCode.ok : ExitCode.failure
    }

    /// Copies the kept original files (import or serve --keep-originals) and their index; false
    /// when some could not be copied (each is named).
    private static func copyOriginals(from source: SymbolStore, to bucket: BucketStore) throws -> Bool {
        guard let from = Originals.of(source), let to = Originals.of(bucket) else { return true }
        let summary = try from.copy(to: to) { index, count in
            if index % 100 == 0 { Console.error("originals: \(index)/\(count) handled") }
        }
        for failure in summary.failures {
            Console.error("failed  original \(failure.record): \(failure.error.message)")
        }
        if summary.copied + summary.present + summary.failures.count > 0 {
            Console.error(
                "copied \(count: summary.copied, "original") to \(bucket.locationDescription), \(summary.present) already"
                    + " there, \(summary.failures.count) failed")
        }
        return summary.failures.isEmpty
    }

    /// Copies the folder store's stored reports into the bucket; false (after saying why) when
    /// the copy stopped part way. What was copied stays, so running sync again resumes it.
    private static func copyStoredReports(from folder: String, to bucket: String) -> Bool {
        do {
            let destination = try ReportStorageLocation(parsing: bucket)
            var done = 0
            let summary = try StoredReportCopy.copy(from: .folder(folder), to: destination) { _ in
                done += 1
                if done % 100 == 0 { Console.error("stored reports: \(done) handled") }
            }
            Console.error(
                "copied \(summary.copied) stored reports to \(destination), \(summary.present) already there")
            return true
        } catch {
            let reason = (error as? SymbolicateError)?.description ?? "\(error)"
            Console.error("error: stored reports: the copy stopped: \(reason); run sync again to resume it")
            return false
        }
    }
}
