// Buckets on moto's stand-in (MotoServer) for the tests of every target that needs one: the
// endpoint, a client configuration (moto checks no signature, so any key will do), a fresh bucket
// of a test's own, and the variables a `symbolicate` child process reads to reach it.

import Foundation
import ObjectStorage

extension MotoServer {
    /// The running stand-in as an S3 endpoint (http, path style), or nil when it is unavailable.
    public static var endpoint: S3Endpoint? { host.map { S3Endpoint(scheme: "http", host: $0) } }

    public static let accessKeyID = "AKIAIOSFODNN7EXAMPLE"
    public static let secretAccessKey = "test-secret"

    /// A client configuration for `endpoint`.
    public static func configuration(_ endpoint: S3Endpoint, retry: RetryPolicy = RetryPolicy()) -> S3Configuration {
        S3Configuration(
            credentials: AWSCredentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey),
            region: "us-east-1", endpoint: endpoint, retry: retry)
    }

    /// What a child process needs in its environment to reach `endpoint`.
    public static func environment(_ endpoint: S3Endpoint) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey,
            "AWS_ENDPOINT_URL": endpoint.description, "AWS_REGION": "us-east-1",
        ]
    }

    /// The stand-in did not start.
    public struct NotRunning: Error, CustomStringConvertible {
        public var description: String { "moto_server did not start" }
    }

    /// A new, empty bucket named `prefix` and 20 random hex digits, and a client of the stand-in.
    public static func freshBucket(prefix: String, retry: RetryPolicy = RetryPolicy()) throws -> (
        client: S3Client, bucket: String, endpoint: S3Endpoint
    ) {
        guard let endpoint else { throw NotRunning() }
        let client = try S3Client(configuration: configuration(endpoint, retry: retry))
        let bucket = prefix + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        try client.createBucket(bucket)
        return (client, bucket, endpoint)
    }

    /// What a test of `symbolicate` commands on a bucket starts from: a fresh bucket named after
    /// `prefix`, a client of the stand-in, the variables a child process reads to reach it, and an
    /// empty scratch folder of the test's own.
    public static func scratch(prefix: String) throws -> (
        client: S3Client, bucket: String, environment: [String: String], folder: String
    ) {
        let fresh = try freshBucket(prefix: prefix)
        let folder = NSTemporaryDirectory() + "/symbolicate-\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (fresh.client, fresh.bucket, environment(fresh.endpoint), folder)
    }
}
