// moto's in-memory S3 stand-in (PyPI moto[server]; `make test` installs it into .build/test-venv when
// PyPI can be reached), started once per test process through
// Tests/ObjectStorageTests/Fixtures/moto-stand-in.py, which exits with this process. moto does not
// check signatures: the signer is checked against botocore in ObjectStorageTests. Every test target
// that needs a bucket asks here, so one test process runs one moto.

import Foundation

public enum MotoServer {
    /// python3 on PATH (the test venv's first, when `make test` put it there).
    public static let python: String? = ProcessRunner.which("python3")

    /// True when python3 can import moto's server.
    public static let available: Bool = {
        guard let python else { return false }
        return (try? ProcessRunner.run(python, ["-c", "import moto.server, werkzeug"]).status) == 0
    }()

    /// The loopback port of the running stand-in, or nil when it is unavailable or did not start.
    public static let port: Int? = {
        guard available, let python, let port = Loopback.freePort() else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            Repository.root + "/Tests/ObjectStorageTests/Fixtures/moto-stand-in.py", String(getpid()), String(port),
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        for _ in 0..<300 {
            if Loopback.isListening(port) { return port }
            usleep(100_000)
        }
        return nil
    }()

    /// `127.0.0.1:PORT` of the stand-in, for an `S3Endpoint` host.
    public static var host: String? { port.map { "127.0.0.1:\($0)" } }

}
