// `symbolicate batch`: reprocesses whole archives of crash reports. This file only translates
// arguments into a BatchConfiguration, builds the same SymbolicationService the single-report
// command uses, runs the Batch library and prints its summary (stderr) and `--summary` JSON.
// Inputs and outputs at s3:// URLs go through a BucketTransfer (fetched before the run, uploaded
// after it); `--merge-summaries` joins the summaries of a sharded run's shards instead of running.
// Exit 0 when the run completed (some reports may still be unparsable), 1 when it failed or an
// input could not be read to the end, 64 for usage errors, 65 for a summary that is not one.

import Batch
import Foundation
import Store
import SymbolicateModel
import Symbolication

enum BatchCommand: Command {
    static let name = "batch"
    static let summary = "Symbolicate folders and archives of reports in parallel"
    static let about = """
        USAGE: symbolicate batch (-o OUTDIR | --output-archive FILE) [options] INPUT...
               symbolicate batch --merge-summaries OUT.json SUMMARY.json...

        Symbolicates every crash report found in the INPUTs: folders (searched recursively),
        .zip / .tar / .tar.gz / .tgz archives (streamed, never unpacked to disk), single report
        files, or `-` to read a list of such paths from stdin, one a line. Reports are recognized
        by their content; other files are counted and skipped. Each output is exactly what
        `symbolicate REPORT` prints, at the report's relative path inside OUTDIR (an archive
        member set0/a/x.crash becomes OUTDIR/set0/a/x.crash; a folder's files keep their path
        relative to the folder). With several INPUTs, a name already used by an earlier input
        gets the input's base name as a first folder (reports.zip -> reports/...), and if still
        taken a ~2, ~3 suffix; a file never takes a folder's name, nor a folder a file's.

        Object storage: an INPUT may be s3://BUCKET/KEY (one object: a report or an archive) or
        s3://BUCKET/PREFIX/ (every object under it, named by its key below the prefix); OUTDIR
        may be s3://BUCKET/PREFIX (each output an object under it), and --output-archive,
        --summary and --report-list may be s3://BUCKET/KEY. Inputs are fetched into the cache
        folder (--cache) before the run, outputs uploaded after it; credentials and endpoint
        come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION and
        AWS_ENDPOINT_URL.

        """

    static let output = ValueOption<String>(
        "-o", "--output", value: "OUTDIR", help: "Write the outputs into this folder (created if missing).")
    static let outputArchive = ValueOption<String>(
        "--output-archive", value: "FILE", help: "Write the outputs into one .zip, .tar, .tar.gz or .tgz.")
    static let jobs = ValueOption<Int>.integer(
        "-j", "--jobs", value: "N", in: 1...1024, requirement: { "-j expects 1 to 1024 workers, got \($0)" },
        help: "Worker threads (default: one per CPU this process may use: its affinity, e.g. taskset, and its"
            + " cgroup CPU quota).")
    static let shard = ValueOption<Shard>(
        ["--shard"], value: "I/N",
        help: "Take only shard I of N (0 <= I < N), chosen by a stable hash of each report's path: N machines"
            + " running the same command with I = 0..N-1 cover every report exactly once (a Kubernetes Indexed"
            + " Job: --shard $JOB_COMPLETION_INDEX/N). Shards may share one output folder."
    ) { text in
        do {
            return try Shard(parsing: text)
        } catch let error as SymbolicateError {
            throw UsageError(error.message)
        }
    }
    static let resume = FlagOption(
        "--resume",
        help: "Skip reports whose output already exists (outputs are written atomically, so an existing one is"
            + " complete; under an s3:// OUTDIR, an object at the output's name). Needs -o.")
    static let summaryFile = ValueOption<String>(
        "--summary", value: "FILE.json", help: "Also write the summary as JSON.")
    static let reportList = ValueOption<String>(
        "--report-list", value: "FILE.jsonl",
        help: "One JSON line per input file: path, kind (crash, ips, ..., skipped), status (full, partial, none,"
            + " unparsable, skipped), frames_symbolicated, frames_total, group (the crash group's id) and reason"
            + " (why skipped or unparsable).")
    static let progress = ValueOption<BatchConfiguration.ProgressStyle>.choice(
        "--progress", value: "MODE", ["auto": .automatic, "bar": .bar, "lines": .lines, "none": .none],
        expected: { "--progress expects auto, bar, lines or none, got '\($0)'" },
        help: "auto (bar on a terminal, lines otherwise), bar, lines, none.")
    static let merge = ValueOption<String>(
        "--merge-summaries", value: "OUT.json",
        help: "Run nothing: join the --summary files of the shards of one run (local paths or s3:// objects)"
            + " into OUT.json (or an s3:// object): counts added, missing symbol files re-ranked, crash groups"
            + " merged by id with their per-version counts summed, skipped files listed together. Prints the"
            + " table.")

