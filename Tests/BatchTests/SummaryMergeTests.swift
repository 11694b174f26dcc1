// `batch --merge-summaries`: the summaries of the shards of one run, joined, are the summary of
// one unsharded run over the same inputs, examples included; hand-built summaries check the rules one at a time: counts added, missing
// images re-ranked across shards, groups merged by id with per-version counts summed, skipped
// files joined; a shard given twice and a file that is not a summary are refused.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import Batch

@Suite struct SummaryMergeTests {
    @Test(
        .enabled(
            if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent (run Samples/generate.sh)"))
    func shardsJoinedAreOneRun() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let tree = try fixture.mixedTree()
        let service = try BatchFixture.service()
        let whole = try BatchRunner(
            configuration: BatchFixture.configuration([tree.folder], into: fixture.root + "/all"), service: service
        ).run()
        var parts: [BatchSummary] = []
        for index in 0..<3 {
            var configuration = BatchFixture.configuration([tree.folder], into: fixture.root + "/shards")
            configuration.shard = try Shard(index: index, count: 3)
            let part = try BatchRunner(configuration: configuration, service: service).run()
            // Through the JSON files the shards write.
            parts.append(try BatchSummary.decode(try part.json(), source: "shard-\(index).json"))
        }
        #expect(parts.allSatisfy { $0.counts.reportsRead < whole.counts.reportsRead }, "a shard took every report")
        let merged = try BatchSummary.merged(parts, sources: ["0", "1", "2"])
        #expect(merged.counts == whole.counts)
        #expect(
            merged.unparsable.map { [$0.reason, "\($0.count)"] } == whole.unparsable.map { [$0.reason, "\($0.count)"] })
        #expect(merged.skippedFiles == whole.skippedFiles)
        #expect(merged.unparsable == whole.unparsable)
        #expect(merged.unreadable == whole.unreadable)
        #expect(merged.missingImages == whole.missingImages)
        func group(_ g: BatchSummary.CrashGroup) -> [String] {
            [g.id, g.signature, g.exceptionType, "\(g.count)", g.example]
                + g.appVersions.map { "\($0.version)=\($0.count)" }
        }
        #expect(merged.crashGroups.map(group) == whole.crashGroups.map(group))
        #expect(merged.shard == "0/3,1/3,2/3")
        #expect(merged.jobs == 6)
    }

    static func summary(
        shard: String, files: Int, missing: [(String, Int, String)], groups: [(String, [(String, Int)])],
        skipped: [String]
    ) -> BatchSummary {
        var s = BatchSummary()
        s.shard = shard
        s.counts.files = files
        s.counts.reportsRead = files - skipped.count
        s.counts.skippedNonReports = skipped.count
        s.elapsedSeconds = Double(files)
        s.missingImages = missing.map { uuid, reports, version in
            BatchSummary.MissingImage(
                uuid: uuid, name: "Lib-\(uuid.prefix(1))", archs: ["arm64"], appVersions: [version], reports: reports,
                example: "\(shard)/\(uuid)")
        }
        s.crashGroups = groups.map { id, versions in
            BatchSummary.CrashGroup(
                id: id, signature: "sig \(id)", exceptionType: "EXC_CRASH", app: "App", frames: ["f"],
                count: versions.reduce(0) { $0 + $1.1 }, example: "\(shard)/\(id)",
                appVersions: versions.map { BatchSummary.VersionCount(version: $0.0, count: $0.1) })
        }
        s.skippedFiles = skipped.map { BatchSummary.SkippedFile(path: $0, reason: "not a crash report") }
        return s
    }

