// `symbolicate remove UUID...`: deletes builds from the store (every arch of each UUID).

import Store
import SymbolicateModel

enum RemoveCommand: Command {
    static let name = "remove"
    static let summary = "Remove builds from the symbol store by UUID"
    static let about = """
        USAGE: symbolicate remove [--store DIR] UUID...

        Removes every build (all archs) with the given UUIDs. UUIDs may be written with or without
        dashes, in any case. Their kept originals are forgotten too (the files go at the next gc).

        """

    static let options: [any CommandOption] = StoreOption.options

    static let epilogue = """
        EXIT STATUS: 0 every UUID was removed, 1 some UUID was not in the store, 64 usage error.

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError("remove needs at least one UUID") }
        let uuids = try args.positionals.map { text -> BuildID in
            guard let id = BuildID(string: text) else { throw UsageError("'\(text)' is not a UUID") }
            return id
        }
        guard let store = try StoreOption.open(args, disabled: false, mustExist: true) else {
            return ExitCode.failure
        }
        let removed = try store.remove(uuids)
        try Originals.of(store)?.remove(removed.map(\.uuid))
        for b in removed { Console.error("removed \(b.uuid.uuidString) \(b.arch) \(b.name)") }
        let missing = uuids.filter { id in !removed.contains { $0.uuid == id } }
        for id in missing { Console.error("not in the store: \(id.uuidString)") }
        return missing.isEmpty ? ExitCode.ok : ExitCode.failure
    }
}
