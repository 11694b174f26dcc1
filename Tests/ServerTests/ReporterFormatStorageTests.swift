// `POST /v1/symbolicate` answers a KSCrash report and a Sentry event as the library does, as JSON.
// Stored reports of the in-app reporters' formats (a KSCrash report, a Sentry event) wait for a
// missing dSYM as Apple's reports do: posted while HoldKit's dSYM is absent, they list it as
// missing; once it is imported beside the server, the watcher symbolicates them again, and what
// is stored is what symbolicating the original with every dSYM gives, byte for byte (a Sentry
// event's inline frames inserted once).

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite(.enabled(if: KSCrashSample.available && UploadTests.ready, "Samples/build is absent (run Samples/generate.sh)"))
struct ReporterFormatStorageTests {
    static let variant = KSCrashSample.variant

    @Test(arguments: ["kscrash", "sentry"])
    func aStoredReportIsSymbolicatedAgainWhenItsBuildArrives(kind: String) throws {
        let report = kind == "kscrash" ? try KSCrashSample.report() : try KSCrashSample.sentryEvent()
        let server = try TestServer { $0.reportWatchInterval = 0.2 }
        try server.importDirectly([try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM"))])
        let holdKit = try #require(Fixtures.uuids(variant: Self.variant)["HoldKit"])
        let posted = try server.post("/v1/reports", report, headers: server.auth)
        #expect(posted.status == 201, "\(posted.text)")
        let id = try #require(posted.json()["id"] as? String)
        #expect((posted.json()["missing"] as? [String] ?? []).contains(holdKit), "\(posted.text)")

        try server.importDirectly([try #require(Fixtures.build("\(Self.variant)/HoldKit.framework.dSYM"))])
        #expect(
            try Eventually.waitFor {
                let missing = try server.get("/v1/reports/\(id)").json()["missing"] as? [String] ?? [holdKit]
                return !missing.contains(holdKit)
            }, "the report still waits for HoldKit")
        let raw = try server.get("/v1/reports/\(id)?view=raw")
        let expected = try SymbolicateEndpointTests.expected(server, report, format: nil)
        #expect(expected.outcome.symbolicatedFrames > 0)
        #expect(raw.body == expected.output, "the stored report is not what symbolicating it with every dSYM gives")
    }

    @Test(arguments: ["kscrash", "sentry"])
    func symbolicateAnswersAsTheLibraryDoes(kind: String) throws {
        let report = kind == "kscrash" ? try KSCrashSample.report() : try KSCrashSample.sentryEvent()
        let server = try TestServer()
        try server.importDirectly([
            try #require(Fixtures.build("\(Self.variant)/HoldApp.app.dSYM")),
            try #require(Fixtures.build("\(Self.variant)/HoldKit.framework.dSYM")),
        ])
        let expected = try SymbolicateEndpointTests.expected(server, report, format: nil)
        #expect(expected.outcome.symbolicatedFrames > 0)
        let response = try server.post("/v1/symbolicate", report)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.body == expected.output)
    }
}
