// What the assembly of one chunked upload made, kept beside the chunks in the blob store's
// backend (`assembled/sha1/<file sha1>.json`): the builds it imported or found present and the
// `dif` sentry-cli prints, or that the file was ignored and why. Any replica, and any later run
// of the same upload, answers `ok` from it without a chunk being sent; a record whose builds were
// since removed from the store no longer holds, and the file is assembled again.

import Foundation
import Store
import SymbolicateModel

struct AssemblyRecord: Codable, Equatable {
    /// Layout version of the record.
    static let currentVersion = 1
    /// A record larger than this is not ours.
    static let maxBytes = 1 << 20

    struct Build: Codable, Equatable {
        var uuid: String
        var arch: String
    }

    /// The file sentry-cli prints as `OK <debugId> (<objectName>; <cpuName> <kind>)`.
    struct Dif: Codable, Equatable {
        var debugID: String
        var objectName: String
        var cpuName: String
        /// symbolic's object kind: `dbg` for debug information, `exe` for a symbol table.
        var kind: String
        var features: [String]
    }

    var version = AssemblyRecord.currentVersion
    var builds: [Build] = []
    var dif: Dif?
    /// Why the file was ignored, or what else to know.
    var detail: String?

    static func path(_ checksum: String) -> String { "assembled/sha1/\(checksum).json" }

    /// The record for the file `checksum`, or nil (none, or one this release cannot read).
    static func read(_ checksum: String, from backend: any BlobBackend) throws -> AssemblyRecord? {
        guard let bytes = try backend.read(path(checksum), maxBytes: maxBytes) else { return nil }
        guard let record = try? JSONDecoder().decode(AssemblyRecord.self, from: Data(bytes)),
            record.version == currentVersion
        else { return nil }
        return record
    }

    func write(_ checksum: String, to backend: any BlobBackend) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try backend.write(Array(try encoder.encode(self)), to: Self.path(checksum))
    }

    /// False when a build the file made is no longer in the store (removed since).
    func stillHolds(in store: any SymbolStoring) throws -> Bool {
        for build in builds {
            guard let uuid = BuildID(string: build.uuid) else { return false }
            guard try store.builds(matching: uuid).contains(where: { $0.arch.rawValue == build.arch }) else {
                return false
            }
        }
        return true
    }

    /// The `ok` entry of an assemble answer.
    func answer(checksum: String) -> [String: Any] {
        var entry = DifAssembly.entry("ok", detail: detail)
        if let dif {
            entry["dif"] = [
                "id": checksum, "uuid": dif.debugID, "debugId": dif.debugID, "objectName": dif.objectName,
                "cpuName": dif.cpuName, "sha1": checksum, "data": ["type": dif.kind, "features": dif.features],
            ]
        }
        return entry
    }

    /// Sentry's debug id of a build: a Mach-O UUID as it is; an ELF build id's first 16 bytes
    /// (zero-padded) read as a little-endian GUID, as sentry-cli computes it.
    static func debugID(_ uuid: BuildID, elf: Bool) -> String {
        var bytes = Array(uuid.bytes.prefix(16))
        bytes += [UInt8](repeating: 0, count: 16 - bytes.count)
        if elf {
            bytes[0..<4].reverse()
            bytes[4..<6].reverse()
            bytes[6..<8].reverse()
        }
        return BuildID(bytes: bytes).uuidString.lowercased()
    }
}
