// BuildCache: the local folder where a bucket store keeps the build files it fetched, so a
// replica reads each build from the bucket once. Files are named by their object key (each
// publication of a build has a key of its own, so a cached copy never goes stale), bounded by a
// size in bytes and evicted least recently used first (by access time, which a hit sets
// explicitly: many disks are mounted noatime). Misses for one build in this process are fetched once: the first caller
// downloads while the others wait on that build's lock; across processes the download goes to a
// temporary file and is renamed into place, so a reader sees a whole file or none. A key the
// bucket does not have is remembered for a few seconds, so a report full of unknown images does
// not ask the bucket again for every frame. A disk that fills up makes the cache evict and try
// again; it never keeps files past its bound to succeed.

import Foundation
import ObjectStorage
import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#endif

public final class BuildCache: Sendable {
    /// The bound when `--cache-size` is not given: 10 GiB.
    public static let defaultCapacity: Int64 = 10 << 30
    /// How long a key the bucket does not have is answered from memory.
    static let missRetention: TimeInterval = 5

    /// The cache folder of this bucket location (`<cache>/s3/<bucket>/<prefix>`).
    public let directory: String
    /// `<cache>/tmp`: temporary files of the bucket store (imports, downloads in flight).
    public let temporaryDirectory: String
    public let capacity: Int64
    /// The keys being fetched now: a second caller for one of them waits on `fetchDone` until the
    /// first has finished, then finds the file (or the remembered miss) instead of fetching again.
    private let fetching = Locked<Set<String>>([])
    private let fetchDone = Locked<Set<String>>.Condition()
    private let misses = Locked<[String: Date]>([:])
    private let counters = Locked<Counters>(Counters())

    /// Hits, misses (fetches) and evictions since start, and the bytes held.
    public struct Counters: Sendable, Equatable {
        public var hits: UInt64 = 0
        public var misses: UInt64 = 0
        public var evictions: UInt64 = 0
        public var bytes: Int64 = 0
    }

    /// utimensat(2)'s special nanosecond values (<sys/stat.h> macros Swift does not import).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    static let UTIME_NOW = (1 << 30) - 1
    // swift-format-ignore: AlwaysUseLowerCamelCase
    static let UTIME_OMIT = (1 << 30) - 2

