// `symbolicate batch` run as a process (the binary `swift build` puts beside the test bundle):
// each output equals what the single-report command `symbolicate -d SYMBOLS REPORT` prints,
// the summary JSON is written, and the exit codes are 0 (completed, with unparsable reports
// and non-reports among the inputs), 64 (usage) and 1 (failure). Skipped when the binary or
// the Samples are absent.

import Foundation
import TestSupport
import Testing

@testable import Batch

enum BatchBinary {
    /// `symbolicate` in the build products folder that holds the running test bundle.
    static var path: String? { Repository.executable }

    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
    }

    static func run(_ arguments: [String]) throws -> Result {
        guard let path else { throw FixtureError("no symbolicate binary") }
        let result = try ProcessRunner.run(path, arguments)
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderrText)
    }
}

@Suite(
    .tags(.slow),
    .enabled(if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent (run Samples/generate.sh)"),
    .needsExecutable)
struct BatchCommandTests {
    @Test func outputsEqualTheSingleReportCommand() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let output = fixture.root + "/out"
        let summaryPath = fixture.root + "/summary.json"
        let batch = try BatchBinary.run([
            "batch", "--no-store", "-d", BatchFixture.symbolsFolder, "-j", "2", "-o", output, "--summary", summaryPath,
            "--progress", "none", tree.folder,
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stderr.contains("Batch summary"))
        let written = BatchFixture.files(in: output)
        #expect(Set(written.keys) == Set(tree.reports))
        for rel in tree.reports {
            let single = try BatchBinary.run(["--no-store", "-d", BatchFixture.symbolsFolder, tree.folder + "/" + rel])
            #expect(single.status == 0, "\(single.stderr)")
            #expect(
                written[rel].map { $0 == single.stdout } == true, "batch and single-report outputs differ for \(rel)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: summaryPath))
        let summary = try JSONDecoder.snakeCase.decode(BatchSummary.self, from: data)
        #expect(summary.counts.written == tree.reports.count)
        #expect(summary.counts.unparsable == tree.unparsable.count)
        #expect(summary.counts.skippedNonReports == tree.nonReports.count)
    }

    @Test func reportListHasALinePerInputFile() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let list = fixture.root + "/list.jsonl"
        let batch = try BatchBinary.run([
            "batch", "--no-store", "-d", BatchFixture.symbolsFolder, "-o", fixture.root + "/out", "--report-list", list,
            "--progress", "none", tree.folder,
        ])
        #expect(batch.status == 0, "\(batch.stderr)")
        let lines = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            Set(objects.compactMap { $0["path"] as? String }) == Set(tree.files.keys.map { tree.folder + "/" + $0 }))
        #expect(objects.filter { $0["status"] as? String == "skipped" }.count == tree.nonReports.count)
        #expect(objects.filter { $0["status"] as? String == "unparsable" }.count == tree.unparsable.count)
        #expect(
            objects.allSatisfy {
                Set($0.keys) == ["path", "kind", "status", "frames_symbolicated", "frames_total", "group", "reason"]
            })
        #expect(
            String(decoding: try BatchBinary.run(["batch", "--help"]).stdout, as: UTF8.self).contains(
                "--report-list FILE.jsonl"))
    }

    @Test func exitCodes() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let out = fixture.root + "/out"
        let quiet = ["--no-store", "--progress", "none"]
        #expect(try BatchBinary.run(["batch"] + quiet + [tree.folder]).status == 64)  // no -o
        #expect(try BatchBinary.run(["batch"] + quiet + ["-o", out]).status == 64)  // no INPUT
        #expect(try BatchBinary.run(["batch"] + quiet + ["-o", out, "--shard", "3/2", tree.folder]).status == 64)
        #expect(try BatchBinary.run(["batch"] + quiet + ["--output-archive", out + ".rar", tree.folder]).status == 64)
        #expect(
            try BatchBinary.run(["batch"] + quiet + ["--output-archive", out + ".zip", "--resume", tree.folder]).status
                == 64)
        #expect(try BatchBinary.run(["batch"] + quiet + ["-o", out, fixture.root + "/missing"]).status == 1)
        // A file that is not an archive, named like one: the input cannot be read, the run fails.
        try BatchFixture.write(Array("not a zip".utf8), to: fixture.root + "/fake.zip")
        let fake = try BatchBinary.run(["batch"] + quiet + ["-o", out, fixture.root + "/fake.zip"])
        #expect(fake.status == 1)
        #expect(fake.stderr.contains("fake.zip"))
        // Outputs cannot be written: a file stands where the output folder should be.
        try BatchFixture.write(Array("x".utf8), to: fixture.root + "/blocked")
        #expect(
            try BatchBinary.run(["batch"] + quiet + ["-o", fixture.root + "/blocked/out", tree.folder]).status == 1)
    }
}
