// What a hostile or unlucky client can do to the server, against a real server on loopback: odd
// methods and paths must not grow /metrics; one address holding many slow connections must not
// stop another address from reaching /healthz; connections trickling their headers are closed;
// the admin port answers while the main port is full; Content-Length headers that disagree,
// Transfer-Encoding beside Content-Length or other than chunked, and NULs escaped into the path
// are refused with 400; a body cut off for its rate, or stopped, is logged as closed unanswered;
// targets too long or with too many query arguments are answered 414, never left hanging.

import Compression
import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("Server hardening", .tags(.server))
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
        // unmatched/other/404, /healthz/other/405 (odd methods on /healthz are 405s, counted under it)
        #expect(requestLines.count <= 3, "\(requestLines)")
        #expect(text.contains(#"symbolicate_http_requests_total{route="unmatched",method="other",status="404"} 60"#))
        #expect(text.contains(#"symbolicate_http_requests_total{route="/healthz",method="other",status="405"} 30"#))
    }

    @Test func oneAddressCannotTakeEveryConnection() throws {
        let server = try TestServer {
            $0.maxConnections = 12
            $0.connectionsPerAddress = 4
        }
        // 127.0.0.1 opens as many connections as the whole server allows, each one a request line and
        // nothing more (a slow client); the ones past its share are closed by the server.
        var held: [TestConnection] = []
        for _ in 0..<12 {
            guard let connection = try? TestConnection(port: server.port, timeout: 2) else { continue }
            try? connection.send("GET /healthz HTTP/1.1\r\n")
            held.append(connection)
        }
        #expect(held.count == 12)
        // The server has taken them all in once it closed the 8 past the address's share.
        #expect(
            Eventually.waitFor { held.filter(\.hasBeenClosedByPeer).count == 8 },
            "\(held.filter(\.hasBeenClosedByPeer).count) of 12 connections were closed, not 8")
        let other = try TestHTTP.request(port: server.port, "GET", "/healthz", timeout: 30, source: "127.0.0.2")
        #expect(other.status == 200)
    }

    @Test func connectionsTricklingTheirHeadersAreClosed() throws {
        let server = try TestServer {
            $0.headerTimeout = 1
            $0.connectionTimeout = 120
        }
        let connection = try TestConnection(port: server.port, timeout: 5)
        try connection.send("GET /healthz HTTP/1.1\r\n")
        let start = Date()
        var closed = false
        // One header line every 0.2 s: libmicrohttpd's idle timeout never fires, the watchdog does
        // (well before the connection timeout, however slow the machine).
        for i in 0..<300 {
            Thread.sleep(forTimeInterval: 0.2)
            if (try? connection.send("X-Trickle-\(i): 1\r\n")) == nil {
                closed = true
                break
            }
        }
        #expect(closed || connection.isClosedByPeer())
        #expect(Date().timeIntervalSince(start) < 60)
        #expect(try server.get("/metrics").text.contains("symbolicate_http_header_timeouts_total 1"))
        // A request that sends its headers in time is served as usual.
        #expect(try server.get("/healthz").status == 200)
    }

    @Test func adminPortAnswersWhileTheMainPortIsFull() throws {
        let server = try TestServer {
            $0.maxConnections = 4
            $0.connectionsPerAddress = 0
            $0.adminListen = "127.0.0.1:0"
        }
        var held: [TestConnection] = []
        for _ in 0..<4 {
            let connection = try TestConnection(port: server.port, timeout: 2)
            try connection.send("GET /healthz HTTP/1.1\r\n")
            held.append(connection)
        }
        // A fifth is refused however soon it comes: the server takes connections in the order
        // they were made.
        #expect(throws: (any Error).self) {
            _ = try TestHTTP.request(port: server.port, "GET", "/healthz", timeout: 1, source: "127.0.0.2")
        }
        let admin = server.server.adminPort
        #expect(admin != 0)
        #expect(try TestHTTP.request(port: admin, "GET", "/healthz", timeout: 2).status == 200)
        let ready = try TestHTTP.request(port: admin, "GET", "/readyz", timeout: 2)
        #expect(ready.status == 200)
        #expect(ready.json()["status"] as? String == "ready")
        #expect(
            try TestHTTP.request(port: admin, "GET", "/metrics", timeout: 2).text.contains("symbolicate_store_builds"))
        // The admin port serves nothing else.
        #expect(try TestHTTP.request(port: admin, "GET", "/v1/symbols", timeout: 2).status == 404)
        #expect(held.count == 4)
    }

    @Test func readinessOnTheMainPort() throws {
        let server = try TestServer()
        let ready = try server.get("/readyz")
        #expect(ready.status == 200)
        #expect(ready.json()["status"] as? String == "ready")
        let paths = try server.get("/openapi.json").json()["paths"] as? [String: Any] ?? [:]
        #expect(paths["/readyz"] != nil)
    }

    @Test func contentLengthsThatDisagreeAreRefusedBeforeTheBody() throws {
        let server = try TestServer()
        let connection = try TestConnection(port: server.port, timeout: 5)
        // No body follows: the answer must come from the headers alone.
        try connection.send(
            "POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 40\r\nConnection: close\r\n\r\n"
        )
        let response = try connection.response()
        #expect(response.status == 400)
        #expect(response.errorCode == "bad_request")
        #expect(response.text.contains("Content-Length"))
        // The same length twice is one length (RFC 9110 8.6): served as usual.
        let same = try TestConnection(port: server.port, timeout: 5)
        try same.send(
            "POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
        )
        let served = try same.response()
        #expect(!served.text.contains("Content-Length"))
        #expect(served.status != 400 || served.errorCode != "bad_request")
    }

    /// A body trickling in a byte now and then (each byte restarts libmicrohttpd's idle timeout)
    /// is cut off once it falls behind the minimum rate, so it cannot hold a request slot for the
    /// whole request timeout; a body arriving at a normal pace is served. libmicrohttpd (0.9.75)
    /// refuses to queue a response before a request's body is complete, so the cut-off request
    /// gets no answer: the access log and /metrics say so (status 0, `closed`: why) instead of a
    /// 408 that was never sent.
    @Test func aBodyTricklingInIsCutOffAndLoggedAsClosedUnanswered() throws {
        let server = try TestServer {
            $0.bodyGracePeriod = 1
            $0.minimumBodyRate = 1024
        }
        let slow = try TestConnection(port: server.port, timeout: 10)
        try slow.send("POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nI")
        // A byte now and then, far below the rate, until the server cuts the body off.
        #expect(
            Eventually.waitFor {
                usleep(100_000)
                return (try? slow.send("n")) == nil || slow.hasBeenClosedByPeer
            }, "the trickling body was never cut off")
        #expect(slow.readToEnd().isEmpty, "no answer can be sent before the body is complete")
        let line = try #require(Self.logLine(server, path: "/v1/symbolicate"))
        #expect(line.contains(#""status":0,"#), "\(line)")
        #expect(line.contains(#""closed":"body_too_slow""#), "\(line)")
        #expect(!line.contains("client_gone"), "\(line)")
        let normal = try TestHTTP.request(
            port: server.port, "POST", "/v1/symbolicate", text: "Incident Identifier: x\n")
        #expect(normal.status != 408 && normal.status != 0)
        let metrics = try server.get("/metrics").text
        #expect(!metrics.contains(#"status="408""#))
        #expect(
            metrics.contains(#"symbolicate_http_requests_total{route="/v1/symbolicate",method="POST",status="0"} 1"#))
    }

    /// A client that goes silent in the middle of its body is closed by libmicrohttpd's idle
    /// timeout, also without an answer; the log says that timeout closed it.
    @Test func aBodyThatStopsIsLoggedAsClosedByTheIdleTimeout() throws {
        let server = try TestServer { $0.connectionTimeout = 1 }
        let silent = try TestConnection(port: server.port, timeout: 20)
        try silent.send("POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nIncident")
        #expect(silent.readToEnd().isEmpty)
        let line = try #require(Self.logLine(server, path: "/v1/symbolicate"))
        #expect(line.contains(#""status":0,"#), "\(line)")
        #expect(line.contains(#""closed":"idle_timeout""#), "\(line)")
    }

    /// The access log line of the request to `path`, once it is written (the connection's end is
    /// logged as libmicrohttpd closes it).
    static func logLine(_ server: TestServer, path: String) -> String? {
        var found: String?
        _ = Eventually.waitFor {
            found = server.accessLog.split(separator: "\n").first { $0.contains(#""path":"\#(path)""#) }.map(
                String.init)
            return found != nil
        }
        return found
    }

    /// libmicrohttpd keeps every query argument in the connection's memory pool, after the request
    /// line that already fills part of it; a request with more arguments than fit was never
    /// answered (libmicrohttpd 0.9.75 never handed it to the server) until the header timeout
    /// closed it. A target over the server's limits is answered 414 at once, however long it is
    /// within what libmicrohttpd reads, and one within them is served.
    @Test func targetsOverTheLimitsAreAnswered414() throws {
        let server = try TestServer()
        let many = (0..<500).map { "a\($0)=1" }.joined(separator: "&")
        let tooMany = try TestHTTP.request(port: server.port, "GET", "/healthz?" + many, timeout: 60)
        #expect(tooMany.status == 414)
        #expect(tooMany.errorCode == "uri_too_long")
        #expect(tooMany.text.contains("500 query arguments"), "\(tooMany.text)")
        // A long target leaves less of the pool for its arguments: 50 of them did not fit beside 30 KB.
        let few = (0..<50).map { "a\($0)=1" }.joined(separator: "&")
        let long = "/v1/reports?" + few + "&pad=" + String(repeating: "p", count: 30_000)
        let tooLong = try TestHTTP.request(port: server.port, "GET", long, timeout: 60)
        #expect(tooLong.status == 414)
        #expect(tooLong.errorCode == "uri_too_long")
        #expect(tooLong.text.contains("8192 bytes"), "\(tooLong.text)")
        // The limits: 100 arguments, 8192 bytes.
        let within = (0..<100).map { "a\($0)=1" }.joined(separator: "&")
        #expect(try server.get("/healthz?" + within).status == 200)
        #expect(try server.get("/healthz?" + within + "&a=1").status == 414)
        let padded = "/healthz?x=" + String(repeating: "y", count: 8192 - 11)
        #expect(padded.utf8.count == 8192)
        #expect(try server.get(padded).status == 200)
        #expect(try server.get(padded + "y").status == 414)
        // Both limits at once: 100 arguments in 8192 bytes, with the usual headers.
        let full = "/healthz?" + (0..<99).map { "a\($0)=1" }.joined(separator: "&") + "&pad="
        let widest = full + String(repeating: "p", count: 8192 - full.utf8.count)
        #expect(try server.get(widest, headers: [("User-Agent", "curl/8.0"), ("Accept", "*/*")]).status == 200)
        // The next request on the server is served as usual.
        #expect(try server.get("/healthz").status == 200)
        let paths = try server.get("/openapi.json").json()["paths"] as? [String: [String: Any]] ?? [:]
        let responses = (paths["/v1/reports"]?["get"] as? [String: Any])?["responses"] as? [String: Any]
        #expect(responses?["414"] != nil)
    }

    /// A compressed report (what it inflates to is unknown) is symbolicated on a worker: while a
    /// slow one is computed, a request on the same network thread is answered.
    @Test func aCompressedReportDoesNotHoldTheNetworkThread() throws {
        let server = try TestServer { $0.threads = 1 }
        // A deep MetricKit call-stack tree: seconds of work for the text rendering.
        let depth = 20_000
        var text = "{\"callStackPerThread\":false,\"callStacks\":[{\"callStackRootFrames\":["
        for i in 0..<depth {
            text += "{\"binaryUUID\":\"4C4C44AA-5555-3144-A1C9-3105F2834F44\",\"offsetIntoBinaryTextSegment\":\(i)"
            text += ",\"sampleCount\":1,\"binaryName\":\"HoldKit\",\"address\":\(0x1_0000_0000 + i)"
            text += i + 1 < depth ? ",\"subFrames\":[" : "}"
        }
        text += String(repeating: "]}", count: depth - 1) + "]}]}"
        let body = try #require(Zlib.deflate(Array(text.utf8), framing: .gzip))
        let heavy = try TestConnection(port: server.port, timeout: 120)
        try heavy.send(
            TestHTTP.head(
                "POST", "/v1/symbolicate?format=crash", headers: [("Content-Encoding", "gzip")],
                bodyLength: body.count))
        try heavy.send(body)
        #expect(
            Eventually.waitFor { server.server.metrics.requestsInFlight == 1 }, "the heavy report was never taken in")
        let health = try TestHTTP.request(port: server.port, "GET", "/healthz", timeout: 60)
        #expect(health.status == 200)
        // The heavy report is still being computed: no byte of its answer has come.
        var byte: UInt8 = 0
        let early = recv(heavy.fd, &byte, 1, Int32(MSG_DONTWAIT))
        #expect(early < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), "the report was answered first")
        #expect(try heavy.response().status == 200)
    }

    /// Transfer-Encoding beside Content-Length is how a request is smuggled past a proxy that
    /// reads the other one (RFC 9112 section 6.1): refused, and the connection closed, so what
    /// the body hides is never served as a request of its own.
    @Test func transferEncodingBesideContentLengthIsRefusedAndTheConnectionClosed() throws {
        let server = try TestServer()
        let connection = try TestConnection(port: server.port, timeout: 5)
        let hidden = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        let body = "0\r\n\r\n" + hidden
        try connection.send(
            "POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        let bytes = connection.readToEnd()
        let response = try TestHTTP.parse(bytes)
        #expect(response.status == 400)
        #expect(response.text.contains("Transfer-Encoding"), "\(response.text)")
        // One answer only: the hidden request was not served.
        let answers = String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").count - 1
        #expect(answers == 1, "\(String(decoding: bytes, as: UTF8.self))")
    }

    /// A transfer coding other than chunked alone cannot be delimited: refused at once, not left
    /// waiting for a body until the idle timeout.
    @Test(arguments: ["gzip, chunked", "identity", "xchunked"])
    func transferCodingsOtherThanChunkedAreRefused(coding: String) throws {
        let server = try TestServer()
        let connection = try TestConnection(port: server.port, timeout: 5)
        try connection.send("POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(coding)\r\n\r\n")
        let response = try connection.response()
        #expect(response.status == 400)
        #expect(response.text.contains("only chunked"), "\(response.text)")
    }

    @Test(arguments: ["/healthz%00x", "/healthz%00", "/v1/symbols%00/x", "/healthz?x=%00"])
    func encodedNULsAreRefused(path: String) throws {
        let server = try TestServer()
        let response = try server.get(path)
        #expect(response.status == 400)
        #expect(response.errorCode == "bad_request")
    }

    /// The byte search an Accept header is read with finds a word wherever String's does.
    @Test func acceptHeadersAreSearchedAsStringsAre() {
        var random = SplitMix64(seed: 0xACC)
        let pieces = ["application/json", "application/", "json", "text/plain", ", ", ";q=0.9", "*/*", "é", "a"]
        for _ in 0..<3000 {
            let text = (0..<Int(random.next() % 5)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            for word in ["application/json", "", "a", "é"] {
                #expect(HeaderBlock.holds(text, word) == (word.isEmpty || text.contains(word)), "\(text)")
            }
        }
    }

    /// The byte scan for `%00` finds it wherever a substring search does.
    @Test func encodedNULsAreFoundWhereASearchFindsThem() {
        var random = SplitMix64(seed: 0x2500)
        let pieces = ["%", "0", "%0", "00", "a", "/", "é", "%%"]
        for _ in 0..<3000 {
            let target = (0..<Int(random.next() % 7)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
                .joined()
            #expect(HeaderBlock.holds(target, "%00") == target.contains("%00"), "\(target)")
        }
    }
}
