// Chunked uploads on a bucket store (moto's stand-in): sentry-cli uploads through one replica,
// the chunks and the record of each assembly land in the bucket under the store's prefix, and a
// second run through another replica sends nothing.

import Foundation
import ObjectStorage
import Server
import TestSupport
import Testing

@Suite(.serialized, .needsMoto, .needsSentryCLI, .needsSamples, .needsExecutable)
struct BucketChunkUploadTests {
    let bucket: String

    init() throws {
        let endpoint = try #require(MotoServer.endpoint, "moto_server did not start")
        setenv("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE", 1)
        setenv("AWS_SECRET_ACCESS_KEY", "secret", 1)
        setenv("AWS_ENDPOINT_URL", endpoint.description, 1)
        bucket = "chk" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        let client = try S3Client(configuration: try S3Configuration.fromEnvironment())
        try client.createBucket(bucket)
    }

    func replica(_ name: String, token: String) throws -> TestServer {
        try TestServer { configuration in
            configuration.storeDirectory = "s3://\(bucket)/symbols"
            configuration.cacheDirectory = NSTemporaryDirectory() + "chunk-replica-\(name)-" + UUID().uuidString
            configuration.tokens = TokenSet(tokens: [token])
        }
    }

    @Test func chunksAndAssembliesAreSharedByReplicas() throws {
        let token = SentryCLI.newToken()
        let first = try replica("a", token: token)
        let second = try replica("b", token: token)
        let variant = Repository.samplesBuild + "/ios-arm64-dwarf4"
        let upload = try SentryCLIUploadTests.upload([variant], first, token: token)
        #expect(upload.status == 0, "\(upload.stdoutText)\(upload.stderrText)")

        let client = try S3Client(configuration: try S3Configuration.fromEnvironment())
        let keys = try client.listAllObjects(bucket: bucket, prefix: "symbols/").objects.map(\.key)
        #expect(keys.contains { $0.hasPrefix("symbols/blobs/sha1/") })
        #expect(keys.contains { $0.hasPrefix("symbols/assembled/sha1/") && $0.hasSuffix(".json") })

        let again = try SentryCLIUploadTests.upload([variant], second, token: token)
        #expect(again.status == 0, "\(again.stdoutText)\(again.stderrText)")
        #expect(again.stdoutText.contains("Nothing to upload"), "\(again.stdoutText)")
        #expect(SentryCLIUploadTests.chunkPosts(second) == 0)
        let builds = try second.get("/v1/symbols").json()["builds"] as? [[String: Any]] ?? []
        #expect(
            Set(builds.compactMap { $0["uuid"] as? String })
                == (try SentryCLIUploadTests.sampleUUIDs(["ios-arm64-dwarf4"])))
    }
}
