// What a hostile or unlucky client can do to the server, against a real server on loopback: odd
// methods and paths must not grow /metrics.

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
}
