// The local cache of a bucket store, against moto's S3 stand-in: concurrent misses for one build
// are fetched once, a key the bucket lacks is asked once while it is remembered, the size bound
// evicts least recently used files first (never the one just fetched), and a hit is counted.

import Foundation
import ObjectStorage
import SymbolicateModel
import TestSupport
import Testing

@testable import Store

@Suite(.needsMoto)
struct BuildCacheTests {
    let client: S3Client
    let bucket: String

    init() throws {
        (client, bucket) = try MotoStandIn.freshBucket()
    }

    func gets() -> UInt64 { client.metrics.snapshot()["GetObject"]?.requests ?? 0 }

    func cache(capacity: Int64) throws -> BuildCache {
        try BuildCache(
            root: try StoreFixtures.scratchFolder("cache"), location: try S3Location(bucket: bucket), capacity: capacity
        )
    }

    func fetch(_ cache: BuildCache, _ key: String) throws -> String? {
        let client = self.client
        let bucket = self.bucket
        return try cache.file(for: key, expectedSize: nil) { (destination: String) throws(ObjectStorageError) in
            try client.downloadObject(bucket: bucket, key: key, to: destination)
        }
    }

    @Test func concurrentMissesFetchOnce() throws {
        let bytes = [UInt8](repeating: 7, count: 1 << 20)
        try client.putObject(bucket: bucket, key: "builds/v3/A-arm64.sqlite", bytes: bytes)
        let cache = try cache(capacity: 1 << 30)
        let before = gets()
        let paths = Locked([String?]())
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let path = try? fetch(cache, "builds/v3/A-arm64.sqlite")
            paths.withLock { $0.append(path) }
        }
        #expect(gets() - before == 1)
        let all = paths.withLock { $0 }
        #expect(all.count == 8 && Set(all).count == 1 && all[0] != nil)
        #expect(FileManager.default.contents(atPath: all[0] ?? "") == Data(bytes))
        #expect(cache.snapshot.misses == 1 && cache.snapshot.hits == 7)
    }

    @Test func aMissingKeyIsRememberedBriefly() throws {
        let cache = try cache(capacity: 1 << 30)
        let before = gets()
        #expect(try fetch(cache, "builds/v3/none.sqlite") == nil)
        #expect(try fetch(cache, "builds/v3/none.sqlite") == nil)
        #expect(gets() - before == 1)
    }

    @Test func theBoundEvictsLeastRecentlyUsedFirst() throws {
        for name in ["a", "b", "c"] {
            try client.putObject(
                bucket: bucket, key: "builds/v3/\(name).sqlite", bytes: [UInt8](repeating: 1, count: 400_000))
        }
        let cache = try cache(capacity: 900_000)
        let a = try #require(try fetch(cache, "builds/v3/a.sqlite"))
        usleep(20_000)
        let b = try #require(try fetch(cache, "builds/v3/b.sqlite"))
        usleep(20_000)
        _ = try fetch(cache, "builds/v3/a.sqlite")  // a is now the most recently used
        usleep(20_000)
        let c = try #require(try fetch(cache, "builds/v3/c.sqlite"))
        #expect(FileManager.default.fileExists(atPath: a))
        #expect(!FileManager.default.fileExists(atPath: b))
        #expect(FileManager.default.fileExists(atPath: c))
        #expect(cache.snapshot.bytes <= 900_000 && cache.snapshot.evictions == 1)
        // A bound smaller than one file keeps the file just fetched (the report needs it).
        let tiny = try self.cache(capacity: 10)
        let only = try #require(try fetch(tiny, "builds/v3/a.sqlite"))
        #expect(FileManager.default.fileExists(atPath: only))
    }

    /// A disk that fills up makes the cache evict and fetch again: the build still arrives, the
    /// older copies go, nothing half-written stays.
    @Test(.enabled(if: Mounts.available, "needs root and mount(8) for a small tmpfs"))
    func aFullDiskEvictsInsteadOfFailing() throws {
        for name in ["a", "b", "c"] {
            try client.putObject(
                bucket: bucket, key: "builds/v3/\(name).sqlite", bytes: [UInt8](repeating: 2, count: 500_000))
        }
        let disk = try Mounts.tmpfs(kilobytes: 1200)
        defer { Mounts.unmount(disk) }
        let cache = try BuildCache(root: disk, location: try S3Location(bucket: bucket), capacity: 10 << 30)
        let a = try #require(try fetch(cache, "builds/v3/a.sqlite"))
        let b = try #require(try fetch(cache, "builds/v3/b.sqlite"))
        let c = try #require(try fetch(cache, "builds/v3/c.sqlite"))
        #expect(FileManager.default.contents(atPath: c) == Data([UInt8](repeating: 2, count: 500_000)))
        #expect(!FileManager.default.fileExists(atPath: a) || !FileManager.default.fileExists(atPath: b))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.directory).filter {
            $0.contains(".part-")
        }
        #expect(leftovers.isEmpty)
    }
}

struct CacheSizeTests {
    @Test func sizesParse() {
        #expect(StoreLocation.parseSize("10G") == 10 << 30)
        #expect(StoreLocation.parseSize("500M") == 500 << 20)
        #expect(StoreLocation.parseSize("64k") == 64 << 10)
        #expect(StoreLocation.parseSize("1.5G") == Int64(1.5 * Double(1 << 30)))
        #expect(StoreLocation.parseSize("12345") == 12345)
        #expect(StoreLocation.parseSize("-1G") == nil)
        #expect(StoreLocation.parseSize("lots") == nil)
    }
}
