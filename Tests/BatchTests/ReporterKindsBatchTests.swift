// Batch over the in-app reporters' formats: a zip holding the Samples' Apple report of one crash,
// the same crash as a KSCrash report and as a Sentry event (written by TestSupport's
// KSCrashSample from the same frames) is read whole, each member recognized by its content, not
// its name; the summary counts the reports by kind, and the three land in one crash group.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import Batch

@Suite(
    .enabled(
        if: KSCrashSample.available && BatchFixture.toolExists("zip"),
        "Samples/build is absent (run Samples/generate.sh) or zip is not installed"))
struct ReporterKindsBatchTests {
    @Test func oneCrashThroughThreeReportersIsOneGroupCountedByKind() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let folder = fixture.root + "/in"
        let apple = try BatchFixture.sample("HoldApp-\(KSCrashSample.variant).crash")
        // Names that say nothing of the kind: the content decides.
        try BatchFixture.write(apple, to: folder + "/a/report-1")
        try BatchFixture.write(try KSCrashSample.report(crashedThreadOnly: true), to: folder + "/a/report-2")
        try BatchFixture.write(try KSCrashSample.sentryEvent(crashedThreadOnly: true), to: folder + "/b/report-3")
        let zip = fixture.root + "/reports.zip"
        try BatchFixture.shell(["zip", "-q", "-r", zip, "."], in: folder)
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([zip], into: fixture.root + "/out"),
            service: try BatchFixture.service()
        ).run()
        #expect(summary.counts.reportsRead == 3 && summary.counts.unparsable == 0)
        #expect(summary.counts.kinds == ["crash": 1, "kscrash": 1, "sentry-event": 1], "\(summary.counts.kinds)")
        #expect(summary.table().contains("of kind kscrash"))
        let groups = summary.crashGroups
        #expect(groups.map(\.count) == [3], "\(groups.map { ($0.signature, $0.frames, $0.count) })")
        let decoded = try JSONDecoder.snakeCase.decode(BatchSummary.self, from: Data(try summary.json()))
        #expect(decoded.counts.kinds == summary.counts.kinds)
    }
}
