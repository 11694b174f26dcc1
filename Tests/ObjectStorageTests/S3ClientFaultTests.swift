// The client when things go wrong: a server that answers 503 SlowDown before it answers 200
// (retried with backoff), one that keeps failing (a named server error after the bounded
// attempts), a redirect (followed and signed again), an unreachable port, and a wrong secret.
// Fixtures/flaky-s3.py checks every request's signature with botocore on what libcurl really sent.

import Foundation
import ObjectStorage
import TestSupport
import Testing

@Suite(.enabled(if: StandInServers.botocoreAvailable, "python3 with botocore is not installed (pip install botocore)"))
struct S3ClientFaultTests {
    func client(
        retry: RetryPolicy = RetryPolicy(maxAttempts: 4, baseDelay: 0.01, maxDelay: 0.05),
        secretKey: String = StandInServers.secretKey
    ) throws -> S3Client {
        let endpoint = try #require(StandInServers.flaky, "Fixtures/flaky-s3.py did not start")
        return try S3Client(
            configuration: StandInServers.configuration(endpoint: endpoint, retry: retry, secretKey: secretKey))
    }

    @Test func signedRequestsPassBotocoresCheck() throws {
        let client = try client()
        let key = "plain/a b+c/é?x=1&y/./z/../w"
        let got = try client.getObject(bucket: "symbols", key: key)
        #expect(String(decoding: got.body, as: UTF8.self) == "/symbols/" + SignatureV4.encodePath(key))
        try client.putObject(bucket: "symbols", key: "plain/put", bytes: Array("payload".utf8), createOnly: true)
        _ = try client.listObjects(bucket: "symbols", prefix: "p/", continuationToken: "a+b/c==")
    }

    @Test func aWrongSecretIsNamed() throws {
        let client = try client(secretKey: "not-the-secret")
        #expect {
            _ = try client.getObject(bucket: "symbols", key: "k")
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .invalidCredentials && error.message.contains("AWS_SECRET_ACCESS_KEY")
                && error.s3Code == "SignatureDoesNotMatch"
        }
    }

    @Test func anUnknownAccessKeyIsNamed() throws {
        let endpoint = try #require(StandInServers.flaky, "Fixtures/flaky-s3.py did not start")
        let client = try S3Client(
            configuration: StandInServers.configuration(endpoint: endpoint, accessKey: "AKIANOTKNOWN"))
        #expect {
            try client.putObject(bucket: "symbols", key: "builds/k", bytes: [1])
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .invalidCredentials && error.message.contains("AWS_ACCESS_KEY_ID")
                && error.message.contains("AKIANOTKNOWN") && error.s3Code == "InvalidAccessKeyId"
                && error.description.hasPrefix("s3://symbols/builds/k: PutObject: ")
        }
        // A refusal is final: not retried.
        #expect(client.metrics.snapshot()["PutObject"]?.attempts == 1)
    }

    @Test func slowDownTwiceThenSuccessIsRetried() throws {
        let client = try client()
        let key = "flaky-2/" + UUID().uuidString
        let got = try client.getObject(bucket: "symbols", key: key)
        #expect(String(decoding: got.body, as: UTF8.self) == "/symbols/" + key)
        let counters = try #require(client.metrics.snapshot()["GetObject"])
        #expect(counters.attempts == 3)
        #expect(counters.requests == 1 && counters.errors == 0)

        try client.putObject(bucket: "symbols", key: "flaky-1/" + UUID().uuidString, bytes: Array("body".utf8))
        #expect(client.metrics.snapshot()["PutObject"]?.attempts == 2)
    }

    @Test func retriesAreBounded() throws {
        let client = try client(retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.02))
        #expect {
            _ = try client.getObject(bucket: "symbols", key: "flaky-5/" + UUID().uuidString)
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .serverError && error.httpStatus == 503 && error.s3Code == "SlowDown"
                && error.message.contains("2 attempts")
        }
        #expect(client.metrics.snapshot()["GetObject"]?.attempts == 2)
    }

    @Test func redirectsAreFollowedAndSignedAgain() throws {
        let client = try client()
        // The bucket "moved" answers 307 to /symbols/...; the flaky server checks the new signature.
        let got = try client.getObject(bucket: "moved", key: "x/y")
        #expect(String(decoding: got.body, as: UTF8.self) == "/symbols/x/y")
    }

    @Test func aServerThatDoesNotAnswerTimesOut() throws {
        let endpoint = try #require(StandInServers.flaky, "Fixtures/flaky-s3.py did not start")
        var configuration = StandInServers.configuration(
            endpoint: endpoint, retry: RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.02))
        configuration.timeouts = TransportTimeouts(connectSeconds: 1, totalSeconds: 0.3)
        let client = try S3Client(configuration: configuration)
        #expect {
            _ = try client.getObject(bucket: "symbols", key: "hang/" + UUID().uuidString)
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .timeout && error.key?.hasPrefix("hang/") == true
                && error.message.contains("2 attempts")
        }
    }

    @Test(.enabled(if: TLSStandIn.openSSLAvailable, "openssl is not installed"))
    func tlsIsVerifiedAndAPrivateAuthorityCanBeTrusted() throws {
        let server = try #require(TLSStandIn.server, "the TLS stand-in did not start")
        let untrusting = try S3Client(configuration: StandInServers.configuration(endpoint: server.endpoint))
        #expect {
            _ = try untrusting.getObject(bucket: "symbols", key: "tls")
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .untrustedServer && error.message.contains("AWS_CA_BUNDLE") && error.key == "tls"
        }
        // A certificate that does not verify is not retried.
        #expect(untrusting.metrics.snapshot()["GetObject"]?.attempts == 1)

        var configuration = StandInServers.configuration(endpoint: server.endpoint)
        configuration.caBundle = server.certificate
        let trusting = try S3Client(configuration: configuration)
        let got = try trusting.getObject(bucket: "symbols", key: "over tls")
        #expect(String(decoding: got.body, as: UTF8.self) == "/symbols/over%20tls")
        let moved = try trusting.getObject(bucket: "moved", key: "k")
        #expect(String(decoding: moved.body, as: UTF8.self) == "/symbols/k")

        // A redirect from TLS down to plain HTTP is not followed.
        #expect {
            _ = try trusting.getObject(bucket: "downgrade", key: "k")
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .requestRejected && error.httpStatus == 307
                && error.message.contains("http://127.0.0.1")
        }
    }

    @Test func anUnreachableEndpointIsNamedAfterRetries() throws {
        let port = try #require(Loopback.freePort())
        let configuration = StandInServers.configuration(
            endpoint: S3Endpoint(scheme: "http", host: "127.0.0.1:\(port)"),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.02))
        let client = try S3Client(configuration: configuration)
        #expect {
            _ = try client.getObject(bucket: "symbols", key: "builds/k")
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .unreachable && error.bucket == "symbols" && error.key == "builds/k"
                && error.message.contains("127.0.0.1:\(port)") && error.message.contains("AWS_ENDPOINT_URL")
                && error.message.contains("3 attempts")
        }
        #expect(client.metrics.snapshot()["GetObject"]?.attempts == 3)
        #expect(client.metrics.snapshot()["GetObject"]?.errors == 1)
    }
}
