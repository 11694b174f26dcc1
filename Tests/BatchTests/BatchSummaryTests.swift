// The batch summary: missing symbol files ranked by the number of reports needing them (with
// the app version from the report), crash groups by signature with counts and examples, the
// JSON form, inputs given several at a time (collision rule), `-` lists, and `--format json`.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@testable import Batch

@Suite(
    .enabled(if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent (run Samples/generate.sh)"))
struct BatchSummaryTests {
    @Test func missingImagesAndCrashGroupsAreRanked() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let mismatch = try #require(BatchFixture.sampleReportNames.first { $0.contains("uuid-mismatch") })
        let other = try #require(BatchFixture.sampleReportNames.first { $0.hasSuffix(".crash") && $0 != mismatch })
        let folder = fixture.root + "/in"
        for i in 0..<3 { try BatchFixture.write(try BatchFixture.sample(mismatch), to: folder + "/m\(i).crash") }
        try BatchFixture.write(try BatchFixture.sample(other), to: folder + "/o.crash")
        let service = try BatchFixture.service()
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([folder], into: fixture.root + "/out"), service: service
        ).run()

        // Truth: what the service says about each report's missing images and crashed thread.
        var needed: [String: Int] = [:]
        var signatures: [String: Int] = [:]
        var versions: [String: Set<String>] = [:]
        for name in [mismatch, mismatch, mismatch, other] {
            let processed = try service.process(try BatchFixture.sample(name), format: nil)
            for uuid in Set(processed.outcome.missing.compactMap(\.uuid)) {
                needed[uuid.uuidString, default: 0] += 1
                versions[uuid.uuidString, default: []].insert(processed.report.field("Version") ?? "")
            }
            signatures[ReportFacts(processed).signature, default: 0] += 1
        }
        #expect(Dictionary(uniqueKeysWithValues: summary.missingImages.map { ($0.uuid, $0.reports) }) == needed)
        #expect(summary.missingImages.map(\.reports) == summary.missingImages.map(\.reports).sorted(by: >))
        for image in summary.missingImages {
            #expect(Set(image.appVersions) == versions[image.uuid])
        }
        let mismatched = try service.process(try BatchFixture.sample(mismatch), format: nil)
        let missing = try #require(mismatched.outcome.missing.first { $0.name == "HoldApp" })
        let entry = try #require(summary.missingImages.first { $0.uuid == missing.uuid?.uuidString })
        #expect(entry.reports == 3 && entry.name == "HoldApp" && entry.example == folder + "/m0.crash")
        #expect(entry.appVersions == [mismatched.report.field("Version") ?? ""])

        #expect(Dictionary(uniqueKeysWithValues: summary.crashGroups.map { ($0.signature, $0.count) }) == signatures)
        let group = try #require(summary.crashGroups.first)
        #expect(group.count >= 3)
        #expect(group.example == folder + "/m0.crash")
        #expect(group.exceptionType == mismatched.report.field("Exception Type"))
        #expect(group.frames.count == 3)
        #expect(group.signature == ([group.exceptionType] + group.frames).joined(separator: " | "))

        let decoded = try JSONDecoder.snakeCase.decode(BatchSummary.self, from: Data(try summary.json()))
        #expect(decoded == summary)
        let table = summary.table()
        #expect(table.contains(entry.uuid) && table.contains("Top crash groups"))
    }

    @Test func signatureUsesSymbolsOfTheCrashedThread() throws {
        let service = try BatchFixture.service()
        let name = try #require(BatchFixture.sampleReportNames.first { $0.contains("ios-arm64-dwarf4.crash") })
        let processed = try service.process(try BatchFixture.sample(name), format: nil)
        let facts = ReportFacts(processed)
        let crashed = try #require(processed.report.backtraces.firstIndex { $0.kind == .thread && $0.crashed })
        let expected = (0..<3).map { f -> String in
            let result = processed.outcome.results[FrameID(backtrace: crashed, frame: f)]
            return result?.frames.first?.symbol ?? "?"
        }
        #expect(facts.topFrames == expected)
        #expect(facts.exceptionType == "EXC_CRASH (SIGABRT)")
        #expect(facts.appVersion == "1.2 (12)")
        // The .ips form of the same crash groups under the same signature.
        let ips = try service.process(
            try BatchFixture.sample(name.replacingOccurrences(of: ".crash", with: ".ips")), format: nil)
        #expect(ReportFacts(ips).signature == facts.signature)
        #expect(ReportFacts(ips).appVersion == "1.2 (12)")
    }

    @Test func severalInputsArePrefixedOnlyOnCollision() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let crash = try BatchFixture.sampleCrash()
        try BatchFixture.write(crash, to: fixture.root + "/first/x.crash")
        try BatchFixture.write(crash, to: fixture.root + "/second/x.crash")
        try BatchFixture.write(crash, to: fixture.root + "/second/y.crash")
        let output = fixture.root + "/out"
        _ = try BatchRunner(
            configuration: BatchFixture.configuration(
                [fixture.root + "/first", fixture.root + "/second"], into: output),
            service: try BatchFixture.service()
        ).run()
        #expect(Set(BatchFixture.files(in: output).keys) == ["x.crash", "second/x.crash", "y.crash"])
    }

    @Test func outputFolderInsideTheInputIsNotReadBack() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let output = tree.folder + "/symbolicated"
        let service = try BatchFixture.service()
        let first = try BatchRunner(
            configuration: BatchFixture.configuration([tree.folder], into: output), service: service
        ).run()
        var again = BatchFixture.configuration([tree.folder], into: output)
        again.resume = true
        let second = try BatchRunner(configuration: again, service: service).run()
        #expect(first.counts.files == tree.files.count)
        #expect(second.counts.files == tree.files.count)
        #expect(second.counts.alreadyDone == tree.reports.count)
        #expect(Set(BatchFixture.files(in: output).keys) == Set(tree.reports))
    }

    @Test func progressLinesCountTowardsTheTotal() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let configuration = BatchFixture.configuration([tree.folder], into: fixture.root + "/out")
        let census = InputCensus(configuration)
        #expect(census.files == tree.files.count)
        let collector = SummaryCollector()
        collector.recordNonReport(path: tree.folder + "/notes/blob.bin")
        let lines = LineFeed([])
        let reporter = ProgressReporter(
            style: .lines, interval: 0.05, census: census, collector: collector, input: InputProgress(),
            write: { lines.append($0) })
        reporter.start()
        #expect(Eventually.waitFor { !lines.all.isEmpty }, "the progress thread printed no line")
        reporter.stop()
        let written = lines.all
        #expect(written.count >= 2, "\(written)")
        #expect(written.allSatisfy { $0.hasPrefix("batch:  1/\(tree.files.count) files") }, "\(written)")
        #expect(written.last?.contains("ETA") == false)
    }

    @Test func listOfPathsOnStandardInput() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let lines = LineFeed(tree.reports.map { tree.folder + "/" + $0 } + ["", tree.folder + "/notes/readme.txt"])
        var configuration = BatchFixture.configuration(["-"], into: fixture.root + "/out")
        configuration.standardInputLines = { lines.next() }
        let summary = try BatchRunner(configuration: configuration, service: try BatchFixture.service()).run()
        #expect(summary.counts.written == tree.reports.count)
        #expect(summary.counts.skippedNonReports == 1)
        // A listed file keeps its whole (sanitized) path.
        let expected = Set(tree.reports.map { OutputPaths.sanitize(tree.folder + "/" + $0) ?? "" })
        #expect(Set(BatchFixture.files(in: fixture.root + "/out").keys) == expected)
    }

    @Test func jsonFormatRenamesAndRendersJSON() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let service = try BatchFixture.service()
        var configuration = BatchFixture.configuration([tree.folder], into: fixture.root + "/out")
        configuration.format = .json
        _ = try BatchRunner(configuration: configuration, service: service).run()
        let written = BatchFixture.files(in: fixture.root + "/out")
        #expect(written.count == tree.reports.count)
        for rel in tree.reports {
            let name = OutputPaths.splitExtension(rel).stem + ".json"
            let expected = try service.process(try #require(tree.files[rel]), format: .json).output
            #expect(written[name].map { $0 == expected } == true, "\(name)")
        }
    }
}

/// Lines handed out one at a time from any thread (stands in for stdin).
final class LineFeed: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String]

    init(_ lines: [String]) { self.lines = lines }

    func next() -> String? {
        lock.withLock { lines.isEmpty ? nil : lines.removeFirst() }
    }

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    var all: [String] { lock.withLock { lines } }
}

extension JSONDecoder {
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
