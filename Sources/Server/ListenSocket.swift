// The listening socket, opened by us rather than by libmicrohttpd: `--listen HOST:PORT` accepts an
// IPv4 address, `[IPv6]`, or a name (resolved with getaddrinfo), and port 0 picks a free port that
// `port` then reports (tests use it). libmicrohttpd only receives the ready file descriptor.

import Foundation
import SymbolicateModel

struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    var host: String
    var port: UInt16

    /// Parses `127.0.0.1:8080`, `[::1]:8080`, `localhost:0`, or `:8080` (all interfaces).
    init(parsing text: String) throws {
        var hostPart: Substring
        var portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw SymbolicateError(.badInput, "listen address '\(text)': missing ']' after the IPv6 address")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else {
                throw SymbolicateError(.badInput, "listen address '\(text)' needs a port: [ADDRESS]:PORT")
            }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw SymbolicateError(.badInput, "listen address '\(text)' needs a port: HOST:PORT")
            }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portPart) else {
            throw SymbolicateError(.badInput, "listen address '\(text)': '\(portPart)' is not a port number (0-65535)")
        }
        if hostPart.isEmpty { hostPart = "0.0.0.0" }
        self.host = String(hostPart)
        self.port = port
    }

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The TCP addresses getaddrinfo gives for a host and port, tried in its order: the server
/// listens on the first one it can bind, the health check connects to the first one that answers.
public enum TCPAddresses {
    public enum Outcome {
        /// The socket `attempt` kept.
        case socket(Int32)
        /// The name does not resolve (getaddrinfo's reason).
        case unresolved(String)
        /// No address took; the reason the last one failed.
        case noneTook(String)
    }

    /// Makes a stream socket (close-on-exec, plus `flags`) for each address of `host`:`port`
    /// (`passive`: addresses to bind, for a server) and hands it to `attempt`, which returns true
    /// to keep it, or false after setting `lastError`; a socket not kept is closed, also when
    /// `attempt` throws.
    public static func first(
        host: String, port: UInt16, passive: Bool, flags: Int32 = 0,
        _ attempt: (_ fd: Int32, _ address: addrinfo, _ lastError: inout String) throws -> Bool
    ) throws -> Outcome {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        if passive { hints.ai_flags = AI_PASSIVE }
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return .unresolved(rc == 0 ? "no address" : String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }
        var lastError = "no usable address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | flags, 0)
            guard fd >= 0 else {
                lastError = Errno.current.description
                continue
            }
            let kept: Bool
            do {
                kept = try attempt(fd, info.pointee, &lastError)
            } catch {
                close(fd)
                throw error
            }
            if kept { return .socket(fd) }
            close(fd)
        }
        return .noneTook(lastError)
    }
}

/// An open, listening TCP socket. Closed by whoever ends up owning the descriptor.
struct ListenSocket {
    let fd: Int32
    let port: UInt16

    static func open(_ address: ListenAddress, backlog: Int32 = 1024) throws -> ListenSocket {
        let outcome = try TCPAddresses.first(host: address.host, port: address.port, passive: true) {
            fd, info, lastError in
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            guard bind(fd, info.ai_addr, info.ai_addrlen) == 0, listen(fd, backlog) == 0 else {
                lastError = Errno.current.description
                return false
            }
            return true
        }
        switch outcome {
        case .socket(let fd):
            return ListenSocket(fd: fd, port: boundPort(fd) ?? address.port)
        case .unresolved(let reason):
            throw SymbolicateError(.badInput, "cannot resolve listen address \(address): \(reason)")
        case .noneTook(let lastError):
            throw SymbolicateError(.io, "cannot listen on \(address): \(lastError)")
        }
    }

    private static func boundPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default:
            return nil
        }
    }
}
