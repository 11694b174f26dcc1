// Request framing a proxy in front may read otherwise than the server (RFC 9112 sections 5 and
// 6): whitespace before a header's colon, obs-fold continuation lines, a bare CR, a NUL in a
// value, HTTP/1.1 without Host, and Content-Length values that are not one plain number. Each
// shape is sent on one raw connection followed by a second request; the server must answer 400
// once and close the connection, so the second request (what a smuggler hides in the body) is
// never served.

import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("Request framing", .tags(.server))
struct RequestFramingTests {
    /// The request hidden after each shape: were it served, a second status line would follow.
    static let hidden = "GET /v1/reports HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Each shape's bytes up to the end of its header block; `hidden` follows as its "body".
    static let shapes: [(String, [UInt8])] = [
        ("space before colon", head("Content-Length : \(hidden.utf8.count)\r\n")),
        ("tab before colon", head("Content-Length\t: \(hidden.utf8.count)\r\n")),
        ("obs-fold of Content-Length", head("Content-Length:\r\n \(hidden.utf8.count)\r\n")),
        ("obs-fold of another header", head("X-Note: one\r\n two\r\nContent-Length: \(hidden.utf8.count)\r\n")),
        ("bare CR", head("X-Note: one\rContent-Length: \(hidden.utf8.count)\r\n")),
        ("NUL in a value", Array(head("X-Note: a").dropLast(2)) + [0] + Array("b\r\n\r\n".utf8)),
        ("HTTP/1.1 without Host", Array("POST /v1/symbolicate HTTP/1.1\r\nContent-Length: 0\r\n\r\n".utf8)),
        ("Content-Length +5", head("Content-Length: +5\r\n")),
        ("Content-Length 5,5", head("Content-Length: 5,5\r\n")),
        ("Content-Length -5", head("Content-Length: -5\r\n")),
        ("two differing Content-Lengths", head("Content-Length: 0\r\nContent-Length: \(hidden.utf8.count)\r\n")),
    ]

    /// The shapes libmicrohttpd refuses itself (MHD_str_to_uint64_ does not take them).
    static let refusedByLibmicrohttpd: Set<String> = ["Content-Length +5", "Content-Length 5,5", "Content-Length -5"]

    /// `POST /v1/symbolicate` with Host and the given header lines (each ending in CRLF), then the
    /// blank line.
    static func head(_ lines: String) -> [UInt8] {
        Array("POST /v1/symbolicate HTTP/1.1\r\nHost: x\r\n\(lines)\r\n".utf8)
    }

    @Test(arguments: 0..<shapes.count)
    func shapeIsRefusedOnceAndTheConnectionClosed(index: Int) throws {
        let (name, bytes) = Self.shapes[index]
        let server = try TestServer()
        let connection = try TestConnection(port: server.port, timeout: 5)
        try connection.send(bytes + Array(Self.hidden.utf8))
        let answer = connection.readToEnd()
        let text = String(decoding: answer, as: UTF8.self)
        let response = try TestHTTP.parse(answer)
        #expect(response.status == 400, "\(name): \(text)")
        // The hidden request was not served: every status line is the refusal's.
        let statusLines = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.") }
        #expect(statusLines.allSatisfy { $0.hasPrefix("HTTP/1.1 400 ") }, "\(name): \(text)")
        #expect(response.headers["connection"]?.lowercased() == "close", "\(name): \(text)")
        // One status line and one header block: nothing follows the 400, not even its own headers
        // again. libmicrohttpd 0.9.75 refuses a Content-Length it cannot parse itself, before the
        // server sees the request, and its error path sends the header block twice (HeaderBlock).
        withKnownIssue("libmicrohttpd 0.9.75's own 400 sends its header block twice") {
            #expect(statusLines.count == 1, "\(name): \(text)")
            #expect(text.components(separatedBy: "\r\n\r\n").count - 1 == 1, "\(name): \(text)")
        } when: {
            Self.refusedByLibmicrohttpd.contains(name)
        }
        // The connection is closed, not kept for another request.
        #expect(connection.isClosedByPeer(), "\(name)")
    }
}
