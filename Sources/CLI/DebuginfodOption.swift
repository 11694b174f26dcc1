// The debuginfod options of the commands that symbolicate (the default command, batch, serve):
// `--debuginfod URL` (repeatable) or else `DEBUGINFOD_URLS` names the servers asked for an ELF
// build the store lacks; what they send is checked and imported into the store (a folder store is
// created when missing), its original kept with `--keep-originals`. Off when neither names one.

import Foundation
import Import
import Store
import SymbolicateModel
import SystemSupport

enum DebuginfodOption {
    static let servers = RepeatedOption<String>(
        "--debuginfod", value: "URL",
        help: "A debuginfod server asked for builds the store lacks, by build id (default: the"
            + " space-separated URLs in $DEBUGINFOD_URLS). What it sends is imported into the store when it"
            + " holds the build id asked for.")
    static let keepOriginals = FlagOption(
        "--keep-originals", help: "Keep each file fetched from a debuginfod server as its build's original.")

    static let options: [any CommandOption] = [servers, keepOriginals]

    /// The servers `args` and the environment name; nil when none.
    static func settings(_ args: Arguments) throws -> DebuginfodSettings? {
        do {
            return try DebuginfodSettings.from(
                urls: try args.values(servers),
                environment: Environment.values(of: DebuginfodSettings.environmentVariables))
        } catch let error as SymbolicateError where error.code == .badInput {
            throw UsageError(error.message)
        }
    }

    /// The fetcher for `store` (opened for writing when absent and --debuginfod is given), or nil
    /// when no server is named or the store is off (`--no-store`).
    static func fetcher(_ args: Arguments, store: inout (any SymbolStoring)?, noStore: Bool) throws
        -> DebuginfodFetcher?
    {
        guard var settings = try settings(args) else { return nil }
        if noStore {
            if args.given(servers) { throw UsageError("--debuginfod imports into the store: drop --no-store") }
            return nil
        }
        settings.keepOriginals = args.has(keepOriginals)
        // $DEBUGINFOD_URLS alone (often set for the whole system) never creates a store.
        if store == nil, !args.given(servers) { return nil }
        let target = try store ?? StoreOption.openForWriting(args)
        store = target
        return try DebuginfodFetcher(settings: settings, store: target)
    }

    /// The servers' complaints (a refused file, a server that did not answer), for stderr.
    static func report(_ fetcher: DebuginfodFetcher?) {
        for note in fetcher?.notes ?? [] { Console.error(note) }
    }
}
