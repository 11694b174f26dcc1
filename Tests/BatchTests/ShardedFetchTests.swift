// A sharded `batch` over an s3:// prefix fetches only its own share: the reports of other shards
// are not downloaded, and an empty file stands in for each, so that the run still sees every name
// (every shard hands out the same output names) and never reads those files. Archives are fetched
// by every shard, which reads its own members. Runs against moto's S3 stand-in.

import Foundation
import ObjectStorage
import SymbolicateModel
import TestSupport
import Testing

@testable import Batch

@Suite(.needsMoto)
struct ShardedFetchTests {
    @Test func eachShardDownloadsItsOwnReportsAndEveryArchive() throws {
        let (client, bucket, endpoint) = try MotoServer.freshBucket(prefix: "shardfetch")
        var names = (0..<24).map { "set/r\($0).crash" }
        names.append("more/old.zip")
        for name in names {
            try client.putObject(bucket: bucket, key: "in/" + name, bytes: Array("contents of \(name)\n".utf8))
        }
        let scratch = NSTemporaryDirectory() + "symbolicate-shard-fetch-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        var downloaded = 0
        for index in 0..<2 {
            let shard = try Shard(index: index, count: 2)
            let transfer = try BucketTransfer(scratchParent: scratch, configuration: MotoServer.configuration(endpoint))
            let folder = try transfer.fetchInput("s3://\(bucket)/in/", shard: shard)
            for name in names {
                let data = try #require(FileManager.default.contents(atPath: folder + "/" + name), "\(name) is absent")
                let mine = shard.contains(name) || name.hasSuffix(".zip")
                #expect(data.isEmpty == !mine, "\(name) in shard \(shard)")
                if !data.isEmpty {
                    #expect(data == Data("contents of \(name)\n".utf8))
                    downloaded += 1
                }
            }
        }
        // Every report once, the archive twice.
        #expect(downloaded == 24 + 2)
    }
}
