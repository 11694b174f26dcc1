// BlobStore: content-addressed bytes beside a store's builds, named by a digest algorithm and the
// digest of the bytes (`blobs/sha1/ab/cdef...`). It holds the chunks of chunked uploads (sentry-cli
// names them by SHA-1) until they are assembled, and has room for original symbol files by
// SHA-256. A put is verified (bytes that do not hash to their name are refused) and whole (a
// reader sees all of a blob or none), so any process or replica on the same store may read what
// another wrote. It sits on a `BlobBackend`, the store's own kind of place: a folder for a folder
// store, the bucket (under the store's prefix) for a bucket store, as the symbol store has its
// two backends. The backend also keeps small records next to the blobs (what an assembly made).

import Digest
import Foundation
import ObjectStorage
import SymbolicateModel

/// The digest a blob is named by.
public enum BlobAlgorithm: String, Sendable, CaseIterable {
    case sha1
    case sha256

    /// Hex digits in a name.
    public var hexLength: Int { self == .sha1 ? 40 : 64 }

    /// The lowercase hex digest of `bytes`.
    public func hex(_ bytes: [UInt8]) -> String {
        switch self {
        case .sha1: return SHA1.hex(bytes)
        case .sha256: return SHA256.hex(bytes)
        }
    }
}

/// A blob's name: the algorithm and the lowercase hex digest of its bytes.
public struct BlobKey: Sendable, Hashable, CustomStringConvertible {
    public let algorithm: BlobAlgorithm
    public let digest: String

    /// Nil unless `digest` is exactly the algorithm's number of hex digits (either case).
    public init?(_ algorithm: BlobAlgorithm, _ digest: String) {
        let lower = digest.lowercased()
        guard lower.utf8.count == algorithm.hexLength, lower.utf8.allSatisfy({ ASCII.hexDigitValue($0) != nil }) else {
            return nil
        }
        self.algorithm = algorithm
        self.digest = lower
    }

    /// `blobs/sha1/ab/cdef...`: two hex digits of fan-out, so no folder holds millions of entries.
    public var path: String {
        "blobs/\(algorithm.rawValue)/" + digest.prefix(2) + "/" + digest.dropFirst(2)
    }

    public var description: String { "\(algorithm.rawValue):\(digest)" }

    /// The key a backend path names, or nil for another path.
    init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "blobs", let algorithm = BlobAlgorithm(rawValue: String(parts[1])),
            parts[2].utf8.count == 2
        else { return nil }
        self.init(algorithm, String(parts[2] + parts[3]))
    }
}

/// One object a backend listed: its path under the backend's root, size and last change.
public struct BlobEntry: Sendable, Equatable {
    public var path: String
    public var size: Int64
    public var modified: Date
}

/// Where blobs and records live: paths relative to a root (a folder, or a bucket prefix).
public protocol BlobBackend: Sendable {
    /// For messages: the folder, or `s3://BUCKET/PREFIX`.
    var locationDescription: String { get }
    /// Writes `bytes` whole under `path` (replacing what was there).
    func write(_ bytes: [UInt8], to path: String) throws
    /// The bytes under `path`, nil when there are none; more than `maxBytes` is an error.
    func read(_ path: String, maxBytes: Int) throws -> [UInt8]?
    /// Writes the object under `path` into the local file `destination`; false when there is none.
    func download(_ path: String, to destination: String) throws -> Bool
    /// The size of the object under `path`, or nil.
    func size(_ path: String) throws -> Int64?
    /// Every object whose path starts with `prefix`.
    func list(prefix: String) throws -> [BlobEntry]
    /// Removes the object under `path` (none there is not an error).
    func delete(_ path: String) throws
}

/// Content-addressed blobs on a backend.
public struct BlobStore: Sendable {
    public let backend: any BlobBackend

    /// Chunks of chunked uploads (sha1 blobs) are removed this long after they were written
    /// (a day): an upload takes minutes, a resumed one hours.
    public static let chunkLifetime: TimeInterval = 86_400

    public init(backend: any BlobBackend) { self.backend = backend }

    /// The blob store of `store`: its folder, or its bucket under its prefix.
    public static func of(_ store: any SymbolStoring) -> BlobStore? {
        if let folder = store as? SymbolStore { return BlobStore(backend: FolderBlobBackend(root: folder.directory)) }
        if let bucket = store as? BucketStore {
            return BlobStore(backend: BucketBlobBackend(client: bucket.client, location: bucket.location))
        }
        return nil
    }

    /// Stores `bytes` as `key` after checking that they hash to it; a mismatch is bad input and
    /// stores nothing. Putting a blob that is already there writes it again (same bytes).
    public func put(_ bytes: [UInt8], as key: BlobKey) throws {
        let actual = key.algorithm.hex(bytes)
        guard actual == key.digest else {
            throw SymbolicateError(
                .badInput, "the bytes named \(key) hash to \(key.algorithm.rawValue) \(actual): refused")
        }
        try backend.write(bytes, to: key.path)
    }

    /// The blob's bytes, or nil when it is not stored.
    public func get(_ key: BlobKey, maxBytes: Int) throws -> [UInt8]? { try backend.read(key.path, maxBytes: maxBytes) }

    /// The blob's size, or nil when it is not stored.
    public func size(_ key: BlobKey) throws -> Int64? { try backend.size(key.path) }

    public func exists(_ key: BlobKey) throws -> Bool { try size(key) != nil }

    /// Blobs of `algorithm` last written before `date` (what gc removes).
    public func list(_ algorithm: BlobAlgorithm, olderThan date: Date) throws -> [(key: BlobKey, entry: BlobEntry)] {
        try backend.list(prefix: "blobs/\(algorithm.rawValue)/").compactMap { entry in
            guard entry.modified < date, let key = BlobKey(path: entry.path) else { return nil }
            return (key, entry)
        }
    }

    public func remove(_ key: BlobKey) throws { try backend.delete(key.path) }

    /// Removes the blobs of `algorithm` written before `date`; answers how many went.
    @discardableResult
    public func removeBlobs(_ algorithm: BlobAlgorithm, olderThan date: Date) throws -> Int {
        var removed = 0
        for (key, _) in try list(algorithm, olderThan: date) {
            try remove(key)
            removed += 1
        }
        return removed
    }
}
