// `symbolicate healthcheck`, run as a container's HEALTHCHECK runs it: against a real
// `symbolicate serve` on loopback, and against small listeners in this process that answer with a
// fixed status, with something that is not HTTP, or not at all, so each way of being unhealthy is
// seen to exit 1 with a line saying why.

import Foundation
import TestSupport
import Testing

@Suite(.tags(.server)) struct HealthcheckTests {
    @Test func helpNamesTheCommand() throws {
        let r = try CLI.run(["healthcheck", "--help"])
        #expect(r.status == 0)
        #expect(r.stdoutText.contains("USAGE: symbolicate healthcheck"))
        let overview = try CLI.run(["--help"])
        #expect(overview.stdoutText.contains("healthcheck"))
    }

    @Test func healthyServer() throws {
        let folder = NSTemporaryDirectory() + "symbolicate-healthcheck-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: CLI.executable)
        server.arguments = ["serve", "--store", folder + "/store", "--listen", "127.0.0.1:0", "--threads", "1"]
        let log = Pipe()
        server.standardError = log
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        // The server's first line on stderr is {"event":"listening","address":"127.0.0.1:PORT"}.
        let first = try #require(Self.firstLine(of: log.fileHandleForReading))
        let key = try #require(first.range(of: "\"address\":\""))
        let address = first[key.upperBound...].prefix { $0 != "\"" }
        let r = try CLI.run(["healthcheck", "http://\(address)/healthz"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdoutText.contains("200"))
        let missing = try CLI.run(["healthcheck", "http://\(address)/no-such-route"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("404"))
    }

    @Test(arguments: [
        ("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", "503"),
        ("HTTP/1.0 500 Internal Server Error\r\n\r\n", "500"),
        ("SSH-2.0-OpenSSH_9.2\r\n", "not HTTP"),
        ("", "closed the connection"),
    ])
    func unhealthyAnswers(_ answer: String, _ expected: String) throws {
        let listener = try CannedListener(answer: answer)
        let r = try CLI.run(["healthcheck", "--timeout", "10", "http://127.0.0.1:\(listener.port)/healthz"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("unhealthy"))
        #expect(r.stderr.contains(expected), "stderr: \(r.stderr)")
        #expect(listener.request().hasPrefix("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(listener.port)\r\n"))
    }

    @Test func okFromAnyServer() throws {
        let listener = try CannedListener(answer: "HTTP/1.1 204 No Content\r\n\r\n")
        let r = try CLI.run(["healthcheck", "http://127.0.0.1:\(listener.port)/readyz?deep=1"])
        #expect(r.status == 0)
        #expect(listener.request().hasPrefix("GET /readyz?deep=1 HTTP/1.1\r\n"))
    }

    @Test func silentServerTimesOut() throws {
        let listener = try CannedListener(answer: nil)
        let r = try CLI.run(["healthcheck", "--timeout", "1", "http://127.0.0.1:\(listener.port)/healthz"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no answer in time"))
    }

    @Test func nothingListening() throws {
        let closed = try CannedListener(answer: nil, listening: false)
        let r = try CLI.run(["healthcheck", "http://127.0.0.1:\(closed.port)/healthz"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot connect"))
        #expect(r.stderr.contains("refused"))
    }

    @Test(arguments: [
        ["https://127.0.0.1:8080/healthz"], ["not a url"], ["http:///healthz"], ["--timeout", "0"],
        ["http://a/", "http://b/"],
    ])
    func usageErrors(_ arguments: [String]) throws {
        let r = try CLI.run(["healthcheck"] + arguments)
        #expect(r.status == 64, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("USAGE: symbolicate healthcheck"))
    }

    private static func firstLine(of handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while bytes.count < 4096 {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}

/// A one-connection TCP listener on 127.0.0.1 that reads the request, then writes `answer` and
/// closes (or, for `nil`, keeps the connection open without a word until the listener goes away).
final class CannedListener: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private var received = ""

    init(answer: String?, listening: Bool = true) throws {
        (fd, port) = try Self.bound(listening: listening)
        guard listening else {
            finished.signal()
            return
        }
        Thread { [self] in
            serve(answer)
            finished.signal()
        }.start()
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))  // ends an accept() still waiting
        release.signal()
        finished.wait()
        close(fd)
    }

    /// What the client sent, once the listener has answered.
    func request() -> String {
        finished.wait()
        finished.signal()
        return received
    }

    private func serve(_ answer: String?) {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n") {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        received = String(decoding: bytes, as: UTF8.self)
        if let answer {
            _ = Array(answer.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        } else {
            release.wait()
        }
    }

    /// A socket bound to a free loopback port; without `listen`, connecting to it is refused, and
    /// nothing else can take the port while it is held.
    private static func bound(listening: Bool) throws -> (Int32, UInt16) {
        let fd = Loopback.socket()
        guard fd >= 0 else { throw POSIXError(.EIO) }
        guard let port = Loopback.bind(fd, listen: listening) else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, UInt16(port))
    }
}
