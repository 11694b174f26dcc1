// Statuses that say what happened to storage: a report bucket that does not exist answers 503
// (the service's storage is missing, not the report: never 404 not_found); credentials the
// bucket refuses answer 500 naming authentication, and /readyz 503; a full disk on POST
// /v1/reports answers 507 with Retry-After, and /readyz 503 while it lasts. The bucket cases run
// against moto; the full disk is SQLite's page cap on the report database (SQLITE_FULL, what a
// full file system gives it), since an unprivileged test cannot fill a file system.

import Foundation
import ObjectStorage
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

@Suite("Storage statuses")
struct StorageStatusTests {
    @Test(.needsMoto, .enabled(if: StoredReportTests.reportPresent, "\(StoredReportTests.noReport)"))
    func aMissingReportBucketIsUnavailableNotNotFound() throws {
        let endpoint = try #require(MotoServer.endpoint)
        let retry = RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.02)
        let missing = "absent-" + UUID().uuidString.lowercased().prefix(12)
        let server = try TestServer {
            $0.reportStore = "s3://\(missing)/reports"
            $0.objectStorage = MotoServer.configuration(endpoint, retry: retry)
            $0.reportWatchInterval = 0
        }
        let posted = try server.post("/v1/reports", try StoredReportTests.report(), headers: server.auth)
        #expect(posted.status == 503, "\(posted.status) \(posted.text)")
        #expect(posted.errorCode == "storage_unavailable")
        #expect(posted.headers["retry-after"] != nil)
        #expect(posted.text.contains(missing))
        let listed = try server.get("/v1/reports")
        #expect(listed.status == 503, "\(listed.status) \(listed.text)")
        #expect(listed.errorCode == "storage_unavailable")
        #expect(try server.get("/readyz").status == 503)
    }

    /// moto accepts any key: the fault proxy in front of it answers as AWS does an unknown key.
    @Test(.needsMoto, .enabled(if: StoredReportTests.reportPresent, "\(StoredReportTests.noReport)"))
    func refusedCredentialsAnswer500NamingAuthenticationAndNotReady() throws {
        let (_, bucket, _) = try MotoServer.freshBucket(prefix: "credentials-")
        let proxy = try FaultProxy(upstreamPort: try #require(MotoServer.port))
        defer { proxy.stop() }
        proxy.set(.refuseCredentials)
        let retry = RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.02)
        let endpoint = S3Endpoint(scheme: "http", host: "127.0.0.1:\(proxy.port)")
        let server = try TestServer {
            $0.reportStore = "s3://\(bucket)/reports"
            $0.objectStorage = MotoServer.configuration(endpoint, retry: retry)
            $0.reportWatchInterval = 0
        }
        let posted = try server.post("/v1/reports", try StoredReportTests.report(), headers: server.auth)
        #expect(posted.status == 500, "\(posted.status) \(posted.text)")
        #expect(posted.errorCode == "storage_authentication")
        #expect(posted.text.contains("authentication") && posted.text.contains("AWS_ACCESS_KEY_ID"), "\(posted.text)")
        let ready = try server.get("/readyz")
        #expect(ready.status == 503, "\(ready.status) \(ready.text)")
        #expect(proxy.faultCount > 0)
    }

    /// moto accepts any key, so the refusal a bucket gives for unknown credentials is built as the
    /// S3 client builds it from the answer (InvalidAccessKeyId) and passed through the server's mapping.
    @Test func refusedCredentialsAreAServerErrorNamingAuthentication() {
        let refused = ObjectStorageError(
            .invalidCredentials, "the endpoint does not know the access key AKIA0: check AWS_ACCESS_KEY_ID",
            operation: "GetObject", bucket: "b", key: "reports/x", httpStatus: 403, s3Code: "InvalidAccessKeyId",
            requestID: nil)
        let answer = HTTPError.from(SymbolicateError(storage: refused))
        #expect(answer.status == 500)
        #expect(answer.code == "storage_authentication")
        #expect(answer.message.contains("authentication"))
        #expect(answer.message.contains("AWS_ACCESS_KEY_ID"))
        let denied = ObjectStorageError(
            .accessDenied, "not allowed", operation: "PutObject", bucket: "b", key: "k", httpStatus: 403,
            s3Code: "AccessDenied", requestID: nil)
        #expect(HTTPError.from(SymbolicateError(storage: denied)).status == 500)
        // A missing key stays a 404: only the storage itself missing is a 503.
        let noKey = ObjectStorageError(
            .noSuchKey, "there is no object at this key", operation: "GetObject", bucket: "b", key: "k",
            httpStatus: 404, s3Code: "NoSuchKey", requestID: nil)
        #expect(HTTPError.from(SymbolicateError(storage: noKey)).status == 404)
    }

    @Test(.enabled(if: StoredReportTests.reportPresent, "\(StoredReportTests.noReport)"))
    func aFullDiskOnPostIsInsufficientStorage() throws {
        let server = try TestServer()
        let database = try #require(server.server.context.reports as? ReportDatabase)
        try database.capSize(extraPages: 0)
        let posted = try server.post("/v1/reports", try StoredReportTests.report(), headers: server.auth)
        #expect(posted.status == 507, "\(posted.status) \(posted.text)")
        #expect(posted.errorCode == "insufficient_storage")
        #expect(Int(posted.headers["retry-after"] ?? "") ?? 0 > 0)
        let ready = try server.get("/readyz")
        #expect(ready.status == 503, "\(ready.status) \(ready.text)")
        #expect(ready.text.contains("full disk"))
    }
}
