// moto's in-memory S3 stand-in (PyPI moto[server]) for the bucket store tests, started once per
// test process through the ObjectStorage tests' launcher script (which exits with this process).
// moto does not check signatures: the signer is checked against botocore in ObjectStorageTests.
// Also a port where nothing listens, for an endpoint that does not answer.

import Foundation
import ObjectStorage

enum MotoStandIn {
    static let launcher: String =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
        + "/ObjectStorageTests/Fixtures/moto-stand-in.py"

    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/python3" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// True when python3 can import moto's server.
    static let available: Bool = {
        guard let python else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import moto.server, werkzeug"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    static let endpoint: S3Endpoint? = {
        guard available, let python, let port = freePort() else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [launcher, String(getpid()), String(port)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        for _ in 0..<300 {
            if connects(port) { return S3Endpoint(scheme: "http", host: "127.0.0.1:\(port)") }
            usleep(100_000)
        }
        return nil
    }()

    static func configuration(
        _ endpoint: S3Endpoint, retry: RetryPolicy = RetryPolicy(maxAttempts: 4, baseDelay: 0.05, maxDelay: 0.5)
    )
        -> S3Configuration
    {
        S3Configuration(
            credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "test-secret"),
            region: "us-east-1", endpoint: endpoint, retry: retry,
        )
    }

    /// A client of the stand-in and a new bucket of its own.
    static func freshBucket() throws -> (client: S3Client, bucket: String) {
        guard let endpoint else { throw S3TestError("moto_server did not start") }
        let client = try S3Client(configuration: configuration(endpoint))
        let bucket = "st-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(24)
        try client.createBucket(String(bucket))
        return (client, String(bucket))
    }

    struct S3TestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func freePort() -> Int? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    private static func connects(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
