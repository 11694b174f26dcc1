// sentry-cli, the real client of the chunked upload protocol (PyPI `sentry-cli`, which
// scripts/test-venv.sh installs into the test venv): found on PATH, and run against a server on
// loopback with everything that would reach the network turned off (the update check, telemetry).

import Foundation

public enum SentryCLI {
    /// sentry-cli on PATH, or nil.
    public static let path: String? = ProcessRunner.which("sentry-cli")

    /// A token of the shape sentry-cli expects of a user token (64 hex digits, as
    /// `openssl rand -hex 32` makes it).
    public static func newToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Runs `sentry-cli ARGUMENTS` against the server at `port` with `token`, offline.
    public static func run(_ arguments: [String], port: Int, token: String, directory: String? = nil) throws
        -> ProcessResult
    {
        guard let path else { throw SentryCLIMissing() }
        return try ProcessRunner.run(
            path, arguments,
            environment: [
                "SENTRY_URL": "http://127.0.0.1:\(port)", "SENTRY_AUTH_TOKEN": token,
                "SENTRY_DISABLE_UPDATE_CHECK": "1", "SENTRY_DISABLE_TELEMETRY": "1", "SENTRY_LOG_LEVEL": "warn",
                "SENTRY_ORG": "", "SENTRY_PROJECT": "", "SENTRY_DSN": "", "SENTRY_LOAD_DOTENV": "0",
                "HOME": NSTemporaryDirectory(),
            ], directory: directory)
    }

    public struct SentryCLIMissing: Error, CustomStringConvertible {
        public var description: String { "sentry-cli is not on PATH" }
    }
}
