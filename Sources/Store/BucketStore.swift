// BucketStore: a symbol store in an S3-compatible bucket, under `s3://BUCKET[/PREFIX]`, for
// replicas that share no disk. Keys, relative to the prefix:
//
//   builds/v<schema>/<UUID>-<arch>.<publication>.sqlite   a build file, immutable, written complete
//                                                        by one PUT
//   catalog/<UUID>-<arch>.json     the build's metadata (BuildMetadata), written after the file it names
//   catalog/<UUID>-<arch>.used     empty; its Last-Modified is the build's last use
//
// Each publication of a build (an import, or the import that renews an old one) writes a file of
// its own, named by 16 random hex digits, and then points the entry at it, so a key is never
// written twice: a cached copy never goes stale, and whoever removes one publication's file (gc,
// or the publication that replaced it) can never remove another's. Entries written before
// publications had names point at `builds/v<schema>/<UUID>-<arch>.sqlite`. The schema version in
// the key means a newer format never overwrites an older one. There is no catalog file to lock:
// a listing of `catalog/` is the catalog, and an entry is written after its build file, so whoever
// sees an entry finds its file (or, when a newer publication removed it meanwhile, reads the entry
// again). Build files are fetched into a local BuildCache and opened from there, exactly as a
// folder store opens its own.
//
// This file holds the store and the read side; imports are in BucketStore+Import.swift, verify,
// gc and sync in BucketStore+Maintenance.swift.

import BuildFiles
import Foundation
import ObjectStorage
import SymbolicateModel

public final class BucketStore: Sendable {
    public let location: S3Location
    public let client: S3Client
    public let cache: BuildCache
    /// The cache folder (its `tmp/` holds the bucket store's temporary files).
    let cacheRoot: String
    /// `gc` never removes a build used or imported more recently than this.
    let gracePeriod: TimeInterval
    private let openSources = OpenBuildFiles()
    /// Metadata already read, by key and ETag: a listing whose ETags did not change costs no GETs.
    private let metadataByKey = Locked([String: (etag: String?, metadata: BuildMetadata)]())
    private let cachedStatistics = Locked<(at: Date, value: StoreStatistics)?>(nil)

    /// `gc`'s grace period unless told otherwise: a day.
    public static let defaultGracePeriod: TimeInterval = 86_400
    /// How far inside the grace period an import still counts an existing build as present, and
    /// how long `gc` may act on one listing (see BucketStore+Maintenance.swift).
    static let safetyMargin: TimeInterval = 3600

    public convenience init(location text: String, cacheDirectory: String, cacheBytes: Int64) throws {
        let location: S3Location
        let configuration: S3Configuration
        do {
            location = try S3Location(parsing: text)
            configuration = try S3Configuration.fromEnvironment()
        } catch {
            throw BucketStore.error(error)
        }
        let client: S3Client
        do {
            client = try S3Client(configuration: configuration)
        } catch {
            throw BucketStore.error(error)
        }
        try self.init(location: location, client: client, cacheDirectory: cacheDirectory, cacheBytes: cacheBytes)
    }

    public init(
        location: S3Location, client: S3Client, cacheDirectory: String, cacheBytes: Int64,
        gracePeriod: TimeInterval = BucketStore.defaultGracePeriod
    ) throws {
        self.location = location
        self.client = client
        self.cacheRoot = cacheDirectory
        self.gracePeriod = gracePeriod
        cache = try BuildCache(root: cacheDirectory, location: location, capacity: cacheBytes)
    }

    public var locationDescription: String { location.description }
    public var isReadOnly: Bool { false }
    /// A bucket says whether it may be written only when asked to: a refused PUT is named then.
    public func requireWritable(_ operation: String) throws {}

    // MARK: Keys

    /// The key of one publication's build file; `publication` nil gives the key entries written
    /// before publications had names point at.
    static func buildKey(
        uuid: BuildID, arch: Arch, schemaVersion: Int = Int(BuildFile.schemaVersion), publication: String? = nil
    ) -> String {
        "builds/v\(schemaVersion)/" + SymbolStore.buildStem(uuid: uuid, arch: arch)
            + (publication.map { "." + $0 } ?? "")
            + ".sqlite"
    }

