// A tiny HTTP/1.1 client over a raw socket, so tests control every byte: partial bodies, slow
// clients, chunked uploads, and connections held open while another request is made.

import Foundation
import TestSupport

struct TestResponse {
    var status: Int
    /// Lowercased names.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// `error.code` of a JSON error body.
    var errorCode: String? { (json()["error"] as? [String: Any])?["code"] as? String }
}

struct TestConnectionError: Error, CustomStringConvertible {
    var description: String
}

final class TestConnection {
    let fd: Int32

    /// `source` binds the client end to another loopback address (`127.0.0.2`), so a test can be
    /// two different clients as far as the server's per-address limits are concerned.
    init(port: UInt16, timeout: Int = 20, source: String? = nil) throws {
        // The descriptor is ours only once the connection is made: a failed init closes it here, and
        // deinit (which runs for a class whose init throws after its properties are set) must not
        // close it again, or it would close whatever the in-process server opened under that number.
        let fd = Loopback.socket()
        guard fd >= 0 else { throw TestConnectionError(description: "socket failed") }
        if let source, Loopback.bind(fd, host: source) == nil {
            close(fd)
            throw TestConnectionError(description: "bind to \(source) failed: \(String(cString: strerror(errno)))")
        }
        guard Loopback.connect(fd, port: Int(port)) else {
            close(fd)
            throw TestConnectionError(description: "connect failed: \(String(cString: strerror(errno)))")
        }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else {
                throw TestConnectionError(description: "send failed: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads until the peer closes (or the receive timeout passes).
    func readToEnd() -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    /// True when the server closed the connection (recv returns 0) within the receive timeout.
    /// Whether the server has closed the connection already (a look that does not wait).
    var hasBeenClosedByPeer: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }

    func response() throws -> TestResponse {
        try TestHTTP.parse(readToEnd())
    }
}

enum TestHTTP {
    static func request(
        port: UInt16, _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Int = 30, source: String? = nil
    ) throws -> TestResponse {
        let connection = try TestConnection(port: port, timeout: timeout, source: source)
        try connection.send(head(method, path, headers: headers, bodyLength: body?.count))
        if let body { try connection.send(body) }
        return try connection.response()
    }

    static func request(port: UInt16, _ method: String, _ path: String, headers: [(String, String)] = [], text: String)
        throws -> TestResponse
    {
        try request(port: port, method, path, headers: headers, body: Array(text.utf8))
    }

    static func head(_ method: String, _ path: String, headers: [(String, String)], bodyLength: Int?) -> String {
        var s = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (k, v) in headers { s += "\(k): \(v)\r\n" }
        if let bodyLength, !headers.contains(where: { $0.0.lowercased() == "transfer-encoding" }) {
            s += "Content-Length: \(bodyLength)\r\n"
        }
        return s + "\r\n"
    }

    static func parse(_ bytes: [UInt8]) throws -> TestResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw TestConnectionError(description: "no complete HTTP response (\(bytes.count) bytes)")
        }
        let head = String(decoding: bytes[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw TestConnectionError(description: "bad status line")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length {
            body = Array(body[0..<length])
        }
        return TestResponse(status: status, headers: headers, body: body)
    }
}
