// The content-addressed blob store on both backends, a folder and a bucket (moto's stand-in):
// a put is refused when the bytes do not hash to their name and stores nothing then, a blob reads
// back whole, names of the wrong length or alphabet are no names, and gc's listing finds exactly
// the blobs written before its cutoff; a bucket that does not answer is unavailable (a 503 to clients).

import Digest
import Foundation
import ObjectStorage
import Store
import SymbolicateModel
import TestSupport
import Testing

struct BlobStoreTests {
    static func check(_ blobs: BlobStore) throws {
        let bytes = Array("a chunk of a dSYM".utf8)
        let key = try #require(BlobKey(.sha1, SHA1.hex(bytes)))
        #expect(key.path == "blobs/sha1/" + key.digest.prefix(2) + "/" + key.digest.dropFirst(2))
        #expect(try !blobs.exists(key))

        let wrong = try #require(BlobKey(.sha1, SHA1.hex(Array("something else".utf8))))
        #expect(throws: SymbolicateError.self) { try blobs.put(bytes, as: wrong) }
        #expect(try !blobs.exists(wrong))

        try blobs.put(bytes, as: key)
        #expect(try blobs.get(key, maxBytes: 1 << 20) == bytes)
        #expect(try blobs.size(key) == Int64(bytes.count))

        let original = Array("an original symbol file".utf8)
        let sha256 = try #require(BlobKey(.sha256, SHA256.hex(original)))
        try blobs.put(original, as: sha256)

        #expect(try blobs.list(.sha1, olderThan: Date().addingTimeInterval(-3600)).isEmpty)
        let old = try blobs.list(.sha1, olderThan: Date().addingTimeInterval(3600))
        #expect(old.map(\.key) == [key])
        #expect(try blobs.removeBlobs(.sha1, olderThan: Date().addingTimeInterval(3600)) == 1)
        #expect(try !blobs.exists(key))
        #expect(try blobs.exists(sha256))
    }

    @Test func names() {
        #expect(BlobKey(.sha1, String(repeating: "A", count: 40))?.digest == String(repeating: "a", count: 40))
        #expect(BlobKey(.sha1, String(repeating: "a", count: 39)) == nil)
        #expect(BlobKey(.sha1, String(repeating: "g", count: 40)) == nil)
        #expect(BlobKey(.sha256, String(repeating: "0", count: 40)) == nil)
        #expect(BlobKey(.sha1, "../../" + String(repeating: "0", count: 34)) == nil)
    }

    @Test func folder() throws {
        let folder = try Repository.scratchFolder("blobs")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.check(BlobStore(backend: FolderBlobBackend(root: folder)))
    }

    @Test(.needsMoto) func bucket() throws {
        let (client, bucket) = try MotoStandIn.freshBucket()
        let location = try S3Location(bucket: bucket, prefix: "team-a")
        try Self.check(BlobStore(backend: BucketBlobBackend(client: client, location: location)))
        let keys = try client.listAllObjects(bucket: bucket).objects.map(\.key)
        #expect(keys.allSatisfy { $0.hasPrefix("team-a/blobs/sha256/") })
    }

    @Test func aBucketThatDoesNotAnswerIsUnavailable() throws {
        // The server answers .unavailable with 503 and Retry-After: clients retry the chunk.
        let port = try #require(Loopback.freePort())
        let dead = try S3Client(
            configuration: MotoStandIn.configuration(S3Endpoint(scheme: "http", host: "127.0.0.1:\(port)")))
        let blobs = BlobStore(backend: BucketBlobBackend(client: dead, location: try S3Location(bucket: "symbols")))
        let bytes = Array("chunk".utf8)
        let key = try #require(BlobKey(.sha1, SHA1.hex(bytes)))
        #expect {
            try blobs.put(bytes, as: key)
        } throws: { error in
            (error as? SymbolicateError)?.code == .unavailable
        }
        #expect {
            _ = try blobs.exists(key)
        } throws: { error in
            (error as? SymbolicateError)?.code == .unavailable
        }
    }
}