    /// A new publication's name: 16 random lowercase hex digits.
    static func newPublication() -> String {
        let digits = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }

    /// The publication `file` names when it is one of this build's keys
    /// (`builds/v<schema>/<UUID>-<arch>.<16 lowercase hex digits>.sqlite`), else nil.
    static func publication(of file: String, uuid: BuildID, arch: Arch, schemaVersion: Int) -> String? {
        let stem = Array(buildKey(uuid: uuid, arch: arch, schemaVersion: schemaVersion).utf8.dropLast(7)) + [0x2E]
        let suffix = Array(".sqlite".utf8)
        let bytes = Array(file.utf8)
        guard bytes.count == stem.count + 16 + suffix.count, bytes.starts(with: stem),
            bytes.suffix(7).elementsEqual(suffix)
        else { return nil }
        let name = bytes[stem.count..<(stem.count + 16)]
        // Lowercase hex only, as newPublication writes it: one key per publication.
        guard name.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    static func entryName(uuid: BuildID, arch: Arch) -> String {
        "catalog/" + SymbolStore.buildStem(uuid: uuid, arch: arch)
    }

    static func metadataKey(uuid: BuildID, arch: Arch) -> String { entryName(uuid: uuid, arch: arch) + ".json" }
    static func useKey(uuid: BuildID, arch: Arch) -> String { entryName(uuid: uuid, arch: arch) + ".used" }

    /// `names/<image name, lowercased, '/' as '_'>/`: the name index's folder for one image name.
    static func namePrefix(_ name: String) -> String {
        "names/" + name.lowercased().replacingOccurrences(of: "/", with: "_") + "/"
    }

    static func nameKey(_ name: String, uuid: BuildID, arch: Arch) -> String {
        namePrefix(name) + entryName(uuid: uuid, arch: arch).dropFirst("catalog/".count)
    }

    // MARK: Errors

    /// An object-storage failure as the store's error: the message names the bucket and key.
    static func error(_ error: any Error) -> SymbolicateError {
        if let error = error as? SymbolicateError { return error }
        guard let error = error as? ObjectStorageError else { return SymbolicateError(.internal, "\(error)") }
        return SymbolicateError(storage: error)
    }

    func storage<Result>(_ body: () throws(ObjectStorageError) -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            throw BucketStore.error(error)
        }
    }

    // MARK: The catalog

    /// Catalog rows under `catalog/` + `namePrefix`, with their last use. An entry that cannot be
    /// read is left out here (`verify` reports it).
    func rows(namePrefix: String = "") throws -> [StoredBuild] {
        try entries(namePrefix: namePrefix).compactMap { try? $0.row.get() }
    }

    struct Entry {
        var key: String
        var row: Result<StoredBuild, SymbolicateError>
    }

