// The server names what it was sent when it is not a crash report: a zip, a tar, gzip data without
// `Content-Encoding`, a minidump, an ELF core file on /v1/symbolicate; crash text on the
// Sentry-shaped /symbolicate, which takes Symbolicator's JSON.

import Foundation
import TestSupport
import Testing

@Suite(.tags(.server)) struct RefusalNamingEndpointTests {
    @Test(.needsSamples) func containersAndDumpsAreNamed() throws {
        let server = try TestServer()
        for fixture in try NotAReportFixtures.all() {
            let r = try server.post("/v1/symbolicate", fixture.bytes)
            #expect(r.status == 422, "\(fixture.name): \(r.text)")
            #expect(r.text.contains(fixture.says), "\(fixture.name): \(r.text)")
        }
        // With `Content-Encoding: gzip` the same bytes are the report.
        let gzip = try #require(try NotAReportFixtures.all().first { $0.name == "gzip" })
        let decoded = try server.post("/v1/symbolicate", gzip.bytes, headers: [("Content-Encoding", "gzip")])
        #expect(decoded.status == 200, "\(decoded.text)")
    }

    @Test func crashTextOnTheSentryEndpointIsSentOn() throws {
        let server = try TestServer()
        for name in ["HoldApp-ios-arm64-dwarf4.crash", "HoldApp-ios-arm64-dwarf4.ips"] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repository.samplesReports + "/" + name)))
            let r = try server.post("/symbolicate", bytes, headers: [("Content-Type", "application/json")])
            #expect(r.status == 400, "\(name): \(r.text)")
            let message = (r.json()["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("text reports go to /v1/symbolicate"), "\(name): \(r.text)")
        }
        let json = try server.post("/symbolicate", Array(#"{"modules": []}"#.utf8))
        #expect(json.status == 400)
        #expect(!json.text.contains("text reports"), "a JSON request gets the JSON error: \(json.text)")
    }
}
