// `symbolicate serve` as users start it: the built executable on an ephemeral port, found from its
// `listening` log line; it answers, and SIGTERM stops it with exit status 0. Bad options are usage
// errors (exit 64).

import Foundation
import TestSupport
import Testing

@Suite("symbolicate serve", .tags(.server))
struct ServeCommandTests {
    @Test(.enabled(if: Fixtures.executable != nil, "the symbolicate executable was not built beside the tests"))
    func startsAnswersAndStopsOnSIGTERM() throws {
        let executable = try #require(Fixtures.executable)
        let directory = NSTemporaryDirectory() + "serve-command-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--store", directory + "/store", "--listen", "127.0.0.1:0", "--threads", "1"]
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // The first log line names the bound address.
        var collected = ""
        let reader = stderr.fileHandleForReading
        let deadline = Date().addingTimeInterval(20)
        while !collected.contains("\"listening\""), Date() < deadline {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            collected += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(collected.split(separator: "\n").first { $0.contains("\"listening\"") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let address = try #require(object["address"] as? String)
        let port = try #require(address.split(separator: ":").last.flatMap { UInt16($0) })

        #expect(try TestHTTP.request(port: port, "GET", "/healthz").status == 200)
        // No token file: writes are refused.
        #expect(try TestHTTP.request(port: port, "POST", "/v1/symbols", body: [1]).status == 403)

        kill(process.processIdentifier, SIGTERM)
        #expect(ProcessRunner.waitForExit(process), "serve did not stop on SIGTERM")
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test(
        .enabled(if: Fixtures.executable != nil, "the symbolicate executable was not built beside the tests"),
        arguments: [["--max-body", "lots"], ["--threads", "0"], ["--listen", "nowhere"], ["extra"]])
    func badOptionsAreUsageErrors(arguments: [String]) throws {
        let executable = try #require(Fixtures.executable)
        let store = NSTemporaryDirectory() + "unused-\(UUID().uuidString)"
        let result = try ProcessRunner.run(executable, ["serve", "--store", store] + arguments)
        #expect(result.status == 64 || result.status == 65, "\(arguments)")
    }
}