    public init(root: String, location: S3Location, capacity: Int64) throws {
        let name = location.prefix.isEmpty ? location.bucket : location.bucket + "/" + location.folder
        // The prefix may hold anything S3 allows: keep letters, digits and a few marks, encode the rest.
        let safe = ASCII.percentEncoded(name, keeping: [UInt8(ascii: "/")]).replacingOccurrences(
            of: "..", with: "%2E%2E")
        directory = root + "/s3/" + safe
        temporaryDirectory = root + "/tmp"
        self.capacity = max(0, capacity)
        for folder in [directory, temporaryDirectory] {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw SymbolicateError(
                    .io, "cannot create the cache folder: \(error.localizedDescription); give another with --cache DIR",
                    path: folder)
            }
        }
        BuildCache.removeAbandonedDownloads(in: directory)
        counters.withLock { $0.bytes = BuildCache.files(in: directory).reduce(0) { $0 + $1.size } }
    }

    public var snapshot: Counters { counters.withLock { $0 } }

    /// Where the object `relativeKey` (`builds/v<schema version>/<UUID>-<arch>.<publication>.sqlite`) is kept.
    func path(for relativeKey: String) -> String {
        directory + "/" + relativeKey.replacingOccurrences(of: "/", with: "_")
    }

    /// True when the bucket lacked `relativeKey` less than `missRetention` seconds ago.
    private func recentlyMissing(_ relativeKey: String) -> Bool {
        guard let missed = misses.withLock({ $0[relativeKey] }) else { return false }
        return Date().timeIntervalSince(missed) < BuildCache.missRetention
    }

    /// The local copy of `relativeKey`, fetched with `download` on a miss. nil when the bucket
    /// does not have it (remembered for `missRetention` seconds). A fresh download is checked
    /// with `check` (the published checksum) before it is kept: one that fails is removed and
    /// the failure thrown, so a damaged object is never cached.
    func file(
        for relativeKey: String, expectedSize: Int64?, check: (_ path: String) throws -> Void = { _ in },
        download: (_ destination: String) throws(ObjectStorageError) -> Void
    ) throws -> String? {
        let path = path(for: relativeKey)
        if let hit = hit(path, expectedSize: expectedSize) { return hit }
        if recentlyMissing(relativeKey) { return nil }
        fetching.wait(on: fetchDone, until: { !$0.contains(relativeKey) }, then: { _ = $0.insert(relativeKey) })
        defer {
            fetching.withLock { _ = $0.remove(relativeKey) }
            fetchDone.broadcast()
        }
        // Another caller may have fetched it while this one waited.
        if let hit = hit(path, expectedSize: expectedSize) { return hit }
        if recentlyMissing(relativeKey) { return nil }
        counters.withLock { $0.misses += 1 }
        for attempt in 0..<2 {
            var failure: ObjectStorageError? = nil
            do {
                try download(path)
            } catch {
                failure = error
            }
            guard let failure else {
                misses.withLock { _ = $0.removeValue(forKey: relativeKey) }
                do {
                    try check(path)
                } catch {
                    unlink(path)
                    throw error
                }
                var st = stat()
                let size = stat(path, &st) == 0 ? Int64(st.st_size) : 0
                counters.withLock { $0.bytes += size }
                evict(keeping: path)
                return path
            }
            if failure.code == .noSuchKey {
                misses.withLock { $0[relativeKey] = Date() }
                return nil
            }
            // .io is most likely a full disk: make room (all but what is in use) and try once more.
            guard failure.code == .io, attempt == 0 else { throw failure }
            evict(keeping: path, toBytes: 0)
        }
        return nil
    }

    /// Adds a file this process already has (a build it just uploaded) under `relativeKey`.
    func adopt(_ file: String, as relativeKey: String) {
        let destination = path(for: relativeKey)
        let linked = link(file, destination) == 0
        // errno means something only after a failure: a successful link leaves the last one there.
        guard linked || errno == EEXIST else { return }
        var st = stat()
        if linked, stat(destination, &st) == 0 { counters.withLock { $0.bytes += Int64(st.st_size) } }
        evict(keeping: destination)
    }

    /// Drops the copy of `relativeKey` (a build removed or found damaged).
    func forget(_ relativeKey: String) {
        let path = path(for: relativeKey)
        var st = stat()
        if stat(path, &st) == 0, unlink(path) == 0 { counters.withLock { $0.bytes -= Int64(st.st_size) } }
    }

    private func hit(_ path: String, expectedSize: Int64?) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        if let expectedSize, expectedSize != Int64(st.st_size) {
            unlink(path)  // a different object under the same key (the old layout: imported again)
            return nil
        }
        // Access time by hand: eviction goes by it, and noatime mounts would never update it.
        var times = [
            timespec(tv_sec: 0, tv_nsec: BuildCache.UTIME_NOW), timespec(tv_sec: 0, tv_nsec: BuildCache.UTIME_OMIT),
        ]
        utimensat(AT_FDCWD, path, &times, 0)
        counters.withLock { $0.hits += 1 }
        return path
    }

    /// Removes the least recently used files until the cache holds at most `toBytes` (the
    /// capacity by default); `keeping` is never removed.
    func evict(keeping: String, toBytes: Int64? = nil) {
        let limit = toBytes ?? capacity
        var files = BuildCache.files(in: directory)
        var total = files.reduce(0) { $0 + $1.size }
        files.sort { $0.accessed < $1.accessed }
        var evicted: UInt64 = 0
        for file in files where total > limit && file.path != keeping {
            // An open build file stays readable to whoever has it open: unlinking only drops the name.
            if unlink(file.path) == 0 {
                total -= file.size
                evicted += 1
            }
        }
        counters.withLock {
            $0.bytes = total
            $0.evictions += evicted
        }
    }

    /// Removes downloads (`<file>.part-<pid>-<random>`) that a process killed mid-fetch left,
    /// once they are an hour old (a live download rewrites its file far more often).
    static func removeAbandonedDownloads(in directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let cutoff = Date().timeIntervalSince1970 - 3600
        for name in names where name.contains(".sqlite.part-") {
            var st = stat()
            let path = directory + "/" + name
            if stat(path, &st) == 0, Double(st.st_mtim.tv_sec) < cutoff { unlink(path) }
        }
    }

    private static func files(in directory: String) -> [(path: String, size: Int64, accessed: Double)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.compactMap { name in
            // Downloads in flight (`.part-`) belong to their writer.
            guard name.hasSuffix(".sqlite") else { return nil }
            let path = directory + "/" + name
            var st = stat()
            guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
            return (path, Int64(st.st_size), Double(st.st_atim.tv_sec) + Double(st.st_atim.tv_nsec) / 1e9)
        }
    }
}
