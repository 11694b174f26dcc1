// A .tar.gz is read through libarchive, which inflates its gzip members without checking the
// CRC-32 and length each one ends with: damaged compressed data can inflate without an error into
// members with damaged bytes. The reader checks them when it reaches the archive's end, and a
// mismatch ends the archive with a fatal `.damagedData` error after its members.

import Archives
import Compression
import Foundation
import TestSupport
import Testing

struct GzipChecksumTests {
    /// The tar of TarEndTests, gzip-compressed as one member.
    static func tarGzip() throws -> [UInt8] {
        try #require(Zlib.deflate(TarEndTests.build().bytes, framing: .gzip))
    }

    static func read(_ bytes: [UInt8], memberErrors: ArchiveReader.Policy.MemberErrors = .recoverable) throws
        -> [ZipEndTests.Outcome]
    {
        try ZipEndTests.read(bytes, named: "a.tar.gz", memberErrors: memberErrors)
    }

    @Test func aSoundTarGzipIsReadWithoutError() throws {
        #expect(try Self.read(try Self.tarGzip()) == TarEndTests.whole(3))
    }

    /// The trailer's CRC-32 (the 8th to 5th last bytes) or length (the last 4) changed by one bit.
    @Test(arguments: [8, 5, 4, 1])
    func aTrailerThatDoesNotMatchTheDataIsDamage(fromTheEnd offset: Int) throws {
        var bytes = try Self.tarGzip()
        bytes[bytes.count - offset] ^= 0x01
        let damaged: ZipEndTests.Outcome = .error(.damagedData, fatal: true)
        #expect(try Self.read(bytes) == TarEndTests.whole(3) + [damaged])
        #expect(try Self.read(bytes, memberErrors: .fatal) == TarEndTests.whole(3) + [damaged])
    }

    @Test func theMessageSaysWhatIsDamaged() throws {
        var bytes = try Self.tarGzip()
        bytes[bytes.count - 8] ^= 0x01
        #expect(
            try ZipEndTests.endingError(bytes, named: "a.tar.gz")?.message
                == "the archive's gzip data is damaged (incorrect data check): the members read from it may hold"
                + " damaged bytes")
    }

    /// Several gzip members one after another (`cat a.gz b.gz`, or pigz) are one stream, each
    /// member checked against its own trailer; zeros after the last member are ignored, as
    /// libarchive ignores them.
    @Test func concatenatedMembersAndTrailingZerosAreSound() throws {
        let tar = TarEndTests.build().bytes
        let half = tar.count / 2
        let first = try #require(Zlib.deflate(Array(tar[..<half]), framing: .gzip))
        var second = try #require(Zlib.deflate(Array(tar[half...]), framing: .gzip))
        #expect(try Self.read(first + second + [UInt8](repeating: 0, count: 700)) == TarEndTests.whole(3))
        second[second.count - 8] ^= 0x01
        #expect(try Self.read(first + second) == TarEndTests.whole(3) + [.error(.damagedData, fatal: true)])
    }
}

struct GzipFileProblemTests {
    static func problem(_ bytes: [UInt8]) throws -> String? {
        let path = NSTemporaryDirectory() + "gzip-problem-\(UUID().uuidString).gz"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        return Zlib.gzipFileProblem(atPath: path)
    }

    /// Large enough to span many 64 KB reads, and members whose ends fall anywhere in a read.
    @Test func membersAcrossReadsAreChecked() throws {
        var generator = SplitMix64(seed: 9)
        let data = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: generator.next() % 40) }
        let one = try #require(Zlib.deflate(data, framing: .gzip))
        #expect(try Self.problem(one) == nil)
        #expect(try Self.problem(one + one + one) == nil)
        var damaged = one
        damaged[damaged.count - 1] ^= 0x80
        #expect(try Self.problem(one + damaged) == "incorrect length check")
        #expect(try Self.problem(Array(one.dropLast(3))) == "the gzip data ends before its end")
        #expect(try Self.problem([0x1F, 0x8B]) == "the gzip data ends before its end")
        #expect(try Self.problem(Array("not gzip".utf8)) == "incorrect header check")
    }
}
