// `serve --store s3://BUCKET/PREFIX` against moto's S3 stand-in (PyPI moto[server]): an upload on
// one replica lands in the bucket and another replica, with a cache of its own, symbolicates
// with it; /metrics shows the bucket's requests and the cache; /readyz says "not ready" while the
// bucket does not answer, instead of failing the liveness probe.
//
// The credentials and endpoint reach the server (and its import children) through the standard
// AWS variables, set here for this test process; nothing else in the tests reads them.

import Foundation
import ObjectStorage
import Server
import TestSupport
import Testing

@Suite(
    .serialized,
    .needsMoto,
    .enabled(if: UploadTests.ready, "\(UploadTests.notReady)"))
struct BucketServerTests {
    let bucket: String

    init() throws {
        let endpoint = try #require(MotoServer.endpoint, "moto_server did not start")
        setenv("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE", 1)
        setenv("AWS_SECRET_ACCESS_KEY", "secret", 1)
        setenv("AWS_ENDPOINT_URL", endpoint.description, 1)
        bucket = "srv" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        let client = try S3Client(configuration: try S3Configuration.fromEnvironment())
        try client.createBucket(bucket)
    }

    func replica(_ name: String) throws -> TestServer {
        try TestServer { configuration in
            configuration.storeDirectory = "s3://\(bucket)/symbols"
            configuration.cacheDirectory = NSTemporaryDirectory() + "bucket-server-\(name)-" + UUID().uuidString
        }
    }

    @Test func anUploadOnOneReplicaServesOnAnother() throws {
        let first = try replica("a")
        let second = try replica("b")
        let report = try #require(Fixtures.report("HoldApp-\(UploadTests.variant).crash"))
        let before = try second.post("/v1/symbolicate", report)
        #expect(before.status == 200)

        let upload = try first.post(
            "/v1/symbols", try UploadTests.zip(["HoldApp.app.dSYM", "HoldKit.framework.dSYM"]), headers: first.auth)
        #expect(upload.status == 201, "\(upload.text)")
        let client = try S3Client(configuration: try S3Configuration.fromEnvironment())
        let keys = try client.listAllObjects(bucket: bucket, prefix: "symbols/").objects.map(\.key)
        #expect(keys.contains { $0.hasPrefix("symbols/builds/v") && $0.contains("-arm64.") && $0.hasSuffix(".sqlite") })
        #expect(keys.contains { $0.hasPrefix("symbols/catalog/") && $0.hasSuffix(".json") })

        // The second replica's misses expire after a second: then it finds the new builds.
        var after = try second.post("/v1/symbolicate", report)
        #expect(
            try Eventually.waitFor {
                after = try second.post("/v1/symbolicate", report)
                return after.body != before.body
            })
        #expect(after.status == 200)
        #expect(after.body == (try Self.fromSymbolFiles("HoldApp-\(UploadTests.variant).crash")))
        let fromFirst = try first.post("/v1/symbolicate", report)
        #expect(fromFirst.body == after.body)

        let metrics = try second.get("/metrics").text
        #expect(metrics.contains(#"symbolicate_bucket_requests_total{operation="ListObjectsV2"}"#))
        #expect(metrics.contains(#"symbolicate_bucket_request_duration_seconds_count{operation="GetObject"}"#))
        #expect(metrics.contains("symbolicate_cache_misses_total 2"), "\(metrics)")
        #expect(metrics.contains("symbolicate_cache_bytes "))
        #expect(try second.get("/readyz").status == 200)
    }

    /// What the CLI makes of the report from the symbol files themselves (the same pipeline).
    static func fromSymbolFiles(_ report: String) throws -> [UInt8] {
        let result = try ProcessRunner.run(
            try #require(Fixtures.executable),
            [
                "--no-store", Fixtures.samples + "/reports/" + report,
                try #require(Fixtures.build(UploadTests.variant)),
            ])
        return result.stdout
    }

    @Test func readinessFollowsTheBucket() throws {
        let port = try #require(Loopback.freePort())
        let server = try TestServer { configuration in
            configuration.storeDirectory = "s3://\(bucket)/symbols"
            configuration.cacheDirectory = NSTemporaryDirectory() + "bucket-server-dead-" + UUID().uuidString
        }
        #expect(try server.get("/readyz").status == 200)
        let saved = String(cString: getenv("AWS_ENDPOINT_URL"))
        setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:\(port)", 1)
        defer { setenv("AWS_ENDPOINT_URL", saved, 1) }
        let dead = try TestServer { configuration in
            configuration.storeDirectory = "s3://\(bucket)/symbols"
            configuration.cacheDirectory = NSTemporaryDirectory() + "bucket-server-dead-" + UUID().uuidString
        }
        let ready = try dead.get("/readyz")
        #expect(ready.status == 503)
        #expect(ready.text.contains("cannot reach"), "\(ready.text)")
        #expect(try dead.get("/healthz").status == 200)
        #expect(try dead.get("/metrics").text.contains(#"symbolicate_bucket_errors_total{operation="ListObjectsV2"} "#))
        // A request the bucket cannot serve says so with 503 and when to retry, not 500.
        let list = try dead.get("/v1/reports")
        #expect(list.status == 503, "\(list.text)")
        #expect(list.headers["retry-after"] == "5")
        #expect((list.json()["error"] as? [String: Any])?["code"] as? String == "unavailable", "\(list.text)")
    }
}
