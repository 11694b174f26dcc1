// `symbolicate reindex [--jobs N]`: rebuilds the store's builds from their kept originals (import
// --keep-originals) into build files of the current schema: those whose file is missing, damaged
// or outdated. Run again after a stop, it goes on where it was. Builds it cannot rebuild are
// named, with why.

import Foundation
import Import
import Store
import SymbolicateModel

enum ReindexCommand: Command {
    static let name = "reindex"
    static let summary = "Rebuild builds from their kept original files"
    static let about = """
        USAGE: symbolicate reindex [--store DIR] [--jobs N]

        Reads every kept original (import or serve --keep-originals) again and writes the builds it
        holds whose build file is missing, damaged or of another schema; builds already current are
        left as they are, so a reindex that was stopped can simply be run again. Builds that need
        rebuilding but have no original are named: import their files again.

        """

    static let jobs = ValueOption<Int>.integer(
        "--jobs", value: "N", in: 1...64, requirement: { "--jobs expects a whole number from 1 to 64, got \($0)" },
        help: "Originals read at once (default: the number of processors). Memory is that of one import per job.")

    static let options: [any CommandOption] = StoreOption.options + [jobs]

    static let epilogue = """
        EXIT STATUS: 0 every build that needed it was rebuilt, 1 some could not be (named on stderr),
        64 usage error.

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("reindex takes no positional arguments") }
        let jobs = try args.value(jobs) ?? ProcessInfo.processInfo.activeProcessorCount
        guard let store = try StoreOption.open(args, disabled: false, mustExist: true) else {
            return ExitCode.failure
        }
        try store.requireWritable("reindex")
        guard let originals = Originals.of(store) else {
            Console.error("this store keeps no original files: nothing to rebuild from")
            return ExitCode.failure
        }
        let report = try originals.reindex(store, jobs: jobs)
        for item in report.rebuilt {
            Console.error("rebuilt  \(item.uuid.uuidString) \(item.arch) \(item.name) (\(item.kind.rawValue))")
        }
        for failure in report.failures { Console.error("failed   \(failure.description)") }
        for build in report.withoutOriginals {
            Console.error(
                "cannot rebuild \(build.uuid.uuidString) \(build.arch) \(build.name) (\(build.status.rawValue)):"
                    + " no original kept; import its file again")
        }
        Console.error(
            "rebuilt \(count: report.rebuilt.count, "build"), \(report.current) already current,"
                + " \(report.failures.count + report.withoutOriginals.count) not rebuilt")
        return report.failures.isEmpty && report.withoutOriginals.isEmpty ? ExitCode.ok : ExitCode.failure
    }
}
