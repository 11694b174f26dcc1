// Originals: the symbol files a store was built from, kept as they were so builds can be rebuilt
// after a build-file schema change and handed back (to lldb, to a debuginfod client). Each file
// is a SHA-256 blob in the store's BlobStore; an index maps (build id, kind) to its blob, one small
// record per pair at `originals/<build id in lowercase hex>/<kind>`, on the same backend (a folder
// or the bucket), so replicas need no shared database. Kind is debuginfod's: `debuginfo` for a
// file holding the DWARF (a dSYM bundle's DWARF file, an ELF with .debug_info), `executable` for
// one holding only code and symbols. One file with several builds (a universal Mach-O) is one
// blob with one record per build id. A record is written only after its blob is whole, so a
// reader never finds a record pointing at half a file.

import Foundation
import SymbolicateModel
import SystemSupport

/// What a kept original is to debuginfod.
public enum OriginalKind: String, Sendable, CaseIterable {
    case debuginfo
    case executable
}

/// One index record: the blob holding the original of (build id, kind).
public struct OriginalEntry: Sendable, Hashable {
    public var buildID: BuildID
    public var kind: OriginalKind
    public var blob: BlobKey
    public var size: Int64
    /// The file's name when it was imported (`MyApp`, `libfoo.so.debug`).
    public var name: String

    /// The record's text: the blob, its size and the name, one per line.
    var record: [UInt8] { Array("\(blob.description)\n\(size)\n\(name)\n".utf8) }

    init(buildID: BuildID, kind: OriginalKind, blob: BlobKey, size: Int64, name: String) {
        self.buildID = buildID
        self.kind = kind
        self.blob = blob
        self.size = size
        self.name = name
    }

    init?(buildID: BuildID, kind: OriginalKind, record: [UInt8]) {
        let lines = String(decoding: record, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0].hasPrefix("sha256:"),
            let blob = BlobKey(.sha256, String(lines[0].dropFirst(7))), let size = Int64(lines[1]), size >= 0
        else { return nil }
        self.init(buildID: buildID, kind: kind, blob: blob, size: size, name: String(lines[2]))
    }
}

/// The originals of a store: blobs plus their (build id, kind) index.
public struct Originals: Sendable {
    public let blobs: BlobStore
    static let prefix = "originals/"
    static let maxRecordBytes = 64 << 10

    public init(blobs: BlobStore) { self.blobs = blobs }

    /// The originals of `store`, on its folder or bucket.
    public static func of(_ store: any SymbolStoring) -> Originals? { BlobStore.of(store).map(Originals.init) }

    static func recordPath(_ id: BuildID, _ kind: OriginalKind) -> String {
        prefix + id.compactString + "/" + kind.rawValue
    }

    /// Keeps the file at `path` as the original of each of `builds` (build id and kind): the blob
    /// first, then the records.
    /// `name` is the file's name to record (the path's last component unless given).
    public func keep(_ path: String, name: String? = nil, for builds: [(BuildID, OriginalKind)]) throws {
        guard !builds.isEmpty else { return }
        let (key, size) = try blobs.putFile(path)
        let name = name ?? PathParts.last(path) ?? path
        for (id, kind) in builds {
            let entry = OriginalEntry(buildID: id, kind: kind, blob: key, size: size, name: name)
            try blobs.backend.write(entry.record, to: Self.recordPath(id, kind))
        }
    }

    /// The record for (id, kind), or nil; a record that cannot be read is bad input.
    public func entry(_ id: BuildID, _ kind: OriginalKind) throws -> OriginalEntry? {
        let path = Self.recordPath(id, kind)
        guard let bytes = try blobs.backend.read(path, maxBytes: Self.maxRecordBytes) else { return nil }
        guard let entry = OriginalEntry(buildID: id, kind: kind, record: bytes) else {
            throw SymbolicateError(.badInput, "the originals index record \(path) is damaged: import the file again")
        }
        return entry
    }

    /// Every record, with the paths of records that cannot be read.
    public func entries() throws -> (entries: [OriginalEntry], damaged: [String]) {
        var entries: [OriginalEntry] = []
        var damaged: [String] = []
        for item in try blobs.backend.list(prefix: Self.prefix) {
            let parts = item.path.dropFirst(Self.prefix.count).split(separator: "/")
            guard parts.count == 2, let id = BuildID(string: parts[0]), id.compactString == parts[0],
                let kind = OriginalKind(rawValue: String(parts[1]))
            else {
                damaged.append(item.path)
                continue
            }
            guard let bytes = try blobs.backend.read(item.path, maxBytes: Self.maxRecordBytes),
                let entry = OriginalEntry(buildID: id, kind: kind, record: bytes)
            else {
                damaged.append(item.path)
                continue
            }
            entries.append(entry)
        }
        return (entries, damaged)
    }

