// End-to-end batch runs over archives and folders built from the Samples: outputs mirror the
// inputs' relative paths and equal what SymbolicationService.process renders for each report;
// non-reports are skipped, unparsable reports counted with their reason, damaged archive members
// counted without stopping the run (DamagedZipNameTests); shards cover every report exactly once; resume skips
// complete outputs; an output archive holds the same files as an output folder.

import Foundation
import Symbolication
import Testing

@testable import Batch

@Suite(
    .enabled(if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent (run Samples/generate.sh)"))
struct BatchRunTests {
    /// Checks that `output` holds exactly the tree's reports, each equal to the single-report output.
    func expectMirrored(_ tree: BatchFixture.Tree, output: String, service: SymbolicationService) throws {
        let written = BatchFixture.files(in: output)
        #expect(Set(written.keys) == Set(tree.reports))
        for rel in tree.reports {
            let bytes = try #require(tree.files[rel])
            let expected = try service.process(bytes, format: nil).output
            #expect(
                written[rel].map { $0 == expected } == true, "output of \(rel) differs from the single-report output")
        }
    }

    func expectCounts(_ summary: BatchSummary, _ tree: BatchFixture.Tree) {
        #expect(summary.counts.files == tree.files.count)
        #expect(summary.counts.reportsRead == tree.reports.count + tree.unparsable.count)
        #expect(summary.counts.written == tree.reports.count)
        #expect(summary.counts.skippedNonReports == tree.nonReports.count)
        #expect(summary.counts.unparsable == tree.unparsable.count)
        #expect(
            summary.counts.fullySymbolicated + summary.counts.partiallySymbolicated + summary.counts.notSymbolicated
                == tree.reports.count)
        #expect(summary.inputErrors.isEmpty)
    }

    @Test(.enabled(if: BatchFixture.toolExists("zip"), "the zip command is not installed"))
    func zipArchive() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let zip = try fixture.zip(tree)
        let service = try BatchFixture.service()
        let output = fixture.root + "/out"
        let summary = try BatchRunner(configuration: BatchFixture.configuration([zip], into: output), service: service)
            .run()
        try expectMirrored(tree, output: output, service: service)
        expectCounts(summary, tree)
        let reason = try #require(summary.unparsable.first)
        #expect(reason.example.hasSuffix("set0/broken.ips"))
        #expect(reason.reason.contains("ips"), "reason: \(reason.reason)")
        // The same report under two names is symbolicated twice, identically.
        let twice = BatchFixture.sampleReportNames[0]
        let copies = BatchFixture.files(in: output).filter { $0.key.hasSuffix(twice) }
        #expect(copies.count == 2 && Set(copies.values).count == 1)
    }

    @Test func tarGzipArchiveAndNestedFolder() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let service = try BatchFixture.service()
        let tgz = try fixture.tarGzip(tree)
        let fromArchive = try BatchRunner(
            configuration: BatchFixture.configuration([tgz], into: fixture.root + "/out-tgz"), service: service
        ).run()
        try expectMirrored(tree, output: fixture.root + "/out-tgz", service: service)
        expectCounts(fromArchive, tree)
        let fromFolder = try BatchRunner(
            configuration: BatchFixture.configuration([tree.folder], into: fixture.root + "/out-dir"), service: service
        ).run()
        try expectMirrored(tree, output: fixture.root + "/out-dir", service: service)
        expectCounts(fromFolder, tree)
        #expect(fromFolder.counts == fromArchive.counts)
        #expect(fromFolder.crashGroups.map(\.count) == fromArchive.crashGroups.map(\.count))
    }

    @Test(.enabled(if: BatchFixture.toolExists("zip"), "the zip command is not installed"))
    func damagedZipMemberDoesNotStopTheRun() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        var tree = try fixture.mixedTree()
        // A member whose compressed data is damaged after the archive is made.
        let victim = "set0/zz-damaged.crash"
        let crash = try BatchFixture.sampleCrash()
        try BatchFixture.write(crash, to: tree.folder + "/" + victim)
        let zip = try fixture.zip(tree)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
        let name = Array(victim.utf8)
        let header = try #require(Self.find(name, in: bytes))
        let dataStart = header + name.count + 64
        for i in dataStart..<(dataStart + 256) { bytes[i] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: zip))

        let service = try BatchFixture.service()
        let output = fixture.root + "/out"
        let summary = try BatchRunner(configuration: BatchFixture.configuration([zip], into: output), service: service)
            .run()
        #expect(summary.counts.unreadable == 1, "\(summary.table())")
        #expect(summary.unreadable.first?.example.hasSuffix(victim) == true)
        #expect(summary.inputErrors.isEmpty, "\(summary.inputErrors)")
        try expectMirrored(tree, output: output, service: service)
        tree.files[victim] = nil
        expectCountsIgnoringUnreadable(summary, tree)
    }

    /// Members with UTF-8 names (general-purpose bit 11, as Python's zipfile writes them) keep
    /// their names, and a member whose name is too long for a file is skipped with the reason
    /// while the rest of the run goes on.
    @Test(.enabled(if: BatchFixture.toolExists("python3"), "python3 (which writes the zip) is not installed"))
    func utf8AndOverlongMemberNames() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let sample = try #require(BatchFixture.sampleReportNames.first { $0.hasSuffix(".crash") })
        let long = String(repeating: "x", count: 294) + ".crash"
        let zip = fixture.root + "/names.zip"
        try BatchFixture.pythonZip(
            zip, names: ["café.crash", "日本/レポート.crash", long, "plain.crash"],
            contents: BatchFixture.reportsFolder + "/" + sample)

        let output = fixture.root + "/out"
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([zip], into: output), service: try BatchFixture.service()
        ).run()
        #expect(Set(BatchFixture.files(in: output).keys) == ["café.crash", "日本/レポート.crash", "plain.crash"])
        #expect(summary.counts.written == 3)
        #expect(summary.inputErrors.isEmpty, "\(summary.inputErrors)")
        #expect(summary.skippedFiles.map(\.path) == [zip + "/" + long])
        #expect(summary.skippedFiles.first?.reason.contains("name too long") == true)
    }

    /// A name whose slash is followed by a combining mark (one character with it) is cut at that
    /// slash all the same: `..` before it is dropped, and every output stays in the output folder.
    @Test(.enabled(if: BatchFixture.toolExists("python3"), "python3 (which writes the zip) is not installed"))
    func memberNamesWithACombiningMarkAfterASlash() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let sample = try #require(BatchFixture.sampleReportNames.first { $0.hasSuffix(".crash") })
        let zip = fixture.root + "/marks.zip"
        try BatchFixture.pythonZip(
            zip, names: ["../\u{301}up.crash", "a/\u{301}/../b.crash"],
            contents: BatchFixture.reportsFolder + "/" + sample)
        let before = try FileManager.default.contentsOfDirectory(atPath: fixture.root).sorted()

        let output = fixture.root + "/out"
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([zip], into: output), service: try BatchFixture.service()
        ).run()
        #expect(Set(BatchFixture.files(in: output).keys) == ["\u{301}up.crash", "a/\u{301}/b.crash"])
        #expect(summary.counts.written == 2)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: fixture.root).sorted() == (before + ["out"]).sorted())
    }

    func expectCountsIgnoringUnreadable(_ summary: BatchSummary, _ tree: BatchFixture.Tree) {
        #expect(summary.counts.files == tree.files.count + summary.counts.unreadable)
        #expect(summary.counts.written == tree.reports.count)
    }

    @Test(.enabled(if: BatchFixture.toolExists("zip"), "the zip command is not installed"))
    func shardsCoverEveryReportExactlyOnce() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let zip = try fixture.zip(tree)
        let service = try BatchFixture.service()
        let shardCount = 3
        var seen: [String: Int] = [:]
        var files = 0
        for index in 0..<shardCount {
            var configuration = BatchFixture.configuration([zip], into: fixture.root + "/out")
            configuration.shard = try Shard(index: index, count: shardCount)
            let summary = try BatchRunner(configuration: configuration, service: service).run()
            files += summary.counts.files
            #expect(summary.shard == "\(index)/\(shardCount)")
            // Each shard writes into the same folder; count what each one added.
            let now = BatchFixture.files(in: fixture.root + "/out")
            for rel in now.keys where seen[rel] == nil { seen[rel] = index }
            #expect(now.count == seen.count)
            #expect(summary.counts.written == seen.values.filter { $0 == index }.count)
        }
        #expect(files == tree.files.count)
        #expect(Set(seen.keys) == Set(tree.reports))
        #expect(Set(seen.values).count > 1, "all reports fell into one shard: \(seen)")
        try expectMirrored(tree, output: fixture.root + "/out", service: service)
    }

    @Test func resumeSkipsCompleteOutputs() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let service = try BatchFixture.service()
        let output = fixture.root + "/out"
        _ = try BatchRunner(configuration: BatchFixture.configuration([tree.folder], into: output), service: service)
            .run()
        let removed = tree.reports[0]
        let kept = tree.reports[1]
        try FileManager.default.removeItem(atPath: output + "/" + removed)
        let marker = Array("left alone by --resume\n".utf8)
        try BatchFixture.write(marker, to: output + "/" + kept)

        var configuration = BatchFixture.configuration([tree.folder], into: output)
        configuration.resume = true
        let summary = try BatchRunner(configuration: configuration, service: service).run()
        #expect(summary.counts.alreadyDone == tree.reports.count - 1)
        #expect(summary.counts.written == 1)
        let files = BatchFixture.files(in: output)
        #expect(files[kept] == marker)
        let expected = try service.process(try #require(tree.files[removed]), format: nil).output
        #expect(files[removed].map { $0 == expected } == true)
        #expect(files.keys.allSatisfy { !$0.contains(".partial-") })
    }

    @Test func outputArchiveHoldsTheSameFiles() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let service = try BatchFixture.service()
        var configuration = BatchFixture.configuration([tree.folder], into: "")
        configuration.destination = .archive(fixture.root + "/symbolicated.tar.gz")
        let summary = try BatchRunner(configuration: configuration, service: service).run()
        #expect(summary.counts.written == tree.reports.count)
        let unpacked = fixture.root + "/unpacked"
        try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
        try BatchFixture.shell(["tar", "xzf", fixture.root + "/symbolicated.tar.gz"], in: unpacked)
        try expectMirrored(tree, output: unpacked, service: service)
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/symbolicated.tar.gz.partial-\(getpid())"))
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }
}
