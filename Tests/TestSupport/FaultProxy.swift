// A fault-injecting TCP proxy on loopback, for the tests of what symbolicate does when its bucket
// misbehaves: put between a `symbolicate` process and moto's stand-in (AWS_ENDPOINT_URL pointing
// at the proxy), it passes each new connection through, or answers every request on it with
// `503 Service Unavailable` (`fail`), or closes it once the request has arrived (`cut`), or holds
// it for a while before passing it through (`delay`), or answers as AWS does a request signed with
// an access key it does not know (`refuseCredentials`: 403 InvalidAccessKeyId). The mode can change at any time; it applies
// to connections accepted from then on (a failed or cut connection is closed, so a client's next
// request opens a new one). It counts the connections it failed or cut, so a test can tell that
// the bucket was really asked.

import Foundation
import Synchronization

public final class FaultProxy: Sendable {
    public enum Mode: Int, Sendable {
        case pass, fail, cut, delay, refuseCredentials
    }

    public let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let mode = Atomic<Int>(Mode.pass.rawValue)
    private let faults = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    /// How long `delay` holds a connection, in seconds.
    public let delaySeconds: UInt32

    /// Listens on a free loopback port and forwards to `127.0.0.1:upstreamPort`.
    public init(upstreamPort: Int, delaySeconds: UInt32 = 10) throws {
        let fd = Loopback.socket()
        guard fd >= 0, let port = Loopback.bind(fd, listen: true) else {
            if fd >= 0 { close(fd) }
            throw ProxyError(description: "cannot listen on loopback: \(String(cString: strerror(errno)))")
        }
        listener = fd
        self.port = port
        self.upstreamPort = upstreamPort
        self.delaySeconds = delaySeconds
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "fault-proxy"
        thread.start()
    }

    deinit { stop() }

    public struct ProxyError: Error, CustomStringConvertible {
        public var description: String
    }

    /// `http://127.0.0.1:PORT`, for AWS_ENDPOINT_URL.
    public var endpointURL: String { "http://127.0.0.1:\(port)" }

    public func set(_ newMode: Mode) { mode.store(newMode.rawValue, ordering: .sequentiallyConsistent) }

    /// Connections failed or cut so far.
    public var faultCount: Int { faults.load(ordering: .sequentiallyConsistent) }

    /// Stops accepting (connections already passing through run to their end).
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let current = Mode(rawValue: mode.load(ordering: .sequentiallyConsistent)) ?? .pass
            let thread = Thread { [self] in serve(client, current) }
            thread.start()
        }
    }

    private func serve(_ client: Int32, _ mode: Mode) {
        switch mode {
        case .fail:
            faults.add(1, ordering: .sequentiallyConsistent)
            _ = readRequestHead(client)
            let answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            _ = answer.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            close(client)
        case .refuseCredentials:
            faults.add(1, ordering: .sequentiallyConsistent)
            _ = readRequestHead(client)
            let document =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InvalidAccessKeyId</Code>"
                + "<Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>"
            let answer =
                "HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\n"
                + "Content-Length: \(document.utf8.count)\r\nConnection: close\r\n\r\n" + document
            _ = answer.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            close(client)
        case .cut:
            faults.add(1, ordering: .sequentiallyConsistent)
            _ = readRequestHead(client)
            close(client)
        case .delay:
            sleep(delaySeconds)
            forward(client)
        case .pass:
            forward(client)
        }
    }

    /// Reads until the end of a request's header block (or the connection's end); false on EOF.
    private func readRequestHead(_ fd: Int32) -> Bool {
        var seen: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while seen.count < 1 << 20 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return false }
            seen += buffer[0..<n]
            let end: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
            if seen.count >= 4, (0...(seen.count - 4)).contains(where: { Array(seen[$0..<$0 + 4]) == end }) {
                return true
            }
        }
        return true
    }

    /// Copies bytes both ways between `client` and a new connection to the upstream.
    private func forward(_ client: Int32) {
        let upstream = Loopback.socket()
        guard upstream >= 0, Loopback.connect(upstream, port: upstreamPort) else {
            if upstream >= 0 { close(upstream) }
            close(client)
            return
        }
        let done = DispatchGroup()
        done.enter()
        let back = Thread {
            FaultProxy.copy(from: upstream, to: client)
            done.leave()
        }
        back.start()
        FaultProxy.copy(from: client, to: upstream)
        done.wait()
        close(upstream)
        close(client)
    }

    /// Copies until `from` ends, then ends the writing side of `to`.
    private static func copy(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            var sent = 0
            while sent < n {
                let m = buffer[sent..<n].withUnsafeBytes { send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if m <= 0 {
                    shutdown(from, Int32(SHUT_RDWR))
                    return
                }
                sent += m
            }
        }
        shutdown(to, Int32(SHUT_WR))
    }
}
