// `symbolicate healthcheck [URL]`: asks a running server whether it is alive, for a container's
// HEALTHCHECK and for hosts without curl (debian:bookworm-slim has none). The binary otherwise has
// no HTTP client: libcurl is loaded only for object storage, and this probe must work in an image
// that has nothing else. So it sends one `GET` with HTTP/1.1 over a plain TCP socket and reads the
// status line only (RFC 9112 section 4: `HTTP-version SP status-code SP [reason-phrase]`): exit 0
// for a 2xx, 1 for anything else, with one line saying what happened. No TLS, redirects or bodies:
// it talks to the server on the same host or in the same pod.

import Foundation
import Server
import SymbolicateModel

enum HealthcheckCommand: Command {
    static let name = "healthcheck"
    static let summary = "Exit 0 when a running server answers its health check (for containers)"
    static let about = """
        USAGE: symbolicate healthcheck [--timeout SECONDS] [URL]

        Sends GET URL to a running `symbolicate serve` and exits 0 when it answers with a 2xx status,
        1 otherwise (connection refused, no answer in time, another status), printing one line about
        the answer. Made for a container's HEALTHCHECK: slim images have no curl. Plain http:// only;
        redirects are not followed.

        ARGUMENTS:
          URL                What to ask (default: http://127.0.0.1:8080/healthz; the server's
                             readiness check is /readyz)

        """

    static let timeout = ValueOption<Int>.integer(
        "--timeout", value: "SECONDS", in: 1...300,
        help: "Give up after this many seconds, connecting included (default: 5).")

    static let options: [any CommandOption] = [timeout]

    static let epilogue = """
        EXIT STATUS: 0 healthy, 1 unhealthy or unreachable, 64 usage error.

        """

    static let defaultURL = "http://127.0.0.1:8080/healthz"

    static func run(_ args: Arguments) throws -> Int32 {
        guard args.positionals.count <= 1 else {
            throw UsageError("healthcheck takes one URL (got \(args.positionals.count) arguments)")
        }
        let seconds = try args.value(timeout) ?? 5
        let target = try HealthcheckTarget(parsing: args.positionals.first ?? defaultURL)
        do {
            let status = try target.get(timeoutSeconds: seconds)
            let line = "\(target.url): \(status.code)\(status.reason.isEmpty ? "" : " " + status.reason)"
            guard (200..<300).contains(status.code) else {
                Console.error("unhealthy: \(line)")
                return ExitCode.failure
            }
            try Console.out("healthy: \(line)\n")
            return ExitCode.ok
        } catch let error as SymbolicateError {
            // Every way of not getting a 2xx is "unhealthy" (1), which is what HEALTHCHECK expects.
            Console.error("unhealthy: \(error.description)")
            return ExitCode.failure
        }
    }
}

/// Where the probe connects and what it asks for, from an `http://HOST[:PORT][/PATH]` URL.
struct HealthcheckTarget {
    var url: String
    var host: String
    var port: UInt16
    /// The request target: path and query, `/` when the URL has none.
    var requestTarget: String
    /// The Host header: the URL's authority as written.
    var authority: String

    init(parsing text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw UsageError("'\(text)' is not a URL; give one such as \(HealthcheckCommand.defaultURL)")
        }
        guard scheme == "http" else {
            throw UsageError("healthcheck speaks plain http:// only (got \(scheme)://); ask the server on its own host")
        }
        guard var host = components.host, !host.isEmpty else {
            throw UsageError("'\(text)' names no host; give one such as \(HealthcheckCommand.defaultURL)")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 80
        guard (1...65535).contains(port) else { throw UsageError("'\(text)': port \(port) is out of range") }
        self.url = text
        self.host = host
        self.port = UInt16(port)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.requestTarget = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let hostForHeader = host.contains(":") ? "[\(host)]" : host
        self.authority = components.port == nil ? hostForHeader : "\(hostForHeader):\(port)"
    }

    struct Status {
        var code: Int
        var reason: String
    }

    /// Connects, sends the request and reads the status line, all within `timeoutSeconds`.
    func get(timeoutSeconds: Int) throws -> Status {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutSeconds) * 1_000_000_000
        let fd = try connect(deadline: deadline)
        defer { close(fd) }
        let request =
            "GET \(requestTarget) HTTP/1.1\r\nHost: \(authority)\r\n"
            + "User-Agent: symbolicate-healthcheck\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        var bytes = Array(request.utf8)
        while !bytes.isEmpty {
            try wait(fd, for: Int16(POLLOUT), until: deadline, doing: "sending the request")
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw failure("sending the request failed: \(Errno.current.description)")
            }
            bytes.removeFirst(sent)
        }
        // The status line is short; 8 KiB without a line break is not an HTTP answer.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !received.contains(UInt8(ascii: "\n")) {
            guard received.count < 8192 else { throw failure("the answer has no status line in its first 8 KiB") }
            try wait(fd, for: Int16(POLLIN), until: deadline, doing: "waiting for the answer")
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw failure("reading the answer failed: \(Errno.current.description)")
            }
            if count == 0 {
                if received.isEmpty { throw failure("the server closed the connection without answering") }
                break
            }
            received += buffer[0..<count]
        }
        let firstLine = received.prefix { $0 != UInt8(ascii: "\n") }
        return try Self.parseStatusLine(String(decoding: firstLine, as: UTF8.self))
    }

    /// `HTTP/1.1 200 OK` -> (200, "OK"). Anything else is not an HTTP answer.
    static func parseStatusLine(_ raw: String) throws -> Status {
        let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]),
            (100...599).contains(code)
        else {
            let shown = line.count > 60 ? String(line.prefix(60)) + "..." : line
            throw SymbolicateError(.badInput, "the answer is not HTTP (first line: '\(shown)')")
        }
        return Status(code: code, reason: parts.count > 2 ? String(parts[2]) : "")
    }

    /// A connected, non-blocking socket to the first address of `host` that accepts.
    private func connect(deadline: UInt64) throws -> Int32 {
        let outcome = try TCPAddresses.first(
            host: host, port: port, passive: false, flags: Int32(SOCK_NONBLOCK.rawValue)
        ) { fd, info, lastError in
            if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else {
                lastError = Errno.current.description
                return false
            }
            try wait(fd, for: Int16(POLLOUT), until: deadline, doing: "connecting")
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length) == 0, socketError == 0 { return true }
            lastError = Errno(rawValue: socketError).description
            return false
        }
        switch outcome {
        case .socket(let fd):
            return fd
        case .unresolved(let reason):
            throw failure("cannot resolve \(host): \(reason)")
        case .noneTook(let lastError):
            throw failure(
                "cannot connect to \(host) port \(port): \(lastError); is `symbolicate serve` running and listening there?"
            )
        }
    }

    /// Waits until `fd` is ready for `events` or the deadline passes.
    private func wait(_ fd: Int32, for events: Int16, until deadline: UInt64, doing what: String) throws {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw timeout(what) }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let milliseconds = Int32(min((deadline - now) / 1_000_000 + 1, UInt64(Int32.max)))
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready == 0 { throw timeout(what) }
            if errno != EINTR { throw failure("\(what) failed: \(Errno.current.description)") }
        }
    }

    private func timeout(_ what: String) -> SymbolicateError {
        SymbolicateError(.limit, "no answer in time (\(what))", path: url)
    }

    private func failure(_ message: String) -> SymbolicateError {
        SymbolicateError(.io, message, path: url)
    }
}
