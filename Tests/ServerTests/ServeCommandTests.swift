// `symbolicate serve` as users start it: the built executable on an ephemeral port, found from its
// `listening` log line; it answers, and SIGTERM stops it with exit status 0. Bad options are usage
// errors (exit 64).

import Foundation
import TestSupport
import Testing

@Suite("symbolicate serve", .tags(.server))
struct ServeCommandTests {
    @Test(.needsExecutable)
    func startsAnswersAndStopsOnSIGTERM() throws {
        let executable = try #require(Fixtures.executable)
        let directory = NSTemporaryDirectory() + "serve-command-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The server names its bound address in its first log line.
        let (process, listening) = try ServeProcess.start(
            executable, ["--store", directory + "/store", "--threads", "1"])
        defer { if process.isRunning { process.terminate() } }
        let port = try #require(UInt16(exactly: listening))

        #expect(try TestHTTP.request(port: port, "GET", "/healthz").status == 200)
        // No token file: writes are refused.
        #expect(try TestHTTP.request(port: port, "POST", "/v1/symbols", body: [1]).status == 403)

        kill(process.processIdentifier, SIGTERM)
        #expect(ProcessRunner.waitForExit(process), "serve did not stop on SIGTERM")
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test(
        .needsExecutable,
        arguments: [["--max-body", "lots"], ["--threads", "0"], ["--listen", "nowhere"], ["extra"]])
    func badOptionsAreUsageErrors(arguments: [String]) throws {
        let executable = try #require(Fixtures.executable)
        let store = NSTemporaryDirectory() + "unused-\(UUID().uuidString)"
        let result = try ProcessRunner.run(executable, ["serve", "--store", store] + arguments)
        #expect(result.status == 64 || result.status == 65, "\(arguments)")
    }

    @Test(.needsExecutable)
    func aPortInUseIsNamedWithTheReason() throws {
        let executable = try #require(Fixtures.executable)
        let taken = Loopback.socket()
        defer { close(taken) }
        let port = try #require(Loopback.bind(taken, listen: true))
        let store = NSTemporaryDirectory() + "unused-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: store) }
        let result = try ProcessRunner.run(executable, ["serve", "--store", store, "--listen", "127.0.0.1:\(port)"])
        #expect(result.status == 1)
        #expect(
            result.stderrText.contains("cannot listen on 127.0.0.1:\(port): Address already in use"),
            "\(result.stderrText)")
    }
}
