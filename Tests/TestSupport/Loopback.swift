// IPv4 loopback sockets for tests: a free port, whether something listens on one, and binding
// or connecting a socket, without spelling out sockaddr_in and its casts at every use.

import Foundation

public enum Loopback {
    /// A new IPv4 TCP socket, or -1.
    public static func socket() -> Int32 { Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }

    /// Binds `fd` to `host:port` (port 0: a free one the system picks) and answers the port it
    /// got, or nil when the bind fails. With `listen`, the socket then accepts connections.
    public static func bind(_ fd: Int32, host: String = "127.0.0.1", port: Int = 0, listen: Bool = false) -> Int? {
        var address = self.address(host, port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && (!listen || Glibc.listen(fd, 4) == 0)
                    && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// Connects `fd` to `host:port`; false when nothing accepts there (errno says why).
    public static func connect(_ fd: Int32, host: String = "127.0.0.1", port: Int) -> Bool {
        var address = self.address(host, port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A loopback port nothing listens on right now (for servers, and for endpoints that do not answer).
    public static func freePort() -> Int? {
        let fd = socket()
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return bind(fd)
    }

    /// Whether something accepts connections on the loopback `port`.
    public static func isListening(_ port: Int) -> Bool {
        let fd = socket()
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, port: port)
    }

    private static func address(_ host: String, _ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