    @Test func eachRuleOnItsOwn() throws {
        let a = Self.summary(
            shard: "0/2", files: 10, missing: [("AAAA", 1, "1.0"), ("BBBB", 3, "1.0")],
            groups: [("g1", [("1.0", 2)]), ("g2", [("1.0", 5)])], skipped: ["z.txt"])
        let b = Self.summary(
            shard: "1/2", files: 7, missing: [("AAAA", 4, "2.0")],
            groups: [("g1", [("1.0", 1), ("2.0", 4)])], skipped: ["a.txt", "m.bin"])
        let merged = try BatchSummary.merged([a, b], sources: ["a.json", "b.json"])
        #expect(merged.counts.files == 17)
        #expect(merged.counts.skippedNonReports == 3)
        #expect(merged.elapsedSeconds == 10)
        // AAAA: 1 + 4 reports overtakes BBBB's 3; its versions are joined.
        #expect(merged.missingImages.map(\.uuid) == ["AAAA", "BBBB"])
        #expect(merged.missingImages.first?.reports == 5)
        #expect(merged.missingImages.first?.appVersions == ["1.0", "2.0"])
        #expect(merged.missingImages.first?.example == "0/2/AAAA")
        // g1: 2 + 5 reports overtakes g2's 5; per-version counts summed, most first.
        #expect(merged.crashGroups.map(\.id) == ["g1", "g2"])
        #expect(merged.crashGroups.first?.count == 7)
        #expect(
            merged.crashGroups.first?.appVersions
                == [.init(version: "1.0", count: 3), .init(version: "2.0", count: 4)].reversed())
        #expect(merged.skippedFiles.map(\.path) == ["a.txt", "m.bin", "z.txt"])
    }

    /// Where the shards disagree on an example, a missing image's name or a group's signature,
    /// the merge keeps what one run keeps (the smallest), whatever the order of the parts.
    @Test func whatOneRunKeepsWhateverTheOrder() throws {
        var a = Self.summary(
            shard: "0/2", files: 3, missing: [("AAAA", 1, "1.0")], groups: [("g1", [("1.0", 1)])], skipped: [])
        var b = Self.summary(
            shard: "1/2", files: 3, missing: [("AAAA", 1, "1.0")], groups: [("g1", [("1.0", 1)])], skipped: [])
        a.missingImages[0].name = "Zed"
        a.crashGroups[0].signature = "EXC_CRASH (SIGABRT)  f"
        a.crashGroups[0].exceptionType = "EXC_CRASH (SIGABRT)"
        a.unreadable = [BatchSummary.Reason(reason: "damaged", count: 1, example: "z.zip/1")]
        b.missingImages[0].example = "0-first/AAAA"
        b.missingImages[0].name = "Alpha"
        b.crashGroups[0].signature = "EXC_BAD_ACCESS (SIGSEGV)  f"
        b.crashGroups[0].exceptionType = "EXC_BAD_ACCESS (SIGSEGV)"
        b.crashGroups[0].example = "0-first/g1"
        b.unreadable = [BatchSummary.Reason(reason: "damaged", count: 2, example: "a.zip/1")]
        for parts in [[a, b], [b, a]] {
            let merged = try BatchSummary.merged(parts, sources: ["x.json", "y.json"])
            #expect(merged.missingImages.first?.example == "0-first/AAAA")
            #expect(merged.missingImages.first?.name == "Alpha")
            #expect(merged.crashGroups.first?.signature == "EXC_BAD_ACCESS (SIGSEGV)  f")
            #expect(merged.crashGroups.first?.exceptionType == "EXC_BAD_ACCESS (SIGSEGV)")
            #expect(merged.crashGroups.first?.example == "0-first/g1")
            #expect(merged.unreadable == [BatchSummary.Reason(reason: "damaged", count: 3, example: "a.zip/1")])
        }
    }

    /// Every shard reads every archive, so each reports a zip that was cut short: the merge
    /// reports it once, as one run does.
    @Test(
        .enabled(
            if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent (run Samples/generate.sh)"))
    func anInputErrorEveryShardSawIsReportedOnce() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let crash = try BatchFixture.sampleCrash()
        var zip = ZipFixture()
        for i in 0..<4 { zip.add("r\(i).crash", contents: crash) }
        let cut = fixture.root + "/cut.zip"
        try BatchFixture.write(Array(zip.bytes[..<zip.placements[3].header]), to: cut)
        let service = try BatchFixture.service()
        let whole = try BatchRunner(
            configuration: BatchFixture.configuration([cut], into: fixture.root + "/all"), service: service
        ).run()
        var parts: [BatchSummary] = []
        for index in 0..<2 {
            var configuration = BatchFixture.configuration([cut], into: fixture.root + "/shards")
            configuration.shard = try Shard(index: index, count: 2)
            parts.append(try BatchRunner(configuration: configuration, service: service).run())
        }
        #expect(whole.inputErrors.count == 1, "\(whole.inputErrors)")
        #expect(parts.allSatisfy { $0.inputErrors == whole.inputErrors }, "\(parts.map(\.inputErrors))")
        #expect(try BatchSummary.merged(parts, sources: ["0", "1"]).inputErrors == whole.inputErrors)
    }

    @Test func aShardGivenTwiceIsRefused() throws {
        let a = Self.summary(shard: "0/2", files: 1, missing: [], groups: [], skipped: [])
        #expect(throws: SymbolicateError.self) { try BatchSummary.merged([a, a], sources: ["x.json", "y.json"]) }
        var unsharded = a
        unsharded.shard = nil
        #expect(try BatchSummary.merged([unsharded, unsharded], sources: ["x", "y"]).counts.files == 2)
    }

    @Test func aFileThatIsNotASummaryIsNamed() throws {
        for bytes in [Array("not json".utf8), Array("{\"counts\": 3}".utf8), Array("[]".utf8)] {
            do {
                _ = try BatchSummary.decode(bytes, source: "pod-3.json")
                Issue.record("decoded \(String(decoding: bytes, as: UTF8.self))")
            } catch {
                #expect(error.code == .badInput)
                #expect(error.description.contains("pod-3.json"), "\(error.description)")
            }
        }
    }
}
