// Batch counts that tell the truth: a report whose every frame the report itself names, run with no
// symbols, is counted "named by the report", not "fully symbolicated" (summary, table and report
// list); one crash in two apps is two groups, each carrying its app; versions a report does not
// give read `unknown` in one spelling however the report writes them; a table that quotes a
// report's keys is "not a crash report"; a jetsam event report is skipped with one reason.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@testable import Batch

@Suite(.enabled(if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent"))
struct BatchTruthTests {
    static let name = "HoldApp-ios-arm64-dwarf5.crash"

    static func run(_ folder: String, service: SymbolicationService, list: String? = nil) throws -> BatchSummary {
        var configuration = BatchFixture.configuration([folder], into: folder + "-out")
        configuration.reportList = list
        return try BatchRunner(configuration: configuration, service: service).run()
    }

    @Test func aReportTheReportNamesWholeIsCountedApart() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let named = try BatchFixture.service().process(try BatchFixture.sample(Self.name), format: nil).output
        try BatchFixture.write(named, to: fixture.root + "/in/named.crash")
        let nothing = SymbolicationService(locator: SymbolLocatorChain([]))
        let list = fixture.root + "/list.jsonl"
        let summary = try Self.run(fixture.root + "/in", service: nothing, list: list)
        #expect(summary.counts.namedByReport == 1 && summary.counts.fullySymbolicated == 0, "\(summary.table())")
        let rows = summary.table().split(separator: "\n")
        #expect(rows.contains { $0.contains("named by the report") && $0.hasSuffix(" 1") }, "\(summary.table())")
        let line = try String(contentsOfFile: list, encoding: .utf8)
        #expect(line.contains("\"status\":\"named_by_report\""), "\(line)")
    }

    @Test func oneCrashInTwoAppsIsTwoGroupsAndUnknownVersionsReadAlike() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let report = try BatchFixture.sample(Self.name)
        var other = ReportFields.replacing(report, "Identifier", with: "com.example.Other")
        other = ReportFields.replacing(other, "Process", with: "Other [4127]")
        try BatchFixture.write(other, to: fixture.root + "/in/other.crash")
        for (i, version) in ["???", "0", "()", "(unknown)", "??? (???)"].enumerated() {
            try BatchFixture.write(
                ReportFields.replacing(report, "Version", with: version), to: fixture.root + "/in/\(i).crash")
        }
        let summary = try Self.run(fixture.root + "/in", service: try BatchFixture.service())
        let groups = summary.crashGroups
        #expect(groups.map(\.app).sorted() == ["com.example.HoldApp", "com.example.Other"], "\(summary.table())")
        #expect(Set(groups.map(\.frames)).count == 1, "the same frames in both apps")
        let holdApp = try #require(groups.first { $0.app == "com.example.HoldApp" })
        #expect(holdApp.appVersions == [.init(version: "unknown", count: 5)])
        #expect(summary.table().contains("com.example.Other: "), "\(summary.table())")
    }

    @Test func aTableOfReportKeysIsNoReportAndJetsamIsSkippedWithOneReason() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let table = """
            path\tformat\tnotes
            a/UmengDemo.crash\tumeng-text\tUmeng analytics crash format: "Application received signal", dSYM UUID: and Slide Address:
            b/x.crash\tapple-text\tIncident Identifier: and Exception Type: in its header

            """
        try BatchFixture.write(Array(table.utf8), to: fixture.root + "/in/MANIFEST.tsv")
        let jetsam = """
            {"bug_type":"298","timestamp":"2024-01-02 03:04:05.00 +0000","os_version":"iPhone OS 17.2 (21C62)","incident_id":"5F6A"}
            {"crashReporterKey":"abc","product":"iPhone14,2","largestProcess":"HoldApp","processes":[{"name":"HoldApp","rpages":12000}]}

            """
        try BatchFixture.write(Array(jetsam.utf8), to: fixture.root + "/in/JetsamEvent-2024.ips")
        let summary = try Self.run(fixture.root + "/in", service: try BatchFixture.service())
        #expect(summary.counts.unparsable == 0 && summary.counts.skippedNonReports == 2, "\(summary.table())")
        let reasons = Dictionary(uniqueKeysWithValues: summary.skippedFiles.map { ($0.path, $0.reason) })
        #expect(reasons[fixture.root + "/in/MANIFEST.tsv"] == SummaryCollector.notAReport)
        #expect(reasons[fixture.root + "/in/JetsamEvent-2024.ips"] == ReportParser.jetsamRefusal)
    }
}
