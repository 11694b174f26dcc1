// `symbolicate import [--store DIR] PATH...`: indexes symbol files into the store, every arch
// slice separately: dSYM bundles, .app, .xcarchive, folders (e.g. Xcode's DeviceSupport
// `Symbols` folders, imported from their symbol tables), .zip / .tar.gz archives, Mach-O and ELF.
// The summary goes to stderr, or as JSON (`--json`) to stdout, or to `-o FILE`: the server's
// upload child writes its JSON there, so the report reaches the server whole whatever its size.

import Foundation
import Import
import Reports
import Store
import SymbolicateModel

enum ImportCommand: Command {
    static let name = "import"
    static let summary = "Index dSYMs, apps, archives and binaries into the symbol store"
    static let about = """
        USAGE: symbolicate import [--store DIR] [--keep-originals] [--json] [-o FILE] PATH...

        Reads every Mach-O / ELF slice found in PATH (dSYM bundles, .app bundles, .xcarchives,
        folders, .zip / .tar / .tar.gz archives of these, single files) and writes one symbol table
        per build UUID and arch into the store. Builds already present are skipped; debug
        information replaces a symbol-table-only entry of the same build, never the reverse.

        A dyld shared cache is imported from its main file (dyld_shared_cache_arm64e): its
        subcaches (.1, .01, ...) and .symbols file are read from beside it, or from the same
        .zip / .tar; each system library in it becomes a build of its own.

        """

    static let json = CommonOptions.json.adding("The summary is printed as JSON.")

    static let output = ValueOption<String>(
        "-o", "--output", value: "FILE",
        help: "Write the summary to FILE, complete or not at all (default: stderr, or stdout with --json;"
            + " `-` is stdout).")

    static let options: [any CommandOption] =
        [StoreOption.store.adding("A folder store is created when missing.")] + StoreOption.cacheOptions
        + [json, output, keepOriginals]

    static let keepOriginals = FlagOption(
        "--keep-originals",
        help: "Also keep each plain file the builds were read from, as it was (for a dSYM bundle, its DWARF"
            + " file), in the store by SHA-256, indexed by build id and kind (debuginfo or executable).")

    static let epilogue = """
        EXIT STATUS: 0 every input imported (or already present), 65 some input could not be
        imported (the summary says which and why), 64 usage error, 1 other failure (the store's
        bucket did not answer, or failed on its side: import again later).

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError("import needs at least one PATH") }
        let store = try StoreOption.openForWriting(args)
        try store.requireWritable("import")
        let bar = ProgressLine(enabled: Console.stderrIsTerminal)
        var summary = store.importPaths(args.positionals) { progress in
            var line =
                "importing \(progress.inputsDone + 1)/\(progress.inputsTotal): \(count: progress.slicesDone, "slice")"
            if progress.bytesTotal > 0 {
                line += ", \(progress.bytesDone * 100 / max(progress.bytesTotal, 1))% of \(progress.input)"
            }
            if progress.sliceBytesTotal > 0 {
                line += ", \(progress.sliceBytesDone * 100 / progress.sliceBytesTotal)% of the DWARF of"
            }
            bar.update(line + " \(progress.item)")
        }
        bar.finish()
        if args.has(keepOriginals), let originals = Originals.of(store) {
            summary.failures += originals.keep(from: summary)
        }
        let output = try args.value(output)
        if args.has(json) {
            try IO.write(try ImportReport(summary).json(), to: output)
        } else if let output {
            try IO.write(Array((text(summary) + "\n").utf8), to: output)
        } else {
            Console.error(text(summary))
        }
        if summary.failures.isEmpty { return ExitCode.ok }
        // A bucket that did not answer is no fault of the inputs: a failure, to retry.
        if summary.failures.contains(where: { $0.error.code == .unavailable }) { return ExitCode.failure }
        return ExitCode.badInput
    }

    private struct ImportedBuild: Hashable {
        var uuid: BuildID
        var arch: Arch
    }

    /// A build is counted once: the slices of one build found twice in a run (an .app's symbol
    /// table beside its dSYM) are the build this run imported, not "already present", and debug
    /// information replacing a table imported earlier in the run is that one build imported.
    static func text(_ s: ImportSummary) -> String {
        var builds: [ImportedBuild: ImportSummary.Item] = [:]
        var order: [ImportedBuild] = []
        for item in s.imported {
            let key = ImportedBuild(uuid: item.uuid, arch: item.arch)
            if let earlier = builds[key] {
                var latest = item
                if earlier.outcome == .imported { latest.outcome = .imported }
                builds[key] = latest
            } else {
                builds[key] = item
                order.append(key)
            }
        }
        var seen = Set(order)
        let present = s.alreadyPresent.filter { seen.insert(ImportedBuild(uuid: $0.uuid, arch: $0.arch)).inserted }
        var lines = [
            "imported \(count: order.count, "build"), \(present.count) already present, \(s.failures.count) failed"
        ]
        for item in order.compactMap({ builds[$0] }) {
            let verb = item.outcome == .superseded ? "replaced" : "imported"
            lines.append("  \(verb) \(item.uuid.uuidString) \(item.arch) \(item.name) (\(item.kind.rawValue))")
        }
        for item in present {
            lines.append("  present  \(item.uuid.uuidString) \(item.arch) \(item.name) (\(item.kind.rawValue))")
        }
        for failure in s.failures { lines.append("  failed   \(failure.description)") }
        return lines.joined(separator: "\n")
    }
}
