// `symbolicate upload --server URL --token-file FILE PATH...`: sends symbol files to a running
// `symbolicate serve` over the chunked upload protocol it shares with sentry-cli (Sources/Uploads):
// inputs as `import` reads them, only the chunks the server lacks, retried with backoff, and a
// run that was interrupted resumes where it stopped. `--dry-run` says what would go up and which
// builds the server has, and changes nothing.

import Foundation
import Server
import Store
import SymbolicateModel
import SystemSupport
import Uploads

enum UploadCommand: Command {
    static let name = "upload"
    static let summary = "Send dSYMs, apps, archives and binaries to a symbolicate server"
    static let about = """
        USAGE: symbolicate upload --server URL (--token-file FILE | $SYMBOLICATE_TOKEN) [--dry-run] PATH...

        Finds every Mach-O / ELF file in PATH (dSYM bundles, .app bundles, .xcarchives, folders,
        .zip / .tar / .tar.gz archives of these, single files) and uploads it to a `symbolicate serve`
        in chunks (the protocol sentry-cli uses), which the server imports as `POST /v1/symbols`
        does. Only the chunks the server does not hold are sent: files it has send nothing, and a
        run that was interrupted, run again, sends only what is left. Requests are retried with
        backoff while the server is unreachable or busy.

        """

    static let server = ValueOption<String>(
        "--server", value: "URL", help: "The server, e.g. https://symbols.example.com (default: $SYMBOLICATE_SERVER).")
    static let tokenFile = ValueOption<String>(
        "--token-file", value: "FILE",
        help: "A file whose first line is a write token, `NAME:TOKEN` or `TOKEN`, as the server's --token-file"
            + " (default: the token in $SYMBOLICATE_TOKEN).")
    static let dryRun = FlagOption(
        "--dry-run", help: "List what would be uploaded and which of its builds the server has; send nothing.")

    static let options: [any CommandOption] = [server, tokenFile, dryRun]

    static let epilogue = """
        EXIT STATUS: 0 every file uploaded or already on the server, 1 some file was not (each is
        named with why), 65 an input holds no symbol file or cannot be read, 64 usage error.

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError("upload needs at least one PATH") }
        let environment = ProcessInfo.processInfo.environment
        guard let url = try args.value(server) ?? environment["SYMBOLICATE_SERVER"], !url.isEmpty else {
            throw UsageError("upload needs --server URL (or SYMBOLICATE_SERVER)")
        }
        let token: String
        if let file = try args.value(tokenFile) {
            token = try TokenSet.firstToken(inFile: file)
        } else if let value = environment["SYMBOLICATE_TOKEN"], !value.isEmpty {
            token = value
        } else {
            throw UsageError("upload needs --token-file FILE (or the token in SYMBOLICATE_TOKEN)")
        }
        let scratch = NSTemporaryDirectory() + "symbolicate-upload-" + UUID().uuidString
        try Folders.create(scratch, what: "scratch folder")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let files = try UploadInputs.collect(args.positionals, scratch: scratch)

        let bar = ProgressLine(enabled: Console.stderrIsTerminal)
        let uploader = try ChunkedUploader(
            server: url, token: token, notice: { bar.say($0) },
            progress: { progress in
                var line = "\(progress.phase): \(progress.filesDone)/\(progress.filesTotal) files"
                if progress.bytesToSend > 0 {
                    line += ", \(progress.bytesSent * 100 / progress.bytesToSend)% of \(progress.bytesToSend) bytes"
                }
                bar.update(line)
            })
        let options = try uploader.options()
        var chunked: [ChunkedFile] = []
        for (index, file) in files.enumerated() {
            bar.update("reading \(index + 1)/\(files.count): \(file.name)")
            chunked.append(try ChunkedFile(file, chunkSize: options.chunkSize))
        }
        if args.has(dryRun) {
            bar.finish()
            return try dryRunReport(chunked, uploader: uploader)
        }
        let outcomes = try uploader.upload(chunked, options: options)
        bar.finish()
        var failed = 0
        for outcome in outcomes {
            let id = outcome.debugID.map { " \($0)" } ?? ""
            switch outcome.state {
            case .uploaded:
                Console.error("  uploaded \(outcome.file.source)\(id) (\(count: outcome.chunksSent, "chunk") sent)")
            case .present: Console.error("  present  \(outcome.file.source)\(id)")
            case .ignored: Console.error("  ignored  \(outcome.file.source): \(outcome.detail ?? "")")
            case .failed:
                failed += 1
                Console.error("  FAILED   \(outcome.file.source): \(outcome.detail ?? "")")
            }
        }
        let sent = outcomes.filter { $0.state == .uploaded }.count
        Console.error(
            "uploaded \(count: sent, "file"), \(outcomes.filter { $0.state == .present }.count) already on the server, \(failed) failed"
        )
        return failed == 0 ? ExitCode.ok : ExitCode.failure
    }

    static func dryRunReport(_ files: [ChunkedFile], uploader: ChunkedUploader) throws -> Int32 {
        var lines: [String] = []
        for file in files {
            let builds = try uploader.presence(of: file.file)
            let states = builds.map { "\($0.uuid) \($0.arch) \($0.present ? "on the server" : "missing")" }
            lines.append(
                "\(file.file.source): \(file.file.size) bytes, \(count: file.chunks.count, "chunk"); "
                    + states.joined(separator: ", "))
        }
        try Console.out(lines.joined(separator: "\n") + "\n")
        return ExitCode.ok
    }
}
