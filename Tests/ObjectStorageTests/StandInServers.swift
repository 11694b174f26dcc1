// The servers the client tests talk to on loopback, each started once per test process and gone
// when it exits (each watches the test process and exits with it, even after a crash):
// - moto's server (PyPI moto[server]) through Fixtures/moto-stand-in.py, an in-memory stand-in for
//   S3. It does not check signatures, so signing is checked against botocore instead
//   (SignatureV4Tests, and flaky-s3.py below).
// - Fixtures/flaky-s3.py: 503 SlowDown before success, a 307 redirect, and botocore checking the
//   signature of what arrived over the wire.

import Foundation
import ObjectStorage
import TestSupport

enum StandInServers {
    static let accessKey = "AKIAIOSFODNN7EXAMPLE"
    static let secretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

    static let botocoreAvailable: Bool = {
        guard let python = ProcessRunner.which("python3") else { return false }
        return run(python, ["-c", "import botocore"]) == 0
    }()

    /// `http://127.0.0.1:PORT` of Fixtures/flaky-s3.py.
    static let flaky: S3Endpoint? = {
        guard let python = ProcessRunner.which("python3") else { return nil }
        let output = Pipe()
        guard
            launch(python, [ObjectStorageFixtures.fixtures + "/flaky-s3.py", String(getpid())], stdout: output) != nil
        else { return nil }
        var line = Data()
        while let byte = try? output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0a]) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else { return nil }
        return S3Endpoint(scheme: "http", host: "127.0.0.1:\(port)")
    }()

    static func configuration(
        endpoint: S3Endpoint, retry: RetryPolicy = RetryPolicy(maxAttempts: 4, baseDelay: 0.01, maxDelay: 0.05),
        secretKey: String = StandInServers.secretKey, accessKey: String = StandInServers.accessKey
    ) -> S3Configuration {
        S3Configuration(
            credentials: AWSCredentials(accessKeyID: accessKey, secretAccessKey: secretKey), region: "us-east-1",
            endpoint: endpoint, retry: retry)
    }

    private static func waitForListener(port: Int) -> Bool {
        for _ in 0..<300 {
            if Loopback.isListening(port) { return true }
            usleep(100_000)
        }
        return false
    }

    @discardableResult
    private static func launch(_ executable: String, _ arguments: [String], stdout: Pipe? = nil) -> Process? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        return process
    }

    private static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        guard let process = launch(executable, arguments) else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Fixtures/flaky-s3.py over TLS with a certificate for 127.0.0.1 made at test time by openssl,
/// and the certificate's file (its own authority).
enum TLSStandIn {
    static let openSSLAvailable = ProcessRunner.which("openssl") != nil

    static let server: (endpoint: S3Endpoint, certificate: String)? = {
        guard let openssl = ProcessRunner.which("openssl"), let python = ProcessRunner.which("python3") else {
            return nil
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("s3-tls-" + UUID().uuidString)
            .path
        guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil
        else { return nil }
        let certificate = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let made = Process()
        made.executableURL = URL(fileURLWithPath: openssl)
        made.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        made.standardOutput = FileHandle.nullDevice
        made.standardError = FileHandle.nullDevice
        guard (try? made.run()) != nil else { return nil }
        made.waitUntilExit()
        guard made.terminationStatus == 0 else { return nil }

        let output = Pipe()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: python)
        server.arguments = [ObjectStorageFixtures.fixtures + "/flaky-s3.py", String(getpid()), certificate, key]
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        guard (try? server.run()) != nil else { return nil }
        var line = Data()
        while let byte = try? output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0a]) {
            line.append(byte)
        }
        // The server has loaded its key by the time it prints its port; the certificate stays for clients.
        try? FileManager.default.removeItem(atPath: key)
        guard let port = Int(String(decoding: line, as: UTF8.self)) else { return nil }
        return (S3Endpoint(scheme: "https", host: "127.0.0.1:\(port)"), certificate)
    }()
}
