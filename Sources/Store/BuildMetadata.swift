// BuildMetadata: the small JSON object a bucket store keeps per build in place of a catalog row
// (`catalog/<UUID>-<arch>.json`): what `list` shows and what a lookup needs to pick a build file.
// A bucket has no transactions and no locks, so the catalog is these objects, found by listing
// the `catalog/` prefix; each build's entry is written by one PUT and read by one GET. The last
// use of a build is an empty marker object beside it (`catalog/<UUID>-<arch>.used`) whose
// Last-Modified time is read from the listing, so recording a use never rewrites the metadata.

import BuildFiles
import Foundation
import SymbolicateModel

struct BuildMetadata: Codable, Equatable {
    /// Bumped when the fields change; an entry of another format is reported, not guessed at.
    static let format = 1

    var format: Int
    var uuid: String
    var arch: String
    var name: String
    var kind: String
    var textVMAddress: UInt64
    var textSize: UInt64
    var sourcePath: String
    /// Seconds since 1970.
    var importedAt: Double
    var byteSize: Int64
    var schemaVersion: Int
    /// The build file's key, relative to the store's prefix.
    var file: String
    /// The build file's checksum (`crc32:` and 8 hex digits; releases without the field ignore
    /// it), or its SHA-256 in `sha256` (entries of releases that recorded that); neither in
    /// entries written before checksums were recorded.
    var checksum: String?
    var sha256: String?
    /// The dyld shared cache an image's build came from (absent for other builds).
    var origin: BuildOrigin?

    enum CodingKeys: String, CodingKey {
        case format, uuid, arch, name, kind
        case textVMAddress = "text_vmaddr"
        case textSize = "text_size"
        case sourcePath = "source_path"
        case importedAt = "imported_at"
        case byteSize = "byte_size"
        case schemaVersion = "schema_version"
        case file, checksum, sha256, origin
    }

    init(_ row: StoredBuild) {
        format = BuildMetadata.format
        uuid = row.uuid.uuidString
        arch = row.arch.rawValue
        name = row.name
        kind = row.kind.rawValue
        textVMAddress = row.textVMAddress
        textSize = row.textSize
        sourcePath = row.sourcePath
        importedAt = row.importedAt.timeIntervalSince1970
        byteSize = row.byteSize
        schemaVersion = row.schemaVersion
        file = row.file
        switch row.checksum {
        case .sha256(let digest)?: sha256 = digest
        case let other?: checksum = other.recorded
        case nil: break
        }
        origin = row.origin
    }

    var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array((try? encoder.encode(self)) ?? Data())
    }

    /// Decodes an entry read from `key`; throws a message naming the key when it is not one.
    static func decode(_ bytes: [UInt8], key: String) throws -> BuildMetadata {
        let metadata: BuildMetadata
        do {
            metadata = try JSONDecoder().decode(BuildMetadata.self, from: Data(bytes))
        } catch {
            throw SymbolicateError(.io, "not a build metadata object (\(error.localizedDescription))", path: key)
        }
        guard metadata.format == BuildMetadata.format else {
            throw SymbolicateError(
                .unsupported,
                "build metadata of format \(metadata.format); this symbolicate reads \(BuildMetadata.format)",
                path: key)
        }
        guard BuildID(string: metadata.uuid) != nil, SymbolKind(rawValue: metadata.kind) != nil else {
            throw SymbolicateError(.io, "build metadata with a malformed uuid or kind", path: key)
        }
        return metadata
    }

    /// The entry as a catalog row; `lastUsedAt` comes from the use marker.
    func row(lastUsedAt: Date?) -> StoredBuild? {
        guard let id = BuildID(string: uuid), let kind = SymbolKind(rawValue: kind) else { return nil }
        return StoredBuild(
            uuid: id, arch: Arch(arch), name: name, kind: kind, textVMAddress: textVMAddress, textSize: textSize,
            sourcePath: sourcePath, importedAt: Date(timeIntervalSince1970: importedAt), lastUsedAt: lastUsedAt,
            byteSize: byteSize, status: schemaVersion == Int(BuildFile.schemaVersion) ? .ready : .outdated,
            schemaVersion: schemaVersion,
            // The key follows from UUID, arch and schema version, with the publication the
            // stored field names: a stored key of any other shape is not trusted (a tampered entry
            // must not aim `remove` elsewhere), and the entry is read as one of before publications.
            file: BucketStore.buildKey(
                uuid: id, arch: Arch(arch), schemaVersion: schemaVersion,
                publication: BucketStore.publication(
                    of: file, uuid: id, arch: Arch(arch), schemaVersion: schemaVersion)),
            checksum: BuildChecksum.stored(checksum, sha256: sha256), origin: origin)
    }
}
