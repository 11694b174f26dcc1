// Read access: with read tokens configured, every read endpoint needs a read or a write token,
// while the page, health, readiness, metrics and the API description stay open; a read token
// cannot write. `symbolicate serve --read-token-file` (and the other new options) as users start it.

import Foundation
import Server
import TestSupport
import Testing

@Suite("Read access", .tags(.server))
struct ReadAccessTests {
    static let reader = "reader-token-0001"
    static let writer = TestServer.token

    static func server() throws -> TestServer {
        try TestServer { $0.readTokens = TokenSet(named: [(name: "dashboard", token: ReadAccessTests.reader)]) }
    }

    static let reads: [(String, String)] = [
        ("GET", "/v1/symbols"), ("GET", "/v1/symbols/4C4C4421-5555-3144-A186-2F41CD93DD95"), ("GET", "/v1/missing"),
        ("GET", "/v1/reports/0c6f2a52-3e2b-4c55-9a8e-3f0f8e6d2a11"), ("POST", "/v1/symbolicate"),
        ("POST", "/symbolicate"),
        ("POST", "/symbolicate/v5"),
    ]

    @Test func readsNeedAToken() throws {
        let server = try Self.server()
        for (method, path) in Self.reads {
            let body: [UInt8]? = method == "POST" ? Array("{}".utf8) : nil
            let none = try TestHTTP.request(port: server.port, method, path, body: body)
            #expect(none.status == 401, "\(method) \(path)")
            #expect(none.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            let wrong = try TestHTTP.request(
                port: server.port, method, path, headers: [("Authorization", "Bearer nope")], body: body)
            #expect(wrong.status == 403, "\(method) \(path)")
            for token in [Self.reader, Self.writer] {
                let allowed = try TestHTTP.request(
                    port: server.port, method, path, headers: [("Authorization", "Bearer \(token)")], body: body)
                #expect(allowed.status != 401 && allowed.status != 403, "\(method) \(path): \(allowed.status)")
            }
        }
        #expect(server.accessLog.contains(#""token":"dashboard""#))
        #expect(!server.accessLog.contains(Self.reader))
    }

    @Test func operatorEndpointsStayOpen() throws {
        let server = try Self.server()
        for path in ["/", "/healthz", "/readyz", "/metrics", "/openapi.json"] {
            #expect(try server.get(path).status == 200, "\(path)")
        }
    }

    @Test func aReadTokenCannotWrite() throws {
        let server = try Self.server()
        let response = try server.post("/v1/symbols", [1], headers: [("Authorization", "Bearer \(Self.reader)")])
        #expect(response.status == 403)
        #expect(response.text.contains("may only read"))
        #expect(
            try server.post("/v1/reports", [1], headers: [("Authorization", "Bearer \(Self.reader)")]).status == 403)
    }

    @Test func withoutReadTokensReadsAreOpen() throws {
        let server = try TestServer()
        #expect(try server.get("/v1/symbols").status == 200)
        #expect(try server.get("/v1/missing").status == 200)
    }

    @Test(.needsExecutable)
    func serveTakesTheNewOptions() throws {
        let executable = try #require(Fixtures.executable)
        let directory = NSTemporaryDirectory() + "serve-read-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "ci:write-secret-1\n".write(toFile: directory + "/tokens", atomically: true, encoding: .utf8)
        try "dashboard:read-secret-1\n".write(toFile: directory + "/read-tokens", atomically: true, encoding: .utf8)
        let (process, ports) = try ServeProcess.start(
            executable,
            [
                "--store", directory + "/store", "--threads", "1", "--token-file", directory + "/tokens",
                "--read-token-file", directory + "/read-tokens", "--admin-listen", "127.0.0.1:0",
                "--max-per-address", "8", "--header-timeout", "5",
            ], listeners: 2)
        defer { if process.isRunning { process.terminate() } }
        #expect(ports.count == 2)
        let port = try #require(UInt16(exactly: ports[0]))
        let admin = try #require(UInt16(exactly: ports[ports.count - 1]))
        #expect(try TestHTTP.request(port: port, "GET", "/v1/symbols").status == 401)
        #expect(
            try TestHTTP.request(port: port, "GET", "/v1/symbols", headers: [("Authorization", "Bearer read-secret-1")])
                .status
                == 200)
        #expect(
            try TestHTTP.request(
                port: port, "GET", "/v1/symbols", headers: [("Authorization", "Bearer write-secret-1")]
            ).status
                == 200)
        #expect(try TestHTTP.request(port: admin, "GET", "/readyz").status == 200)
        kill(process.processIdentifier, SIGTERM)
        #expect(ProcessRunner.waitForExit(process), "serve did not stop on SIGTERM")
        #expect(process.terminationStatus == 0)
    }

    @Test(
        .needsExecutable,
        arguments: [
            ["--max-per-address", "-1"], ["--header-timeout", "soon"], ["--read-token-file", "/nonexistent/tokens"],
        ])
    func badNewOptionsAreRefused(arguments: [String]) throws {
        let store = NSTemporaryDirectory() + "unused-\(UUID().uuidString)"
        let result = try ProcessRunner.run(try #require(Fixtures.executable), ["serve", "--store", store] + arguments)
        #expect(result.status != 0, "\(arguments)")
        #expect(result.exited)
    }
}