    /// Forgets the originals of `ids` (their records; the blobs go at the next gc when nothing
    /// else names them). Answers how many records went.
    @discardableResult
    public func remove(_ ids: [BuildID]) throws -> Int {
        var removed = 0
        for id in ids {
            for kind in OriginalKind.allCases where try blobs.backend.size(Self.recordPath(id, kind)) != nil {
                try blobs.backend.delete(Self.recordPath(id, kind))
                removed += 1
            }
        }
        return removed
    }

    /// Removes SHA-256 blobs that no record names and that were written before `date` (a blob is
    /// written before its record, so a younger one may belong to an import still running).
    /// Answers the blobs removed (or that would be, when `dryRun`).
    public func collectGarbage(writtenBefore date: Date, dryRun: Bool) throws -> [BlobKey] {
        let named = Set(try entries().entries.map(\.blob))
        var removed: [BlobKey] = []
        for (key, _) in try blobs.list(.sha256, olderThan: date) where !named.contains(key) {
            if !dryRun { try blobs.remove(key) }
            removed.append(key)
        }
        return removed
    }

    /// What is wrong with the originals: damaged records, records whose blob is gone, and (when
    /// `deep`) blobs whose bytes no longer hash to their name.
    public func problems(deep: Bool) throws -> [VerifyReport.Problem] {
        let (entries, damaged) = try entries()
        var problems = damaged.map {
            VerifyReport.Problem(
                kind: .damaged, uuid: nil, arch: nil, file: $0,
                message: "an originals index record that cannot be read: remove it and import the file again")
        }
        var checked: [BlobKey: Bool?] = [:]
        for entry in entries {
            let file = Self.recordPath(entry.buildID, entry.kind)
            let state: Bool?
            if let known = checked[entry.blob] {
                state = known
            } else {
                state = deep ? try blobs.check(entry.blob) : (try blobs.size(entry.blob) == entry.size ? true : nil)
                checked[entry.blob] = state
            }
            switch state {
            case .none:
                problems.append(
                    .init(
                        kind: .missingFile, uuid: entry.buildID, arch: nil, file: file,
                        message: "the original \(entry.name) (\(entry.blob)) is not in the blob store:"
                            + " import the file again with --keep-originals"))
            case .some(false):
                problems.append(
                    .init(
                        kind: .damaged, uuid: entry.buildID, arch: nil, file: entry.blob.path,
                        message: "the original \(entry.name) no longer hashes to \(entry.blob):"
                            + " import the file again with --keep-originals"))
            case .some(true):
                break
            }
        }
        return problems
    }
}

extension Originals {
    /// What copying originals into another store did.
    public struct CopySummary: Sendable, Equatable {
        public var copied = 0
        public var present = 0
        public var failures: [(record: String, error: SymbolicateError)] = []

        public static func == (a: Self, b: Self) -> Bool {
            a.copied == b.copied && a.present == b.present && a.failures.map(\.record) == b.failures.map(\.record)
        }
    }

    /// Copies every record of this store, with its blob, into `destination` (`sync`): a blob the
    /// destination has (same name and size) is not sent again, and a record already naming the same
    /// blob there is left as it is, so a copy that stopped is resumed by running it again. Each blob
    /// goes through a local temporary file and is hashed again on the way in, so a damaged one is a
    /// failure, never copied. A damaged record here is a failure of that record.
    public func copy(to destination: Originals, progress: (Int, Int) -> Void = { _, _ in }) throws -> CopySummary {
        let (entries, damaged) = try entries()
        var summary = CopySummary()
        for path in damaged {
            summary.failures.append(
                (path, SymbolicateError(.badInput, "an originals index record that cannot be read", path: path)))
        }
        for (index, entry) in entries.enumerated() {
            progress(index + 1, entries.count)
            let record = Self.recordPath(entry.buildID, entry.kind)
            do {
                if try destination.entry(entry.buildID, entry.kind)?.blob == entry.blob,
                    try destination.blobs.size(entry.blob) == entry.size
                {
                    summary.present += 1
                    continue
                }
                if try destination.blobs.size(entry.blob) != entry.size {
                    let copy = try TemporaryFile(in: NSTemporaryDirectory(), suffix: ".original")
                    guard try blobs.backend.download(entry.blob.path, to: copy.path) else {
                        throw SymbolicateError(
                            .notFound, "the original \(entry.name) (\(entry.blob)) is not in the blob store",
                            path: record)
                    }
                    let (key, _) = try destination.blobs.putFile(copy.path)
                    guard key == entry.blob else {
                        throw SymbolicateError(
                            .io, "the original \(entry.name) no longer hashes to \(entry.blob): it was not copied",
                            path: record)
                    }
                }
                try destination.blobs.backend.write(entry.record, to: record)
                summary.copied += 1
            } catch {
                summary.failures.append((record, SymbolicateError.wrapping(error)))
            }
        }
        return summary
    }
}