    static let options: [any CommandOption] =
        [
            output, outputArchive,
            CommonOptions.format.adding("The extension of .crash/.ips/.json/.txt names becomes the format's."),
            CommonOptions.symbolPath, StoreOption.store.adding("The default folder is used if it exists."),
        ] + StoreOption.cacheOptions + [
            CommonOptions.noStore, CommonOptions.noInline, CommonOptions.noAdjust, jobs, shard, resume, summaryFile,
            reportList, progress, merge,
        ] + [PartialAnswers.partial] + DebuginfodOption.options

    static let epilogue = """
        EXIT STATUS: 0 the run completed (even if some reports were unparsable or not reports),
        1 a failure (outputs could not be written, an input could not be read to the end, an
        s3:// input or output could not be transferred, symbols in the store could not be read
        now: those reports are not written, unless --partial), 64 usage error, 65 a SUMMARY that is
        not a batch summary (or a shard given twice).

        The summary (stderr) counts reports fully / partially / not symbolicated, unparsable
        (with reasons) and skipped (each named, with the reason), ranks the missing symbol files
        by the number of reports that need them, and lists the top crash groups with their count
        per app version. A crash group is keyed by the top three frames of the crashed thread
        outside system images, as function names (image + offset where no symbol is known), so
        one crash in two builds or on two archs is one group; its id is the first 16 hex digits
        of the SHA-256 of that key.

        """

    static func run(_ args: Arguments) throws -> Int32 {
        if let out = try args.value(merge) { return try mergeSummaries(into: out, args) }
        let transfer = try bucketTransfer(args)
        let configuration = try configuration(args, transfer: transfer)
        if args.has(CommonOptions.noStore), args.given(StoreOption.store) {
            throw UsageError("give --store or --no-store, not both")
        }
        var store = try StoreOption.open(args, disabled: args.has(CommonOptions.noStore), mustExist: false)
        let debuginfod = try DebuginfodOption.fetcher(args, store: &store, noStore: args.has(CommonOptions.noStore))
        let paths = try SymbolPathLocator(paths: try args.values(CommonOptions.symbolPath))
        let locator = SymbolLocatorChain(paths: paths, store: store, debuginfod: debuginfod)
        let settings = SymbolicationOptions(
            inlines: !args.has(CommonOptions.noInline), adjustReturnAddresses: !args.has(CommonOptions.noAdjust))
        let runner = BatchRunner(
            configuration: configuration, service: SymbolicationService(locator: locator, options: settings))
        var summary: BatchSummary
        do {
            summary = try runner.run()
        } catch {
            // Per-report problems never escape a run; a bad input that does is a contradiction
            // in the settings.
            if error.code == .badInput { throw UsageError(error.description) }
            throw error
        }
        if let transfer { summary = transfer.renamingFiles(in: summary) }
        Console.error(summary.table())
        DebuginfodOption.report(debuginfod)
        if let named = try args.value(summaryFile) {
            var path = named
            if BucketTransfer.isBucketURL(named), let transfer { path = try transfer.outputFile(named) }
            do {
                try IO.write(try summary.json(), to: path)
            } catch let error as SymbolicateError {
                throw error
            } catch {
                throw SymbolicateError(.io, "cannot encode the summary: \(error)", path: named)
            }
        }
        if let transfer {
            let objects = try transfer.publish()
            Console.error("uploaded \(count: objects, "object") to object storage")
        }
        if let n = summary.counts.symbolsUnreadable {
            let cause = summary.skippedFiles.first { $0.reason.hasPrefix("symbols could not be read") }?.reason ?? ""
            Console.error(
                "error: \(count: n, "report") not written, \(cause); run again"
                    + " with --resume when the store answers, or pass --partial to write them as they are")
            return ExitCode.failure
        }
        if !summary.inputErrors.isEmpty {
            Console.error("error: \(count: summary.inputErrors.count, "input") could not be read to the end; see above")
            return ExitCode.failure
        }
        return ExitCode.ok
    }

