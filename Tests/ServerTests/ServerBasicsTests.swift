// The server's frame, against a real server on loopback: health, metrics, OpenAPI, the web page,
// JSON errors for unknown routes and methods, tokens, body limits (Content-Length and chunked),
// the concurrency cap, slow clients, the access log, and a graceful stop with a request in flight.

import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("Server basics", .tags(.server))
struct ServerBasicsTests {
    @Test func healthMetricsAndOpenAPI() throws {
        let server = try TestServer()
        let health = try server.get("/healthz")
        #expect(health.status == 200)
        #expect(health.json()["status"] as? String == "ok")

        let openapi = try server.get("/openapi.json")
        #expect(openapi.status == 200)
        let paths = openapi.json()["paths"] as? [String: Any] ?? [:]
        for path in [
            "/v1/symbolicate", "/v1/symbols", "/v1/symbols/{uuid}", "/v1/reports", "/v1/reports/{id}", "/v1/missing",
            "/healthz", "/metrics", "/symbolicate", "/symbolicate/v5", "/",
        ] {
            #expect(paths[path] != nil, "openapi.json lacks \(path)")
        }

        let metrics = try server.get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(
            metrics.text.contains(#"symbolicate_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        #expect(
            metrics.text.contains(#"symbolicate_http_request_duration_seconds_bucket{route="/healthz",le="+Inf"} 1"#))
        #expect(metrics.text.contains("symbolicate_store_builds 0"))
        #expect(metrics.text.contains("symbolicate_frames_symbolicated_total 0"))
    }

    @Test func webPageIsSelfContained() throws {
        let server = try TestServer()
        let page = try server.get("/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
        #expect(page.text.contains("<textarea id=\"report\""))
        #expect(page.text.contains("/v1/symbolicate"))
        #expect(page.text.contains("/v1/symbols"))
        #expect(!page.text.contains("http://") && !page.text.contains("https://"), "no external assets")
        // The page's own files, put together at build time: the style sheet and the script are
        // inside the document, in place of the lines of index.html that name them.
        let folder = Repository.root + "/Sources/Server/WebPage/"
        for name in ["page.css", "page.js"] {
            let text = try String(contentsOfFile: folder + name, encoding: .utf8)
            #expect(page.text.contains(text.trimmingCharacters(in: .newlines)), "\(name) is not in the page")
        }
        #expect(!page.text.contains("href=\"page.css\"") && !page.text.contains("src=\"page.js\""))
    }

    /// Every whole-number query parameter answers 400 for what is not a whole number in its range,
    /// as the OpenAPI document declares, instead of falling back to its default.
    @Test(arguments: [
        "/v1/reports?limit=abc", "/v1/reports?limit=0", "/v1/reports?limit=1001", "/v1/missing?limit=abc",
        "/v1/missing?limit=0", "/v1/missing?limit=10001", "/v1/missing?limit=", "/v1/symbols?page=abc",
        "/v1/symbols?page=0", "/v1/symbols?per_page=1001", "/v1/symbols?page=",
    ])
    func wholeNumberParametersRefuseOtherText(_ target: String) throws {
        let server = try TestServer()
        let answer = try server.get(target)
        #expect(answer.status == 400, "\(target): \(answer.status) \(answer.text)")
        #expect(answer.errorCode == "bad_request")
    }

    @Test func wholeNumberParametersInRangeAreTaken() throws {
        let server = try TestServer()
        for target in ["/v1/reports?limit=1000", "/v1/missing?limit=10000", "/v1/symbols?page=2&per_page=1"] {
            #expect(try server.get(target).status == 200, "\(target)")
        }
    }

    @Test func unknownRoutesAndMethodsAnswerJSONErrors() throws {
        let server = try TestServer()
        let missing = try server.get("/nope")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "not_found")
        #expect(missing.headers["content-type"] == "application/json")
        let wrongMethod = try TestHTTP.request(port: server.port, "PUT", "/v1/symbolicate", body: [1, 2, 3])
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "POST")
        #expect(wrongMethod.errorCode == "method_not_allowed")
    }

    @Test func writesNeedTheToken() throws {
        let server = try TestServer()
        let body = Array("not a dsym".utf8)
        let none = try server.post("/v1/symbols", body)
        #expect(none.status == 401)
        #expect(none.errorCode == "unauthorized")
        #expect(none.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        let wrong = try server.post("/v1/symbols", body, headers: [("Authorization", "Bearer wrong-token")])
        #expect(wrong.status == 403)
        #expect(wrong.errorCode == "forbidden")
        let notBearer = try server.post("/v1/symbols", body, headers: [("Authorization", "Basic dXNlcjpwYXNz")])
        #expect(notBearer.status == 401)
        let delete = try TestHTTP.request(
            port: server.port, "DELETE", "/v1/symbols/4C4C4421-5555-3144-A186-2F41CD93DD95")
        #expect(delete.status == 401)
        let report = try server.post("/v1/reports", body)
        #expect(report.status == 401)
        // The right token passes auth (the body then fails the kind check: 415, not 401/403).
        let right = try server.post("/v1/symbols", body, headers: server.auth)
        #expect(right.status == 415)
        // Tokens never reach the log.
        #expect(!server.accessLog.contains(TestServer.token))
        #expect(!server.accessLog.contains("wrong-token"))
    }

    @Test func writesAreRefusedWithoutATokenFile() throws {
        let server = try TestServer { $0.tokens = nil }
        let response = try server.post("/v1/symbols", [1], headers: server.auth)
        #expect(response.status == 403)
        #expect(response.errorCode == "writes_disabled")
    }

    @Test func tokenFileParsing() throws {
        let path = NSTemporaryDirectory() + "tokens-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "# comment\n\n  alpha \nbeta\n".write(toFile: path, atomically: true, encoding: .utf8)
        let server = try TestServer { $0.tokens = try? TokenSet(file: path) }
        #expect(try server.post("/v1/symbols", [1], headers: [("Authorization", "Bearer alpha")]).status == 415)
        #expect(try server.post("/v1/symbols", [1], headers: [("Authorization", "Bearer beta")]).status == 415)
        #expect(try server.post("/v1/symbols", [1], headers: [("Authorization", "Bearer # comment")]).status == 403)
        try "\n# only comments\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try TokenSet(file: path) }
    }

    @Test func bodyLimits() throws {
        let server = try TestServer { $0.maxReportBody = 1000 }
        let big = [UInt8](repeating: 0x41, count: 5000)
        let declared = try server.post("/v1/symbolicate", big)
        #expect(declared.status == 413)
        #expect(declared.errorCode == "too_large")
        // Chunked: no Content-Length, the limit is enforced while reading.
        let connection = try TestConnection(port: server.port)
        try connection.send(
            TestHTTP.head("POST", "/v1/symbolicate", headers: [("Transfer-Encoding", "chunked")], bodyLength: nil))
        for _ in 0..<5 { try connection.send("3e8\r\n" + String(repeating: "B", count: 1000) + "\r\n") }
        try connection.send("0\r\n\r\n")
        let chunked = try connection.response()
        #expect(chunked.status == 413)
    }

    @Test func concurrencyCapAnswers503WithRetryAfter() throws {
        let server = try TestServer { $0.maxConcurrentRequests = 1 }
        // A request whose body is still arriving is in flight.
        let slow = try TestConnection(port: server.port)
        try slow.send(TestHTTP.head("POST", "/v1/symbolicate", headers: [], bodyLength: 100))
        try slow.send([UInt8](repeating: 0x41, count: 10))
        #expect(Eventually.waitFor { server.server.metrics.requestsInFlight == 1 }, "the slow request was not admitted")
        let refused = try server.get("/healthz")
        #expect(refused.status == 503)
        #expect(refused.headers["retry-after"] == "1")
        #expect(refused.errorCode == "busy")
        try slow.send([UInt8](repeating: 0x41, count: 90))
        let finished = try slow.response()
        #expect(finished.status == 422 || finished.status == 400)
        #expect(try server.get("/healthz").status == 200)
        #expect(try server.get("/metrics").text.contains("symbolicate_http_rejected_busy_total 1"))
    }

    @Test func slowClientsAreDisconnected() throws {
        let server = try TestServer { $0.connectionTimeout = 1 }
        let connection = try TestConnection(port: server.port, timeout: 60)
        try connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
        #expect(connection.isClosedByPeer())
        #expect(try server.get("/healthz").status == 200)
    }

    @Test func tricklingBodiesAreCutOffAtTheRequestTimeLimit() throws {
        let server = try TestServer { $0.requestTimeout = 1 }
        let connection = try TestConnection(port: server.port, timeout: 60)
        try connection.send(TestHTTP.head("POST", "/v1/symbolicate", headers: [], bodyLength: 1000))
        // A byte every 0.25 s would take 250 s: the request time limit ends it long before.
        let cut = Eventually.waitFor {
            usleep(250_000)
            return (try? connection.send("x")) == nil || connection.hasBeenClosedByPeer
        }
        #expect(cut, "the trickling body was never cut off")
        #expect(try server.get("/healthz").status == 200)
    }

    @Test func accessLogIsOneJSONLinePerRequestWithoutBodies() throws {
        let server = try TestServer()
        let secret = "Incident Identifier: SECRET-REPORT-CONTENT"
        _ = try TestHTTP.request(port: server.port, "POST", "/v1/symbolicate", text: secret)
        _ = try server.get("/healthz")
        let lines = server.accessLog.split(separator: "\n").filter { $0.contains("\"method\"") }
        #expect(lines.count == 2)
        for line in lines {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            #expect(object?["status"] is Int)
            #expect(object?["duration_ms"] != nil)
        }
        #expect(!server.accessLog.contains("SECRET-REPORT-CONTENT"))
    }

    @Test func gracefulStopFinishesTheRequestInFlight() throws {
        let server = try TestServer()
        let port = server.port
        let slow = try TestConnection(port: port)
        try slow.send(TestHTTP.head("POST", "/v1/symbolicate", headers: [], bodyLength: 20))
        try slow.send("Not a crash")
        #expect(Eventually.waitFor { server.server.metrics.requestsInFlight == 1 }, "the request was not taken in")
        let stopped = DispatchSemaphore(value: 0)
        let running = server.server
        Thread.detachNewThread {
            running.stop()
            stopped.signal()
        }
        // New connections are refused while the in-flight request is still open.
        #expect(Eventually.waitFor { (try? TestConnection(port: port, timeout: 5)) == nil }, "still accepting")
        #expect(stopped.wait(timeout: .now() + 0.1) == .timedOut, "stop waits for the request in flight")
        try slow.send(" report!!")
        let response = try slow.response()
        #expect(response.status == 400 || response.status == 422)
        #expect(stopped.wait(timeout: .now() + 10) == .success)
    }
}
