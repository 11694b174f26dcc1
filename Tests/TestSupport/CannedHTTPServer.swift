// A loopback HTTP server that answers every request with one canned response, for tests of
// clients facing a misbehaving server: a status and body of the test's choosing (500, an HTML
// page, a file of the wrong build), or no answer at all (`silent`: the request is read and the
// connection held open until the server stops). It counts the requests it read.

import Foundation
import Synchronization

public final class CannedHTTPServer: Sendable {
    public enum Answer: Sendable {
        case respond(status: Int, contentType: String, body: [UInt8])
        case silent
    }

    public let port: Int
    private let listener: Int32
    private let answer: Answer
    private let requests = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(_ answer: Answer) throws {
        let fd = Loopback.socket()
        guard fd >= 0, let port = Loopback.bind(fd, listen: true) else {
            if fd >= 0 { close(fd) }
            throw Failure(description: "cannot listen on loopback: \(String(cString: strerror(errno)))")
        }
        listener = fd
        self.port = port
        self.answer = answer
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "canned-http"
        thread.start()
    }

    deinit { stop() }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Requests read so far.
    public var requestCount: Int { requests.load(ordering: .sequentiallyConsistent) }

    /// Stops listening; held connections are closed.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.containsHeaderEnd {
            let n = read(connection, &buffer, buffer.count)
            if n <= 0 { return }
            received += buffer[0..<n]
        }
        requests.add(1, ordering: .sequentiallyConsistent)
        switch answer {
        case .silent:
            while !stopped.load(ordering: .sequentiallyConsistent) { usleep(20_000) }
        case .respond(let status, let contentType, let body):
            let head =
                "HTTP/1.1 \(status) Canned\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
                + "Connection: close\r\n\r\n"
            var bytes = Array(head.utf8) + body
            while !bytes.isEmpty {
                let n = write(connection, bytes, bytes.count)
                if n <= 0 { return }
                bytes.removeFirst(n)
            }
        }
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        count >= 4
            && (0...(count - 4)).contains {
                self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10
            }
    }
}
