// What users type, sent by curl itself against a real server on loopback: `curl -F file=@FILE`
// (curl's own multipart/form-data) for reports and for symbol uploads, `curl -d @FILE` (which
// strips line breaks) answered with a 400 that says to use --data-binary, and unknown `?view=` and
// `?format=` values answered with a 400 that names the allowed ones.

import Foundation
import Server
import TestSupport
import Testing

/// Runs curl (the real client users have) and returns the status and body.
enum Curl {
    static let path: String? = ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static func run(_ arguments: [String], in directory: String) throws -> TestResponse {
        let bodyFile = directory + "/curl-body-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: bodyFile) }
        guard let path else { throw TestConnectionError(description: "curl is not installed") }
        let result = try ProcessRunner.run(
            path, ["-sS", "--max-time", "60", "-o", bodyFile, "-w", "%{http_code}"] + arguments, directory: directory)
        let body = FileManager.default.contents(atPath: bodyFile).map { [UInt8]($0) } ?? []
        return TestResponse(status: Int(result.stdoutText) ?? 0, headers: [:], body: body)
    }
}

@Suite("HTTP habits (curl)", .tags(.server), .enabled(if: Curl.path != nil, "curl is not installed"))
struct HTTPHabitsTests {
    static let variant = "ios-arm64-dwarf5"
    static var samplesPresent: Bool {
        Fixtures.build("\(variant)/HoldApp.app.dSYM") != nil
            && Fixtures.build("\(variant)/HoldKit.framework.dSYM") != nil
            && Fixtures.report("HoldApp-\(variant).crash") != nil
    }

    static func reportPath(_ kind: String) -> String { Fixtures.samples + "/reports/HoldApp-\(variant).\(kind)" }

    @Test(
        .enabled(if: samplesPresent, "Samples/build is absent (run Samples/generate.sh)"),
        arguments: ["crash", "ips"])
    func formUploadOfAReportIsTheReport(kind: String) throws {
        let server = try TestServer()
        try server.importDirectly([
            try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM")),
            try #require(Fixtures.build("\(Self.variant)/HoldKit.framework.dSYM")),
        ])
        let url = "http://127.0.0.1:\(server.port)"
        let binary = try Curl.run(
            ["--data-binary", "@" + Self.reportPath(kind), url + "/v1/symbolicate"], in: server.directory)
        #expect(binary.status == 200)
        let form = try Curl.run(
            ["-F", "file=@" + Self.reportPath(kind), url + "/v1/symbolicate"], in: server.directory)
        #expect(form.status == 200)
        #expect(form.body == binary.body)
        #expect(!form.text.contains("Content-Disposition"))
        // Other fields beside the file are ignored; a field named otherwise but carrying a file name is the file.
        let named = try Curl.run(
            ["-F", "note=hello", "-F", "report=@" + Self.reportPath(kind), url + "/v1/symbolicate?format=json"],
            in: server.directory)
        #expect(named.status == 200)
        #expect((named.json()["frames_symbolicated"] as? Int ?? 0) > 0)
        // A field named `file` wins over an earlier one that merely carries a file name, for an upload
        // to a disk file as for one kept in memory.
        let note = server.directory + "/note.txt"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: note))
        let both = try Curl.run(
            ["-F", "other=@" + note, "-F", "file=@" + Self.reportPath(kind), url + "/v1/symbolicate?format=json"],
            in: server.directory)
        #expect(both.status == 200, "\(both.text)")
        #expect((both.json()["frames_symbolicated"] as? Int ?? 0) > 0)

        let stored = try Curl.run(
            [
                "-H", "Authorization: Bearer \(TestServer.token)", "-F", "file=@" + Self.reportPath(kind),
                url + "/v1/reports",
            ],
            in: server.directory)
        #expect(stored.status == 201)
        let id = try #require(stored.json()["id"] as? String)
        let raw = try server.get("/v1/reports/\(id)?view=raw")
        #expect(raw.body == binary.body)
    }

    @Test(.enabled(if: samplesPresent && Fixtures.hasImportCommand, "Samples/build or the import command is absent"))
    func formUploadOfSymbols() throws {
        let server = try TestServer()
        var zip = ZipFixture()
        try zip.addTree(try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM")), as: "HoldApp.app.dSYM")
        let zipPath = server.directory + "/dSYMs.zip"
        try Data(zip.bytes).write(to: URL(fileURLWithPath: zipPath))
        // A field with a file name before the `file` field: the `file` field is the upload.
        try Data("hello".utf8).write(to: URL(fileURLWithPath: server.directory + "/note.txt"))
        let response = try Curl.run(
            [
                "-H", "Authorization: Bearer \(TestServer.token)", "-F", "note=@note.txt", "-F", "file=@dSYMs.zip",
                "http://127.0.0.1:\(server.port)/v1/symbols",
            ],
            in: server.directory)
        #expect(response.status == 201, "\(response.text)")
        let imported = (response.json()["imported"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
        #expect(imported == [try #require(Fixtures.uuids(variant: Self.variant)["HoldApp"])])
    }

    @Test func aFormWithoutAFileIsA400() throws {
        let server = try TestServer()
        let response = try Curl.run(
            ["-F", "note=hello", "http://127.0.0.1:\(server.port)/v1/symbolicate"], in: server.directory)
        #expect(response.status == 400)
        #expect(response.text.contains("-F file=@"))
    }

    @Test func aFormCutShortIsA400() throws {
        let server = try TestServer()
        let body =
            "--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.crash\"\r\n\r\nIncident Identifier: 1\r\nabc"
        let response = try TestHTTP.request(
            port: server.port, "POST", "/v1/symbolicate",
            headers: [("Content-Type", "multipart/form-data; boundary=XX")],
            text: body)
        #expect(response.status == 400)
        #expect(response.text.contains("closing boundary"))
        let noBoundary = try TestHTTP.request(
            port: server.port, "POST", "/v1/symbolicate", headers: [("Content-Type", "multipart/form-data")],
            text: "hello")
        #expect(noBoundary.status == 400)
    }

    @Test(
        .enabled(if: Fixtures.report("HoldApp-\(variant).crash") != nil, "Samples/reports is absent"),
        arguments: ["crash", "ips"])
    func dataWithoutBinaryIsExplained(kind: String) throws {
        let server = try TestServer()
        let response = try Curl.run(
            ["-d", "@" + Self.reportPath(kind), "http://127.0.0.1:\(server.port)/v1/symbolicate"], in: server.directory)
        #expect(response.status == 400)
        #expect(response.errorCode == "bad_request")
        #expect(response.text.contains("--data-binary"))
    }

    @Test func unknownViewAndFormatNameTheAllowedOnes() throws {
        let server = try TestServer()
        let view = try server.get("/v1/reports/0c6f2a52-3e2b-4c55-9a8e-3f0f8e6d2a11?view=pretty")
        #expect(view.status == 400)
        #expect(view.text.contains("json, raw"))
        let format = try server.post("/v1/symbolicate?format=xml", Array("Incident Identifier: X\n".utf8))
        #expect(format.status == 400)
        #expect(format.text.contains("crash, ips, json"))
    }
}
