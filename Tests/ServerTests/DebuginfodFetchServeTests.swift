// debuginfod, used by the server: `serve` given servers asks them for the images a posted report
// names that its store lacks, once per image however many reports ask (the fetcher outlives the
// store's generations), and answers the report as it would without servers when they have
// nothing. The server is a CannedHTTPServer answering 404, which counts what it is asked.

import Foundation
import Import
import Store
import TestSupport
import Testing

@testable import Server

@Suite("debuginfod used by serve", .tags(.server), .needsSamples)
struct DebuginfodFetchServeTests {
    @Test func missingImagesAreAskedOnceAcrossReports() throws {
        let debuginfod = try CannedHTTPServer(.respond(status: 404, contentType: "text/plain", body: Array("no".utf8)))
        defer { debuginfod.stop() }
        let server = try TestServer { $0.debuginfod = DebuginfodSettings(urls: [debuginfod.url]) }
        let report = try #require(Fixtures.report("HoldApp-\(UploadTests.variant).crash"))
        let first = try server.post("/v1/symbolicate", report)
        #expect(first.status == 200, "\(first.text)")
        let asked = debuginfod.requestCount
        // Each missing image: its debuginfo, then its executable.
        #expect(asked >= 2 && asked % 2 == 0, "\(asked) requests")
        let second = try server.post("/v1/symbolicate", report)
        #expect(second.status == 200)
        #expect(second.body == first.body)
        #expect(debuginfod.requestCount == asked, "a miss is remembered across reports")
    }
}