    func entries(namePrefix: String = "") throws -> [Entry] {
        let listing = try storage { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: location.key("catalog/" + namePrefix))
        }
        var used: [String: Date] = [:]
        for object in listing.objects where object.key.hasSuffix(".used") {
            if let date = object.lastModified.flatMap(BucketStore.parseDate) {
                used[String(object.key.dropLast(".used".count))] = date
            }
        }
        var result: [Entry] = []
        for object in listing.objects where object.key.hasSuffix(".json") {
            let stem = String(object.key.dropLast(".json".count))
            do {
                let metadata = try metadata(key: object.key, etag: object.etag)
                if let metadata, let row = metadata.row(lastUsedAt: used[stem]) {
                    result.append(Entry(key: object.key, row: .success(row)))
                }
            } catch let damaged as DamagedEntry {
                result.append(Entry(key: object.key, row: .failure(damaged.error)))
            } catch {
                throw BucketStore.error(error)
            }
        }
        return result.sorted { a, b in
            switch (a.row, b.row) {
            case (.success(let x), .success(let y)): return (x.name, x.uuid, x.arch) < (y.name, y.uuid, y.arch)
            default: return a.key < b.key
            }
        }
    }

    /// The metadata at `key` (full key), from memory when its ETag is unchanged; nil when gone.
    func metadata(key: String, etag: String?) throws -> BuildMetadata? {
        try taggedMetadata(key: key, etag: etag)?.metadata
    }

    /// The metadata at `key` with the ETag of the version read (nil when the server gave none).
    func taggedMetadata(key: String, etag: String?) throws -> (metadata: BuildMetadata, etag: String?)? {
        if let etag, let known = metadataByKey.withLock({ $0[key] }), known.etag == etag {
            return (known.metadata, etag)
        }
        let body: [UInt8]
        let info: ObjectInfo
        do {
            (body, info) = try client.getObject(bucket: location.bucket, key: key, maxBytes: 1 << 20)
        } catch  where error.code == .noSuchKey {
            return nil
        } catch {
            throw BucketStore.error(error)
        }
        let metadata: BuildMetadata
        do {
            metadata = try BuildMetadata.decode(
                body, key: location.description + "/" + (location.relativeKey(key) ?? key))
        } catch let error as SymbolicateError {
            throw DamagedEntry(
                error: SymbolicateError(error.code, "s3://\(location.bucket)/\(key): \(error.message)"), etag: info.etag
            )
        }
        // An entry is read only under its own build's key: one that names another build (moved or
        // tampered with) must not aim a lookup or `remove` at that build's objects.
        guard let id = BuildID(string: metadata.uuid),
            key == location.key(BucketStore.metadataKey(uuid: id, arch: Arch(metadata.arch)))
        else {
            throw DamagedEntry(
                error: SymbolicateError(
                    .io,
                    "s3://\(location.bucket)/\(key): the entry describes build \(metadata.uuid) (\(metadata.arch)), not the one"
                        + " its key names"), etag: info.etag)
        }
        metadataByKey.withLock { $0[key] = (info.etag ?? etag, metadata) }
        return (metadata, info.etag)
    }

    /// An entry that is not build metadata (damaged, or of another format).
    struct DamagedEntry: Error {
        var error: SymbolicateError
        var etag: String?
    }

    /// The current entry of one build, nil when it has none. `damagedAsNone` counts an entry
    /// that cannot be read as none.
    func row(uuid: BuildID, arch: Arch, damagedAsNone: Bool = false) throws -> StoredBuild? {
        let state = try entry(uuid: uuid, arch: arch)
        if let damaged = state.damaged, !damagedAsNone { throw damaged }
        return state.row
    }

    /// The current entry of one build: its row, or the error that says it is damaged, or neither;
    /// with the ETag of the version read, for a write or delete conditional on it.
    func entry(uuid: BuildID, arch: Arch) throws -> (row: StoredBuild?, damaged: SymbolicateError?, etag: String?) {
        let key = location.key(BucketStore.metadataKey(uuid: uuid, arch: arch))
        let found: (metadata: BuildMetadata, etag: String?)?
        do {
            found = try taggedMetadata(key: key, etag: nil)
        } catch let damaged as DamagedEntry {
            return (nil, damaged.error, damaged.etag)
        }
        guard let found else { return (nil, nil, nil) }
        let used = try storage { () throws(ObjectStorageError) in
            try client.headObject(
                bucket: location.bucket, key: location.key(BucketStore.useKey(uuid: uuid, arch: arch)))
        }
        return (found.metadata.row(lastUsedAt: used?.lastModified.flatMap(BucketStore.parseDate)), nil, found.etag)
    }

    /// Dates as S3 writes them: ISO 8601 in listings, RFC 1123 in Last-Modified headers.
    static func parseDate(_ text: String) -> Date? {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: text) { return date }
        let http = DateFormatter()
        http.locale = Locale(identifier: "en_US_POSIX")
        http.timeZone = TimeZone(identifier: "GMT")
        http.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return http.date(from: text)
    }

    // MARK: Reading

    /// Nil only when the bucket has no entry for the build: an entry that cannot be read (and no
    /// readable one to serve instead) is the store having the build but failing to read it.
    public func source(for uuid: BuildID, arch: Arch?) throws -> (any SymbolSource)? {
        let entries = try entries(namePrefix: uuid.uuidString + "-")
        let candidates = entries.compactMap { try? $0.row.get() }
        guard let row = SymbolStore.best(candidates, arch: arch) else {
            for entry in entries { if case .failure(let error) = entry.row { throw error } }
            // Removed elsewhere (another replica): close its open file and drop the cached copy.
            if entries.isEmpty { for file in openSources.forget(uuid: uuid) { cache.forget(file) } }
            return nil
        }
        return try openSource(row)
    }

    public func builds(matching uuid: BuildID) throws -> [StoredBuild] {
        try rows(namePrefix: uuid.uuidString + "-")
    }

    /// Through the name index (`names/<name>/<UUID>-<arch>`, written with each entry), so a
    /// report naming an image the store lacks costs one short listing, not a read of every entry.
    public func builds(named name: String, otherThan uuid: BuildID, limit: Int) throws -> [StoredBuild] {
        let prefix = location.key(BucketStore.namePrefix(name))
        let listing = try storage { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: prefix)
        }
        var result: [StoredBuild] = []
        for object in listing.objects {
            // `<UUID>-<arch>`: arch names in keys hold no '-' (see SymbolStore.fileName).
            guard let stem = S3Location.relativeKey(object.key, under: prefix), let dash = stem.lastIndex(of: "-"),
                let id = BuildID(string: String(stem[..<dash])), id != uuid
            else { continue }
            let arch = Arch(String(stem[stem.index(after: dash)...]))
            if let row = try row(uuid: id, arch: arch), row.name.lowercased() == name.lowercased() {
                result.append(row)
            }
        }
        return Array(result.sorted { ($0.uuid, $0.arch) < ($1.uuid, $1.arch) }.prefix(limit))
    }

    public func list() throws -> [StoredBuild] { try rows() }

    /// From a listing of every entry (unchanged entries are not read again), kept for a minute:
    /// `/metrics` asks on every scrape.
    public var statistics: StoreStatistics {
        get throws {
            if let cached = cachedStatistics.withLock({ $0 }), Date().timeIntervalSince(cached.at) < 60 {
                return cached.value
            }
            let all = try rows()
            let dwarf = all.filter { $0.kind == .debugInfo }.count
            let value = StoreStatistics(
                builds: all.count, bytes: all.reduce(0) { $0 + $1.byteSize }, debugInfoBuilds: dwarf,
                symbolTableBuilds: all.count - dwarf)
            cachedStatistics.withLock { $0 = (Date(), value) }
            return value
        }
    }

    /// Answers from the store's open files, else fetches the build file into the cache and opens it.
    func openSource(_ listed: StoredBuild) throws -> any SymbolSource {
        if let source = openSources.source(for: listed) {
            noteUse(listed)
            return source
        }
        var row = listed
        func described() -> String { "\(location)/\(row.file)" }
        func outdated() -> SymbolicateError {
            SymbolicateError(
                .unsupported,
                "build \(row.uuid) (\(row.arch), \(row.name)) was indexed with store schema version \(row.schemaVersion) "
                    + "and this symbolicate reads version \(BuildFile.schemaVersion); re-import it: "
                    + "symbolicate import --store \(location) \(row.sourcePath)")
        }
        guard row.schemaVersion == Int(BuildFile.schemaVersion) else { throw outdated() }
        var source: BuildFileSource? = nil
        var readAgain = false
        var fetches = 0
        // Twice at most: a cached copy of another import under the same key (a key of an entry
        // from before publications had names) is dropped and fetched again.
        while source == nil, fetches < 2 {
            guard let path = try fetch(row) else {
                // A newer publication may have removed the file this entry named: read the entry again.
                if !readAgain, let newer = try self.row(uuid: row.uuid, arch: row.arch, damagedAsNone: true),
                    newer.file != row.file
                {
                    readAgain = true
                    row = newer
                    guard row.schemaVersion == Int(BuildFile.schemaVersion) else { throw outdated() }
                    continue
                }
                throw SymbolicateError(
                    .notFound,
                    "build \(row.uuid) (\(row.arch), \(row.name)) is listed in the bucket but its object \(described()) "
                        + "is missing; re-import it: symbolicate import --store \(location) \(row.sourcePath)")
            }
            fetches += 1
            do {
                let opened = try BuildFileSource(path: path)
                guard opened.build.uuid == row.uuid, opened.build.arch == row.arch else {
                    throw SymbolicateError(.io, "the build file holds \(opened.build.uuid) \(opened.build.arch)")
                }
                // A file better than its entry says serves (an entry from before publications had
                // names, relabelled over the debug info a later import wrote under the same key).
                if opened.build.kind >= row.kind { source = opened } else { cache.forget(row.file) }
            } catch {
                cache.forget(row.file)
                let reason = (error as? SymbolicateError)?.message ?? "\(error)"
                throw SymbolicateError(
                    .io,
                    "build \(row.uuid) (\(row.arch), \(row.name)): the object \(described()) is not a readable build "
                        + "file (\(reason)); re-import it: symbolicate import --store \(location) \(row.sourcePath)")
            }
        }
        guard let source else {
            throw SymbolicateError(
                .conflict,
                "build \(row.uuid) (\(row.arch), \(row.name)): the object \(described()) does not hold the \(row.kind.rawValue) "
                    + "its entry lists (an import is replacing it): try again")
        }
        noteUse(row)
        return openSources.keep(source, for: row)
    }

    /// The cached copy of `row`'s build file, fetched when missing; nil when the bucket has no such object.
    func fetch(_ row: StoredBuild) throws -> String? {
        var checked = false
        return try fetch(row, checked: &checked)
    }

    /// `fetch`, setting `checked` when the copy was downloaded now and compared with its checksum
    /// on the way (a copy already in the cache is returned as it is).
    func fetch(_ row: StoredBuild, checked: inout Bool) throws -> String? {
        let bucket = location.bucket
        let key = location.key(row.file)
        do {
            let what = "the object \(location)/\(row.file)"
            return try cache.file(
                for: row.file, expectedSize: row.byteSize > 0 ? row.byteSize : nil,
                check: {
                    try BuildChecksum.check($0, expected: row.checksum, what: what)
                    checked = true
                },
                download: { (destination: String) throws(ObjectStorageError) in
                    try client.downloadObject(bucket: bucket, key: key, to: destination)
                })
        } catch {
            throw BucketStore.error(error)
        }
    }

    /// Records a use at most once an hour per build (an empty PUT); a failure is no failure of the lookup.
    private func noteUse(_ row: StoredBuild) {
        let now = Date()
        if now.timeIntervalSince(row.lastUsedAt ?? row.importedAt) < 3600 { return }
        touch(uuid: row.uuid, arch: row.arch)
        // The row in memory stays as read; later lookups reuse the open source and come back here
        // only through a new listing, which shows the new use.
    }

    @discardableResult
    func touch(uuid: BuildID, arch: Arch) -> Bool {
        (try? client.putObject(
            bucket: location.bucket, key: location.key(BucketStore.useKey(uuid: uuid, arch: arch)), bytes: [],
            contentType: "text/plain")) != nil
    }

    func forget(_ rows: [StoredBuild]) {
        openSources.forget(rows)
        for row in rows { cache.forget(row.file) }
    }

    /// True when the bucket answers a listing (the server's readiness).
    public func checkReachable() throws {
        _ = try storage { () throws(ObjectStorageError) in
            try client.listObjects(bucket: location.bucket, prefix: location.key("catalog/"), maxKeys: 1)
        }
    }
}

extension BucketStore: SymbolStoring {}

/// What `/metrics` shows of a bucket store: the S3 client's counters per operation and the
/// cache's hits, misses, evictions and size.
public struct BucketStatistics: Sendable {
    public struct Operation: Sendable {
        public var name: String
        public var requests: UInt64
        /// HTTP requests sent, retries and redirects included.
        public var attempts: UInt64
        public var errors: UInt64
        public var latencySeconds: Double
        public var latencyCount: UInt64
    }

    public var operations: [Operation]
    public var cache: BuildCache.Counters
}

extension BucketStore {
    public var bucketStatistics: BucketStatistics {
        let operations = client.metrics.snapshot().sorted { $0.key < $1.key }.map { name, c in
            BucketStatistics.Operation(
                name: name, requests: c.requests, attempts: c.attempts, errors: c.errors, latencySeconds: c.latencySum,
                latencyCount: c.latencyCount)
        }
        return BucketStatistics(operations: operations, cache: cache.snapshot)
    }
}