    /// A transfer when some input or output is an s3:// URL (checked before anything is fetched).
    static func bucketTransfer(_ args: Arguments) throws -> BucketTransfer? {
        let named =
            args.positionals + (try [output, outputArchive, summaryFile, reportList].compactMap { try args.value($0) })
        guard named.contains(where: BucketTransfer.isBucketURL) else { return nil }
        return try BucketTransfer(scratchParent: StoreOption.cacheDirectory(try args.value(StoreOption.cache)))
    }

    /// `--merge-summaries OUT SUMMARY...`: reads every SUMMARY, writes their join to OUT.
    static func mergeSummaries(into out: String, _ args: Arguments) throws -> Int32 {
        let others: [any CommandOption] = [
            output, outputArchive, CommonOptions.format, CommonOptions.symbolPath, jobs, shard, summaryFile, reportList,
        ]
        if let other = others.first(where: { args.given($0) }) {
            throw UsageError("--merge-summaries runs nothing: drop \(other.spec.canonical)")
        }
        guard !args.positionals.isEmpty else {
            throw UsageError("--merge-summaries OUT.json needs the SUMMARY files to join")
        }
        let transfer: BucketTransfer? =
            (args.positionals + [out]).contains(where: BucketTransfer.isBucketURL)
            ? try BucketTransfer(scratchParent: StoreOption.cacheDirectory(try args.value(StoreOption.cache))) : nil
        var parts: [BatchSummary] = []
        for source in args.positionals {
            let bytes: [UInt8]
            if BucketTransfer.isBucketURL(source), let transfer {
                bytes = try transfer.read(source)
            } else {
                bytes = try IO.read(source, expected: "a batch summary (the JSON `batch --summary` writes)")
            }
            parts.append(try BatchSummary.decode(bytes, source: source))
        }
        let merged = try BatchSummary.merged(parts, sources: args.positionals)
        let json: [UInt8]
        do {
            json = try merged.json()
        } catch {
            throw SymbolicateError(.internal, "cannot encode the summary: \(error)", path: out)
        }
        if BucketTransfer.isBucketURL(out), let transfer {
            try transfer.write(json, to: out, contentType: "application/json")
        } else {
            try IO.write(json, to: out)
        }
        Console.error(merged.table())
        Console.error("merged \(count: parts.count, "summary", plural: "summaries") into \(out)")
        return ExitCode.ok
    }

    static func configuration(_ args: Arguments, transfer: BucketTransfer? = nil) throws -> BatchConfiguration {
        guard !args.positionals.isEmpty else {
            throw UsageError("name at least one INPUT (a folder, an archive, or -)")
        }
        // s3:// outputs are written in the transfer's staging folder and uploaded after the run.
        func local(_ path: String, folder: Bool) throws -> String {
            guard BucketTransfer.isBucketURL(path), let transfer else { return path }
            return folder
                ? try transfer.outputFolder(path, resume: args.has(resume)) : try transfer.outputFile(path)
        }
        let destination: BatchConfiguration.Destination
        switch (try args.value(output), try args.value(outputArchive)) {
        case (let folder?, nil): destination = .directory(try local(folder, folder: true))
        case (nil, let archive?): destination = .archive(try local(archive, folder: false))
        case (nil, nil): throw UsageError("name where the outputs go: -o OUTDIR or --output-archive FILE")
        case (.some, .some): throw UsageError("give -o or --output-archive, not both")
        }
        let format = try args.value(CommonOptions.format)
        var configuration = BatchConfiguration(inputs: args.positionals, destination: destination, format: format)
        if let jobs = try args.value(jobs) { configuration.jobs = jobs }
        if let shard = try args.value(shard) { configuration.shard = shard }
        configuration.resume = args.has(resume)
        configuration.partial = args.has(PartialAnswers.partial)
        configuration.reportList = try args.value(reportList).map { try local($0, folder: false) }
        if configuration.resume, case .archive = destination {
            throw UsageError("--resume needs an output folder (-o), not --output-archive")
        }
        if args.positionals.filter({ $0 == "-" }).count > 1 { throw UsageError("`-` may be given once") }
        configuration.progress = try args.value(progress) ?? .automatic
        // Fetched last, once every option is known to be good.
        if let transfer {
            for (n, input) in configuration.inputs.enumerated() where BucketTransfer.isBucketURL(input) {
                configuration.inputs[n] = try transfer.fetchInput(input, shard: configuration.shard)
            }
            for key in transfer.unfetchable { Console.error("warning: \(key): the key names no file; not read") }
        }
        return configuration
    }
}
