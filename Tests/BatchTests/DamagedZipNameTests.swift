// Batch runs over zips whose local headers disagree with their central directory: every member
// that cannot be read is named by its central-directory name with a damaged-header reason (not
// by the garbage a broken local header yields), and a member skipped for its name is counted
// once, as skipped.

import Foundation
import Testing

@testable import Batch

@Suite(
    .enabled(if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent (run Samples/generate.sh)"))
struct DamagedZipNameTests {
    /// A 200-member zip in which ten local headers claim a name longer than it is, by `extra`
    /// bytes, so that a reader trusting them takes the extra field and compressed data for the name.
    func damagedZip(_ fixture: BatchFixture, extra: Int) throws -> (zip: String, names: [String], damaged: [String]) {
        let crash = try BatchFixture.sampleCrash()
        let folder = fixture.root + "/many"
        let names = (0..<200).map { String(format: "r%03d.crash", $0) }
        for name in names { try BatchFixture.write(crash, to: folder + "/" + name) }
        let zip = fixture.root + "/many.zip"
        try BatchFixture.shell(["zip", "-q", "-r", zip, "."], in: folder)

        // Local file headers (APPNOTE 4.3.7): signature PK\3\4, name length at +26, name at +30.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
        var headers: [Int] = []
        var at = 0
        while let found = BatchRunTests.find([0x50, 0x4B, 0x03, 0x04], in: Array(bytes[at...])) {
            headers.append(at + found)
            at += found + 4
        }
        #expect(headers.count == 200)
        var damaged: [String] = []
        for (i, header) in headers.enumerated() where i % 20 == 7 {
            let length = Int(bytes[header + 26]) | Int(bytes[header + 27]) << 8
            damaged.append(String(decoding: bytes[(header + 30)..<(header + 30 + length)], as: UTF8.self))
            bytes[header + 26] = UInt8(truncatingIfNeeded: length + extra)
            bytes[header + 27] = UInt8(truncatingIfNeeded: (length + extra) >> 8)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: zip))
        return (zip, names, damaged)
    }

    /// A zip cut short where a member begins reads whole up to the cut; only the missing central
    /// directory says that members may be lost, and the run names the archive as not read to the end.
    @Test(.enabled(if: BatchFixture.toolExists("zip"), "the zip command is not installed"))
    func aZipWithoutItsCentralDirectoryIsAnInputError() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let (zip, _, _) = try damagedZip(fixture, extra: 0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: zip))
        let ran = try BatchRunner(
            configuration: BatchFixture.configuration([zip], into: fixture.root + "/whole"),
            service: try BatchFixture.service()
        ).run()
        #expect(ran.inputErrors.isEmpty, "\(ran.inputErrors)")
        let last = try #require(whole.range(of: Data([0x50, 0x4B, 0x03, 0x04]), options: .backwards))
        let cut = fixture.root + "/cut.zip"
        try whole.prefix(upTo: last.lowerBound).write(to: URL(fileURLWithPath: cut))
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([cut], into: fixture.root + "/out"),
            service: try BatchFixture.service()
        ).run()
        #expect(summary.counts.written == 199, "\(summary.table())")
        #expect(
            summary.inputErrors.count == 1 && summary.inputErrors[0].contains("central directory"),
            "\(summary.inputErrors)")
    }

    /// An archive's links (a tar's symbolic and hard links) are not followed: each is counted and
    /// listed as skipped with the reason, not passed over without a word.
    @Test(.enabled(if: BatchFixture.toolExists("tar"), "the tar command is not installed"))
    func linkMembersAreSkippedWithAReason() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let crash = try BatchFixture.sampleCrash()
        let folder = fixture.root + "/t"
        try BatchFixture.write(crash, to: folder + "/r.crash")
        try FileManager.default.createSymbolicLink(atPath: folder + "/soft.crash", withDestinationPath: "r.crash")
        try FileManager.default.linkItem(atPath: folder + "/r.crash", toPath: folder + "/hard.crash")
        let tar = fixture.root + "/links.tar"
        try BatchFixture.shell(["tar", "-cf", tar, "r.crash", "soft.crash", "hard.crash"], in: folder)
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([tar], into: fixture.root + "/out"),
            service: try BatchFixture.service()
        ).run()
        #expect(summary.counts.written == 1)
        #expect(summary.counts.files == 3, "\(summary.table())")
        #expect(Set(summary.skippedFiles.map(\.path)) == [tar + "/soft.crash", tar + "/hard.crash"])
        #expect(summary.counts.skippedLinks == 2 && summary.counts.skippedNames == nil, "\(summary.table())")
    }

    /// A damaged member whose name is known belongs to one shard, as a readable one does: the
    /// shards together count it once, as one run does.
    @Test(.enabled(if: BatchFixture.toolExists("zip"), "the zip command is not installed"))
    func aDamagedMemberIsCountedByItsShardOnly() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let (zip, _, _) = try damagedZip(fixture, extra: 9)
        var files = 0
        var unreadable = 0
        for index in 0..<2 {
            var configuration = BatchFixture.configuration([zip], into: fixture.root + "/out")
            configuration.shard = try Shard(index: index, count: 2)
            let part = try BatchRunner(configuration: configuration, service: try BatchFixture.service()).run()
            files += part.counts.files
            unreadable += part.counts.unreadable
        }
        #expect(files == 200)
        #expect(unreadable == 10)
    }

    @Test(
        .enabled(if: BatchFixture.toolExists("zip"), "the zip command is not installed"),
        arguments: [-4, 9, 300, 1000])
    func damagedLocalHeadersAreNamedByTheCentralDirectory(extra: Int) throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let (zip, names, damaged) = try damagedZip(fixture, extra: extra)
        let output = fixture.root + "/out"
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([zip], into: output), service: try BatchFixture.service()
        ).run()
        #expect(summary.inputErrors.isEmpty, "\(summary.inputErrors)")
        #expect(summary.counts.files == 200)
        #expect(summary.counts.unreadable == 10, "\(summary.table())")
        #expect(summary.counts.written == 190)
        #expect(Set(BatchFixture.files(in: output).keys) == Set(names).subtracting(damaged))
        #expect(summary.skippedFiles.map(\.path).sorted() == damaged.map { zip + "/" + $0 }.sorted())
        for file in summary.skippedFiles {
            #expect(file.reason.contains("damaged header"), "\(file)")
        }
    }

    /// A member whose name is too long for an output file is skipped with that reason, once:
    /// counted and listed as skipped, not also as unreadable.
    @Test(.enabled(if: BatchFixture.toolExists("python3"), "python3 (which writes the zip) is not installed"))
    func overlongNameIsCountedOnce() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let sample = try #require(BatchFixture.sampleReportNames.first { $0.hasSuffix(".crash") })
        let long = String(repeating: "y", count: 294) + ".crash"
        let zip = fixture.root + "/names.zip"
        try BatchFixture.pythonZip(
            zip, names: ["a.crash", long, "b.crash"], contents: BatchFixture.reportsFolder + "/" + sample)
        let summary = try BatchRunner(
            configuration: BatchFixture.configuration([zip], into: fixture.root + "/out"),
            service: try BatchFixture.service()
        ).run()
        #expect(summary.counts.files == 3)
        #expect(summary.counts.written == 2)
        #expect(summary.skippedFiles.map(\.path) == [zip + "/" + long])
        #expect(summary.skippedFiles.first?.reason.contains("name too long") == true)
        #expect(summary.counts.skippedNames == 1, "\(summary.table())")
        #expect(summary.counts.unreadable == 0 && summary.unreadable.isEmpty, "\(summary.table())")
    }
}
