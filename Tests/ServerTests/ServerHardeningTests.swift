// What a hostile or unlucky client can do to the server, against a real server on loopback: odd
// methods and paths must not grow /metrics; Content-Length headers that disagree and NULs escaped
// into the path are refused with 400.

import Foundation
import Server
import Testing

@Suite("Server hardening")
struct ServerHardeningTests {
    @Test func oddMethodsAndPathsShareBoundedMetricsLabels() throws {
        let server = try TestServer()
        for i in 0..<30 {
            _ = try TestHTTP.request(port: server.port, "ODD\(i)", "/healthz")
            _ = try TestHTTP.request(port: server.port, "GET", "/nothing-here-\(i)")
            _ = try TestHTTP.request(port: server.port, "X\(i)", "/elsewhere-\(i)")
        }
        let text = try server.get("/metrics").text
        #expect(!text.contains("ODD1"))
        #expect(!text.contains("X1"))
        #expect(!text.contains("nothing-here"))
        let requestLines = text.split(separator: "\n").filter { $0.hasPrefix("symbolicate_http_requests_total{") }
        // unmatched/other/404, unmatched/other/405 (odd methods on /healthz are 405s)
        #expect(requestLines.count <= 3, "\(requestLines)")
        #expect(text.contains(#"symbolicate_http_requests_total{route="unmatched",method="other",status="404"} 60"#))
        #expect(text.contains(#"symbolicate_http_requests_total{route="unmatched",method="other",status="405"} 30"#))
    }

    @Test func contentLengthsThatDisagreeAreRefusedBeforeTheBody() throws {
        let server = try TestServer()
        let connection = try TestConnection(port: server.port, timeout: 5)
        // No body follows: the answer must come from the headers alone.
        try connection.send(
            "POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 40\r\nConnection: close\r\n\r\n")
        let response = try connection.response()
        #expect(response.status == 400)
        #expect(response.errorCode == "bad_request")
        #expect(response.text.contains("Content-Length"))
        // The same length twice is one length (RFC 9110 8.6): served as usual.
        let same = try TestConnection(port: server.port, timeout: 5)
        try same.send(
            "POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        let served = try same.response()
        #expect(!served.text.contains("Content-Length"))
        #expect(served.status != 400 || served.errorCode != "bad_request")
    }

    @Test(arguments: ["/healthz%00x", "/healthz%00", "/v1/symbols%00/x", "/healthz?x=%00"])
    func encodedNULsAreRefused(path: String) throws {
        let server = try TestServer()
        let response = try server.get(path)
        #expect(response.status == 400)
        #expect(response.errorCode == "bad_request")
    }
}
