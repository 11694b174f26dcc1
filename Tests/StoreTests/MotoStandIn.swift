// The bucket store tests' view of moto's S3 stand-in (TestSupport's MotoServer): a client
// configuration with their retry policy and fresh buckets; also a port where nothing listens, for
// an endpoint that does not answer.

import Foundation
import ObjectStorage
import TestSupport

enum MotoStandIn {
    static func configuration(
        _ endpoint: S3Endpoint, retry: RetryPolicy = RetryPolicy(maxAttempts: 4, baseDelay: 0.05, maxDelay: 0.5)
    ) -> S3Configuration {
        MotoServer.configuration(endpoint, retry: retry)
    }

    /// A client of the stand-in and a new bucket of its own.
    static func freshBucket() throws -> (client: S3Client, bucket: String) {
        let (client, bucket, _) = try MotoServer.freshBucket(
            prefix: "st-", retry: RetryPolicy(maxAttempts: 4, baseDelay: 0.05, maxDelay: 0.5))
        return (client, bucket)
    }

    struct S3TestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

}
