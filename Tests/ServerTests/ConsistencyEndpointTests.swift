// The server's answers agree with what they say they are: a 405 is counted under its route in
// /metrics; an `.ips` answer (two JSON texts) is labelled text, `format=json` JSON; everything
// `serve` writes on stderr is one JSON object a line; a bare Mach-O sent with `--data-binary` and
// no name is listed under the image name the stored reports give its UUID, not `upload`.

import Foundation
import TestSupport
import Testing

@Suite(.tags(.server)) struct ConsistencyEndpointTests {
    static let variant = "ios-arm64-dwarf5"

    @Test func aMethodNotAllowedIsCountedUnderItsRoute() throws {
        let server = try TestServer()
        let r = try TestHTTP.request(port: server.port, "PUT", "/v1/symbolicate", body: [1])
        #expect(r.status == 405)
        let metrics = try server.get("/metrics").text
        #expect(
            metrics.contains(#"symbolicate_http_requests_total{route="/v1/symbolicate",method="PUT",status="405"} 1"#),
            "\(metrics)")
        #expect(!metrics.contains(#"route="unmatched",method="PUT""#))
    }

    @Test(.needsSamples) func anIPSAnswerIsLabelledAsWhatItIs() throws {
        let server = try TestServer()
        let bytes = try #require(Fixtures.report("HoldApp-\(Self.variant).ips"))
        let ips = try server.post("/v1/symbolicate", bytes)
        #expect(ips.status == 200)
        #expect(ips.headers["content-type"] == "text/plain; charset=utf-8")
        #expect((try? JSONSerialization.jsonObject(with: Data(ips.body))) == nil, "an .ips is two JSON texts")
        let json = try server.post("/v1/symbolicate?format=json", bytes)
        #expect(json.headers["content-type"] == "application/json")
        #expect((try? JSONSerialization.jsonObject(with: Data(json.body))) != nil)
    }

    /// `serve` without a token file: its warning is a log event like every other line.
    @Test(.needsExecutable) func theServerLogIsJSONOnly() throws {
        let executable = try #require(Fixtures.executable)
        let directory = NSTemporaryDirectory() + "serve-log-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logPath = directory + "/stderr.log"
        #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let server = Process()
        server.executableURL = URL(fileURLWithPath: executable)
        server.arguments = ["serve", "--listen", "127.0.0.1:0", "--store", directory + "/store", "--threads", "1"]
        server.standardError = log
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        let text = { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        #expect(Eventually.waitFor { text().contains(#""writes_disabled""#) || text().contains("refused") })
        kill(server.processIdentifier, SIGTERM)
        #expect(ProcessRunner.waitForExit(server))
        let lines = text().split(separator: "\n")
        #expect(lines.count >= 3, "\(text())")
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not JSON: \(line)")
        }
        #expect(text().contains("no --token-file given"))
    }

    /// A stored report waits for HoldApp's UUID; its bare DWARF file, sent without a name, is
    /// imported as HoldApp.
    @Test(.enabled(if: Fixtures.hasImportCommand && Fixtures.build("ios-arm64-dwarf5/HoldApp.app.dSYM") != nil))
    func aBareMachOTakesTheNameItsReportsGiveIt() throws {
        let server = try TestServer()
        let report = try #require(Fixtures.report("HoldApp-\(Self.variant).crash"))
        #expect(try server.post("/v1/reports", report, headers: server.auth).status == 201)
        let dwarf = try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dwarf)))
        let r = try server.post("/v1/symbols", bytes, headers: server.auth)
        #expect(r.status == 201, "\(r.text)")
        let names = (r.json()["imported"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == ["HoldApp"], "\(r.text)")
    }
}
