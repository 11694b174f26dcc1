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
    static let help = """
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
        taken a ~2, ~3 suffix.

        Object storage: an INPUT may be s3://BUCKET/KEY (one object: a report or an archive) or
        s3://BUCKET/PREFIX/ (every object under it, named by its key below the prefix); OUTDIR
        may be s3://BUCKET/PREFIX (each output an object under it), and --output-archive,
        --summary and --report-list may be s3://BUCKET/KEY. Inputs are fetched into the cache
        folder (--cache) before the run, outputs uploaded after it; credentials and endpoint
        come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and AWS_ENDPOINT_URL.

        OPTIONS:
          -o, --output OUTDIR      Write the outputs into this folder (created if missing).
          --output-archive FILE    Write the outputs into one .zip, .tar, .tar.gz or .tgz.
          --format crash|ips|json  Output format (default: each report's own). The extension of
                                   .crash/.ips/.json/.txt names becomes the format's.
          -d, --dsym PATH          A symbol file or folder (.dSYM, .app, .xcarchive, Mach-O)
                                   searched before the store. Repeatable.
          --store DIR              The symbol store (default: $SYMBOLICATE_STORE, else
                                   $XDG_DATA_HOME/symbolicate or ~/.local/share/symbolicate,
                                   if present).
        \(StoreOption.cacheHelp)
          --no-store               Use only the -d paths.
          --no-inline              One line per frame: no inlined functions.
          --no-adjust              Look up return addresses as they are (not at address - 1).
          -j, --jobs N             Worker threads (default: one per CPU this process may use:
                                   its affinity, e.g. taskset, and its cgroup CPU quota).
          --shard I/N              Take only shard I of N (0 <= I < N), chosen by a stable hash
                                   of each report's path: N machines running the same command
                                   with I = 0..N-1 cover every report exactly once
                                   (a Kubernetes Indexed Job: --shard $JOB_COMPLETION_INDEX/N).
                                   Shards may share one output folder.
          --resume                 Skip reports whose output already exists (outputs are written
                                   atomically, so an existing one is complete; under an s3://
                                   OUTDIR, an object at the output's name). Needs -o.
          --summary FILE.json      Also write the summary as JSON.
          --report-list FILE.jsonl One JSON line per input file: path, kind (crash, ips, ...,
                                   skipped), status (full, partial, none, unparsable,
                                   skipped), frames_symbolicated, frames_total, group (the
                                   crash group's id) and reason (why skipped or unparsable).
          --progress MODE          auto (bar on a terminal, lines otherwise), bar, lines, none.
          --merge-summaries OUT.json
                                   Run nothing: join the --summary files of the shards of one
                                   run (local paths or s3:// objects) into OUT.json (or an
                                   s3:// object): counts added, missing symbol files re-ranked,
                                   crash groups merged by id with their per-version counts
                                   summed, skipped files listed together. Prints the table.
          -h, --help               Show this help.

        EXIT STATUS: 0 the run completed (even if some reports were unparsable or not reports),
        1 a failure (outputs could not be written, an input could not be read to the end, an
        s3:// input or output could not be transferred), 64 usage error, 65 a SUMMARY that is
        not a batch summary (or a shard given twice).

        The summary (stderr) counts reports fully / partially / not symbolicated, unparsable
        (with reasons) and skipped (each named, with the reason), ranks the missing symbol files
        by the number of reports that need them, and lists the top crash groups with their count
        per app version. A crash group is keyed by the top three frames of the crashed thread
        outside system images, as function names (image + offset where no symbol is known), so
        one crash in two builds or on two archs is one group; its id is the first 16 hex digits
        of the SHA-256 of that key.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(
            arguments,
            valued: [
                "-o", "--output-archive", "--format", "-d", "--store", "--cache", "--cache-size", "-j", "--shard",
                "--summary", "--report-list",
                "--progress", "--merge-summaries",
            ],
            flags: ["--resume", "--no-store", "--no-inline", "--no-adjust"],
            aliases: ["--output": "-o", "--dsym": "-d", "--jobs": "-j"])
        if let out = args.value("--merge-summaries") { return try mergeSummaries(into: out, args) }
        let transfer = try bucketTransfer(args)
        let configuration = try configuration(args, transfer: transfer)
        if args.has("--no-store"), args.value("--store") != nil {
            throw UsageError("give --store or --no-store, not both")
        }
        let store = try StoreOption.open(args, disabled: args.has("--no-store"), mustExist: false)
        let locator = SymbolLocatorChain(paths: try SymbolPathLocator(paths: args.all("-d")), store: store)
        let options = SymbolicationOptions(
            inlines: !args.has("--no-inline"), adjustReturnAddresses: !args.has("--no-adjust"))
        let runner = BatchRunner(
            configuration: configuration, service: SymbolicationService(locator: locator, options: options))
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
        if let named = args.value("--summary") {
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
            Console.error("uploaded \(objects) object\(objects == 1 ? "" : "s") to object storage")
        }
        if !summary.inputErrors.isEmpty {
            Console.error("error: \(summary.inputErrors.count) input(s) could not be read to the end; see above")
            return ExitCode.failure
        }
        return ExitCode.ok
    }

    /// A transfer when some input or output is an s3:// URL (checked before anything is fetched).
    static func bucketTransfer(_ args: Arguments) throws -> BucketTransfer? {
        let named =
            args.positionals + ["-o", "--output-archive", "--summary", "--report-list"].compactMap { args.value($0) }
        guard named.contains(where: BucketTransfer.isBucketURL) else { return nil }
        return try BucketTransfer(scratchParent: StoreOption.cacheDirectory(args.value("--cache")))
    }

    /// `--merge-summaries OUT SUMMARY...`: reads every SUMMARY, writes their join to OUT.
    static func mergeSummaries(into out: String, _ args: Arguments) throws -> Int32 {
        let others = ["-o", "--output-archive", "--format", "-d", "-j", "--shard", "--summary", "--report-list"]
        if let other = others.first(where: { args.value($0) != nil }) {
            throw UsageError("--merge-summaries runs nothing: drop \(other)")
        }
        guard !args.positionals.isEmpty else {
            throw UsageError("--merge-summaries OUT.json needs the SUMMARY files to join")
        }
        let transfer: BucketTransfer? =
            (args.positionals + [out]).contains(where: BucketTransfer.isBucketURL)
            ? try BucketTransfer(scratchParent: StoreOption.cacheDirectory(args.value("--cache"))) : nil
        var parts: [BatchSummary] = []
        for source in args.positionals {
            let bytes: [UInt8]
            if BucketTransfer.isBucketURL(source), let transfer {
                bytes = try transfer.read(source)
            } else {
                bytes = try IO.read(source)
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
        Console.error("merged \(parts.count) summaries into \(out)")
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
                ? try transfer.outputFolder(path, resume: args.has("--resume")) : try transfer.outputFile(path)
        }
        let destination: BatchConfiguration.Destination
        switch (args.value("-o"), args.value("--output-archive")) {
        case (let folder?, nil): destination = .directory(try local(folder, folder: true))
        case (nil, let archive?): destination = .archive(try local(archive, folder: false))
        case (nil, nil): throw UsageError("name where the outputs go: -o OUTDIR or --output-archive FILE")
        case (.some, .some): throw UsageError("give -o or --output-archive, not both")
        }
        var format: OutputFormat? = nil
        if let name = args.value("--format") {
            guard let f = OutputFormat(rawValue: name) else {
                throw UsageError("--format expects crash, ips or json, got '\(name)'")
            }
            format = f
        }
        var configuration = BatchConfiguration(inputs: args.positionals, destination: destination, format: format)
        if let jobs = try args.integer("-j") {
            guard jobs >= 1, jobs <= 1024 else { throw UsageError("-j expects 1 to 1024 workers, got \(jobs)") }
            configuration.jobs = jobs
        }
        if let shard = args.value("--shard") {
            do {
                configuration.shard = try Shard(parsing: shard)
            } catch {
                throw UsageError(error.message)
            }
        }
        configuration.resume = args.has("--resume")
        configuration.reportList = try args.value("--report-list").map { try local($0, folder: false) }
        if configuration.resume, case .archive = destination {
            throw UsageError("--resume needs an output folder (-o), not --output-archive")
        }
        if args.positionals.filter({ $0 == "-" }).count > 1 { throw UsageError("`-` may be given once") }
        switch args.value("--progress") ?? "auto" {
        case "auto": configuration.progress = .automatic
        case "bar": configuration.progress = .bar
        case "lines": configuration.progress = .lines
        case "none": configuration.progress = .none
        case let other: throw UsageError("--progress expects auto, bar, lines or none, got '\(other)'")
        }
        // Fetched last, once every option is known to be good.
        if let transfer {
            for (n, input) in configuration.inputs.enumerated() where BucketTransfer.isBucketURL(input) {
                configuration.inputs[n] = try transfer.fetchInput(input)
            }
            for key in transfer.unfetchable { Console.error("warning: \(key): the key names no file; not read") }
        }
        return configuration
    }
}
