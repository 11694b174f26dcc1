// A removed build stops answering on every server that shares its store within one watch
// interval: `DELETE /v1/symbols/UUID` on one replica of a bucket store reaches the other replica
// (which had the build open and in its cache), and `symbolicate remove` run beside a folder-store
// server reaches that server. Each test waits for the event with a deadline of a few intervals.

import Foundation
import ObjectStorage
import Server
import TestSupport
import Testing

@Suite(.serialized, .enabled(if: UploadTests.ready, "\(UploadTests.notReady)"))
struct RemovalReachTests {
    /// The watch interval of these servers, in seconds, and how many of them a removal may take
    /// to show (one interval, the rest for a machine under load).
    static let interval: Double = 1
    static let deadline: Double = 5 * interval

    static var report: [UInt8]? { Fixtures.report("HoldApp-\(UploadTests.variant).crash") }

    static func uuid(_ image: String) -> String? { Fixtures.uuids(variant: UploadTests.variant)[image] }

    @Test(.needsMoto) func aDeleteOnOneReplicaReachesTheOthers() throws {
        let endpoint = try #require(MotoServer.endpoint, "moto_server did not start")
        setenv("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE", 1)
        setenv("AWS_SECRET_ACCESS_KEY", "secret", 1)
        setenv("AWS_ENDPOINT_URL", endpoint.description, 1)
        let bucket = "rm" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        try S3Client(configuration: try S3Configuration.fromEnvironment()).createBucket(bucket)
        func replica(_ name: String) throws -> TestServer {
            try TestServer { configuration in
                configuration.storeDirectory = "s3://\(bucket)/symbols"
                configuration.cacheDirectory = NSTemporaryDirectory() + "removal-\(name)-" + UUID().uuidString
                configuration.reportWatchInterval = Self.interval
            }
        }
        let first = try replica("a")
        let second = try replica("b")
        let report = try #require(Self.report)
        let app = try #require(Self.uuid("HoldApp"))
        let unsymbolicated = try second.post("/v1/symbolicate?partial=1", report).body

        let upload = try first.post(
            "/v1/symbols", try UploadTests.zip(["HoldApp.app.dSYM", "HoldKit.framework.dSYM"]), headers: first.auth)
        #expect(upload.status == 201, "\(upload.text)")
        // The second replica sees the builds once its miss expires, and keeps them open and cached.
        var served: [UInt8] = []
        #expect(
            try Eventually.waitFor {
                served = try second.post("/v1/symbolicate", report).body
                return served != unsymbolicated
            })
        let cache = try #require(second.server.configuration.cacheDirectory)
        #expect(Self.cachedFiles(cache, uuid: app).count == 1)

        let removed = try TestHTTP.request(port: first.port, "DELETE", "/v1/symbols/" + app, headers: first.auth)
        #expect(removed.status == 200, "\(removed.text)")
        #expect(try second.get("/v1/symbols/" + app).status == 404)
        let start = Date()
        let reached = try Eventually.waitFor(seconds: Self.deadline) {
            try second.post("/v1/symbolicate?partial=1", report).body != served
        }
        #expect(reached, "still served \(Date().timeIntervalSince(start)) s after the removal")
        let after = try second.post("/v1/symbolicate?partial=1", report)
        #expect(after.headers["x-symbolicate-missing"]?.contains(app) == true, "\(after.headers)")
        // HoldKit was not removed and still answers.
        #expect(after.body != unsymbolicated)
        #expect(Self.cachedFiles(cache, uuid: app).isEmpty, "the removed build's cached copy is dropped")
    }

    @Test func removeBesideAFolderServerReachesIt() throws {
        let server = try TestServer { $0.reportWatchInterval = Self.interval }
        let report = try #require(Self.report)
        let app = try #require(Self.uuid("HoldApp"))
        let unsymbolicated = try server.post("/v1/symbolicate?partial=1", report).body
        try server.importDirectly([
            try #require(Fixtures.build(UploadTests.variant + "/HoldApp.app.dSYM")),
            try #require(Fixtures.build(UploadTests.variant + "/HoldKit.framework.dSYM")),
        ])
        var served: [UInt8] = []
        #expect(
            try Eventually.waitFor {
                served = try server.post("/v1/symbolicate", report).body
                return served != unsymbolicated
            })

        let remove = try ProcessRunner.run(
            try #require(Fixtures.executable), ["remove", "--store", server.server.configuration.storeDirectory, app])
        #expect(remove.status == 0, "\(String(decoding: remove.stderr, as: UTF8.self))")
        let start = Date()
        let reached = try Eventually.waitFor(seconds: Self.deadline) {
            try server.post("/v1/symbolicate?partial=1", report).body != served
        }
        #expect(reached, "still served \(Date().timeIntervalSince(start)) s after the removal")
        let after = try server.post("/v1/symbolicate?partial=1", report)
        #expect(after.headers["x-symbolicate-missing"]?.contains(app) == true, "\(after.headers)")
        #expect(after.body != unsymbolicated)
    }

    /// The cached build files of `uuid` in a replica's cache folder.
    static func cachedFiles(_ cache: String, uuid: String) -> [String] {
        let walk = FileManager.default.enumerator(atPath: cache)
        var found: [String] = []
        while let name = walk?.nextObject() as? String {
            if name.contains(uuid), name.hasSuffix(".sqlite") { found.append(name) }
        }
        return found
    }
}
