// `symbolicate list [--json]`: the builds in the store.

import Foundation
import Reports
import Store
import SymbolicateModel

enum ListCommand: Command {
    static let name = "list"
    static let summary = "List the builds in the symbol store"
    static let about = """
        USAGE: symbolicate list [--store DIR] [--json]

        One line per build: UUID, arch, kind (dwarf or symtab), size, import date, status, name; an
        ELF build id of a length other than 8, 16 or 20 bytes is marked unusual (it is kept).
        --json adds last_used_at, the last time a lookup used the build or an import found it
        already there (recorded at most hourly; absent until the first), which `gc --older-than`
        goes by with the import date, and `originals`, the kinds of original file kept for the build
        (`debuginfo`, `executable`; see import --keep-originals). Once the store keeps any originals,
        the table marks the builds that have none with `(no originals)`: reindex cannot rebuild them.

        """

    static let options: [any CommandOption] = StoreOption.options + [CommonOptions.json]

    static let epilogue = """
        EXIT STATUS: 0 ok, 64 usage error, 1 no store or other failure.

        """

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("list takes no arguments") }
        guard let store = try StoreOption.open(args, disabled: false, mustExist: true) else {
            return ExitCode.failure
        }
        let builds = try store.list()
        var kept: [BuildID: [OriginalKind]] = [:]
        for entry in try Originals.of(store)?.entries().entries ?? [] {
            kept[entry.buildID, default: []].append(entry.kind)
        }
        try Console.out(args.has(CommonOptions.json) ? json(builds, originals: kept) : table(builds, originals: kept))
        return ExitCode.ok
    }

    static func table(_ builds: [StoredBuild], originals: [BuildID: [OriginalKind]] = [:]) -> String {
        let dates = ISO8601DateFormatter()
        var out = ""
        for b in builds {
            let cols = [
                b.uuid.uuidString, b.arch.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0),
                b.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0),
                String(b.byteSize).leftPadded(10), dates.string(from: b.importedAt), b.status.rawValue, b.name,
            ]
            var mark = originals.isEmpty || originals[b.uuid] != nil ? "" : "  (no originals)"
            if !b.uuid.hasUsualLength { mark += "  (a build id of \(b.uuid.bytes.count) bytes: unusual)" }
            out += cols.joined(separator: "  ") + mark + "\n"
        }
        return out
    }

    static func json(_ builds: [StoredBuild], originals: [BuildID: [OriginalKind]] = [:]) -> String {
        let dates = ISO8601DateFormatter()
        var w = JSONWriter()
        w.beginArray()
        for b in builds {
            w.beginObject()
            w.string("uuid", b.uuid.uuidString)
            w.string("arch", b.arch.rawValue)
            w.string("name", b.name)
            w.string("kind", b.kind.rawValue)
            w.string("text_vmaddr", ASCII.hex(b.textVMAddress))
            w.number("text_size", b.textSize)
            w.number("bytes", b.byteSize)
            w.string("source", b.sourcePath)
            w.string("imported_at", dates.string(from: b.importedAt))
            if let used = b.lastUsedAt { w.string("last_used_at", dates.string(from: used)) }
            w.string("status", b.status.rawValue)
            if !b.uuid.hasUsualLength { w.bool("unusual_build_id_length", true) }
            if let origin = b.origin {
                w.beginObject("dyld_cache")
                w.string("uuid", origin.dyldCacheUUID)
                if let os = origin.osVersion { w.string("os_version", os) }
                w.string("image_path", origin.imagePath)
                w.endObject()
            }
            w.beginArray("originals")
            for kind in (originals[b.uuid] ?? []).map(\.rawValue).sorted() { w.string(nil, kind) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        return w.text + "\n"
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
