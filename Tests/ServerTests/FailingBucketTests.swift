// A failing bucket is never a success: `symbolicate serve --store s3://...` runs as its own
// process against moto's stand-in through a fault-injecting proxy (FaultProxy). While the proxy
// fails (503) or cuts the bucket's requests, `POST /v1/symbolicate` answers 503 with Retry-After
// naming the bucket's error, not 200 with the app's images listed as missing; `?partial=1` gets
// the answer with those frames `failed`; once the bucket answers again, the very next request is
// symbolicated (the failure was not kept as "absent"). With nothing listening at the bucket's
// endpoint, an upload is 503 storage_unavailable with Retry-After, never 422 or a 2xx.

import Foundation
import TestSupport
import Testing

@Suite(
    .serialized, .needsMoto,
    .enabled(if: ReportDurabilityTests.ready, "\(ReportDurabilityTests.notReady)"))
struct FailingBucketTests {
    static let report = "HoldApp-\(UploadTests.variant).crash"

    @Test func aFailingBucketGets503WithRetryAfterNotMissingSymbols() throws {
        let executable = try #require(Fixtures.executable)
        let (_, bucket, environment, folder) = try MotoServer.scratch(prefix: "failing")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = "s3://\(bucket)/symbols"
        let build = try #require(Fixtures.build(UploadTests.variant))
        let imported = try ProcessRunner.run(
            executable, ["import", "--store", store, "--cache", folder + "/import-cache", build],
            environment: environment)
        #expect(imported.status == 0, "\(imported.stderrText)")

        let proxy = try FaultProxy(upstreamPort: try #require(MotoServer.port))
        defer { proxy.stop() }
        proxy.set(.fail)
        var throughProxy = environment
        throughProxy["AWS_ENDPOINT_URL"] = proxy.endpointURL
        let (server, port) = try ServeProcess.start(
            executable, ["--store", store, "--cache", folder + "/cache"], environment: throughProxy)
        defer {
            kill(server.processIdentifier, SIGTERM)
            server.waitUntilExit()
        }
        let report = try #require(Fixtures.report(Self.report))
        func post(_ path: String) throws -> TestResponse {
            try TestHTTP.request(port: UInt16(port), "POST", path, body: report, timeout: 120)
        }

        for mode in [FaultProxy.Mode.fail, .cut] {
            proxy.set(mode)
            let before = proxy.faultCount
            let refused = try post("/v1/symbolicate")
            #expect(refused.status == 503, "\(mode): \(refused.status) \(refused.text)")
            #expect(refused.headers["retry-after"] != nil)
            #expect(refused.errorCode == "symbols_unavailable", "\(refused.text)")
            #expect(refused.text.contains(bucket) && refused.text.contains("partial=1"), "\(refused.text)")
            #expect(refused.headers["x-symbolicate-missing"] == nil)
            #expect(proxy.faultCount > before)

            let partial = try post("/v1/symbolicate?partial=1&format=json")
            #expect(partial.status == 200, "\(partial.text)")
            let json = partial.json()
            #expect((json["frames_failed"] as? Int ?? 0) > 0, "\(partial.text)")
            let images = json["images"] as? [[String: Any]] ?? []
            let app = images.first { $0["name"] as? String == "HoldApp" }
            #expect(app?["status"] as? String == "failed", "\(String(describing: app))")
        }

        proxy.set(.pass)
        let answered = try post("/v1/symbolicate?format=json")
        #expect(answered.status == 200, "\(answered.text)")
        let json = answered.json()
        #expect(json["frames_failed"] as? Int == 0)
        let images = json["images"] as? [[String: Any]] ?? []
        #expect(images.first { $0["name"] as? String == "HoldApp" }?["status"] as? String == "symbolicated")
    }

    @Test(
        .enabled(if: !Fixtures.sanitized, "a sanitizer build's import child cannot run under serve's memory limit"))
    func anUploadWithNothingListeningIs503NotImportFailed() throws {
        let executable = try #require(Fixtures.executable)
        let folder = NSTemporaryDirectory() + "failing-upload-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("\(TestServer.token)\n".utf8).write(to: URL(fileURLWithPath: folder + "/tokens"))
        let port = try #require(Loopback.freePort())
        let environment = [
            "AWS_ACCESS_KEY_ID": MotoServer.accessKeyID, "AWS_SECRET_ACCESS_KEY": MotoServer.secretAccessKey,
            "AWS_ENDPOINT_URL": "http://127.0.0.1:\(port)", "AWS_REGION": "us-east-1",
        ]
        let (server, serverPort) = try ServeProcess.start(
            executable,
            [
                "--store", "s3://nowhere-bucket/symbols", "--cache", folder + "/cache", "--token-file",
                folder + "/tokens",
            ],
            environment: environment)
        defer {
            kill(server.processIdentifier, SIGTERM)
            server.waitUntilExit()
        }
        let upload = try TestHTTP.request(
            port: UInt16(serverPort), "POST", "/v1/symbols",
            headers: [("Authorization", "Bearer \(TestServer.token)")],
            body: try UploadTests.zip(["HoldApp.app.dSYM"]), timeout: 120)
        #expect(upload.status == 503, "\(upload.status) \(upload.text)")
        #expect(upload.errorCode == "storage_unavailable", "\(upload.text)")
        #expect(upload.headers["retry-after"] != nil)
        #expect(upload.text.contains("cannot reach"), "\(upload.text)")
    }
}
