// How the archive reader decides where a tar ends. A tar has no directory: it ends with two
// zero blocks after its last member (POSIX.1 ustar's end-of-archive marker). A tar cut exactly at
// a member's end (an interrupted copy that stopped on a 512-byte boundary) reads like a whole tar
// with fewer members, so libarchive, GNU tar and Python's tarfile all end there in silence; the
// missing marker is the only sign of the members lost after the cut, and it ends with `.truncated`.
// These tars are built block by block, so each cut is exactly where the test says.

import Archives
import Foundation
import TestSupport
import Testing

struct TarEndTests {
    /// A ustar header block for a regular file of `size` bytes.
    static func header(_ name: String, size: Int) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int) {
            for (i, byte) in text.utf8.enumerated() { block[offset + i] = byte }
        }
        put(name, at: 0)
        put("0000644", at: 100)
        put("0001750", at: 108)
        put("0001750", at: 116)
        put(String(repeating: "0", count: 11 - String(size, radix: 8).count) + String(size, radix: 8), at: 124)
        put("14712345670", at: 136)
        put("        ", at: 148)
        put("0", at: 156)
        put("ustar", at: 257)
        put("00", at: 263)
        let sum = block.reduce(0) { $0 + Int($1) }
        put(String(repeating: "0", count: 6 - String(sum, radix: 8).count) + String(sum, radix: 8), at: 148)
        block[154] = 0
        block[155] = 0x20
        return block
    }

    /// Members of 700, 1024 and 300 bytes; where each member's blocks end, and the whole tar
    /// (the two zero blocks, then zeros to a 10,240-byte record, as tar(1) writes it).
    static let members: [(name: String, data: [UInt8])] = [
        ("a.crash", ZipEndTests.text(1, 700)), ("b.crash", ZipEndTests.text(2, 1024)),
        ("c.crash", ZipEndTests.text(3, 300)),
    ]

    static func build() -> (bytes: [UInt8], ends: [Int]) {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for member in members {
            bytes += header(member.name, size: member.data.count) + member.data
            bytes += [UInt8](repeating: 0, count: (512 - member.data.count % 512) % 512)
            ends.append(bytes.count)
        }
        bytes += [UInt8](repeating: 0, count: 1024)
        bytes += [UInt8](repeating: 0, count: (10240 - bytes.count % 10240) % 10240)
        return (bytes, ends)
    }

    static func read(_ bytes: [UInt8], memberErrors: ArchiveReader.Policy.MemberErrors = .recoverable) throws
        -> [ZipEndTests.Outcome]
    {
        try ZipEndTests.read(bytes, named: "a.tar", memberErrors: memberErrors)
    }

    static func whole(_ count: Int) -> [ZipEndTests.Outcome] {
        members.prefix(count).map { .member($0.name, $0.data) }
    }

    @Test func aWholeTarIsReadToItsEnd() throws {
        let (bytes, ends) = Self.build()
        #expect(try Self.read(bytes) == Self.whole(3))
        // The end-of-archive marker is all that is needed: no record padding.
        #expect(try Self.read(Array(bytes.prefix(ends[2] + 1024))) == Self.whole(3))
        // One zero block of the two, as libarchive and GNU tar accept it.
        #expect(try Self.read(Array(bytes.prefix(ends[2] + 512))) == Self.whole(3))
    }

    @Test(arguments: [0, 1, 2])
    func aTarCutAtAMembersEndIsCutShort(after member: Int) throws {
        let (bytes, ends) = Self.build()
        let cut = Array(bytes.prefix(ends[member]))
        #expect(try Self.read(cut) == Self.whole(member + 1) + [.error(.truncated, fatal: true)])
        #expect(try Self.read(cut, memberErrors: .fatal) == Self.whole(member + 1) + [.error(.truncated, fatal: true)])
    }

    /// A tar cut inside a member's data: the member the cut falls in is damaged by the cut (its
    /// name known, so a batch run counts it), and then the tar is cut short after the members
    /// before it, as a zip cut inside a member is. A policy that makes damage fatal hears of the cut.
    @Test(arguments: [0, 1, 2], [1, 300, 511])
    func aTarCutInsideAMembersDataIsCutShort(member: Int, into data: Int) throws {
        let (bytes, ends) = Self.build()
        let dataStart = (member == 0 ? 0 : ends[member - 1]) + 512
        let cut = Array(bytes.prefix(dataStart + data))
        #expect(
            try Self.read(cut)
                == Self.whole(member) + [.error(.damagedData, fatal: false), .error(.truncated, fatal: true)])
        #expect(try Self.read(cut, memberErrors: .fatal) == Self.whole(member) + [.error(.truncated, fatal: true)])
    }

    /// A tar cut inside the header of a member after the first: the cut, after the whole members.
    @Test(arguments: [1, 2], [1, 100, 511])
    func aTarCutInsideAHeaderIsCutShort(member: Int, into header: Int) throws {
        let (bytes, ends) = Self.build()
        let cut = Array(bytes.prefix(ends[member - 1] + header))
        #expect(try Self.read(cut) == Self.whole(member) + [.error(.truncated, fatal: true)])
        #expect(try Self.read(cut, memberErrors: .fatal) == Self.whole(member) + [.error(.truncated, fatal: true)])
    }

    /// A damaged header in a whole tar is damage, not a cut, even when it is the last member's:
    /// the member is reported, never passed over in silence, and under the `.recoverable` policy
    /// every member after it is still read (libarchive passes over the damaged member's blocks).
    /// (A damaged first header is no tar libarchive recognizes: the archive cannot be opened.)
    @Test(arguments: [1, 2])
    func aDamagedHeaderIsReportedAndTheMembersAfterItRead(member: Int) throws {
        var (bytes, ends) = Self.build()
        bytes[ends[member - 1] + 148] ^= 0x01
        let after = Self.members.dropFirst(member + 1).map { ZipEndTests.Outcome.member($0.name, $0.data) }
        #expect(try Self.read(bytes) == Self.whole(member) + [.error(.damagedHeader, fatal: false)] + after)
        #expect(
            try Self.read(bytes, memberErrors: .fatal) == Self.whole(member) + [.error(.damagedHeader, fatal: true)])
    }

    /// A compressed tar cut short: the decompressor runs out of input inside a member, which is
    /// the cut as it is in a plain tar.
    @Test func aGzipTarCutInsideAMemberIsCutShort() throws {
        let contents = (0..<3).map { ZipEndTests.text(20 + $0, 200_000) }
        let path = NSTemporaryDirectory() + "tar-end-\(UUID().uuidString).tar.gz"
        defer { unlink(path) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        do {
            var writer = try ArchiveWriter(destination: path, fileDescriptor: descriptor)
            for (i, data) in contents.enumerated() { try writer.add(path: "m\(i).crash", bytes: data) }
            try writer.finish()
        }
        close(descriptor)
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let expectedWhole = contents.enumerated().map { ZipEndTests.Outcome.member("m\($0.offset).crash", $0.element) }
        #expect(try ZipEndTests.read(whole, named: "a.tar.gz") == expectedWhole)
        let outcomes = try ZipEndTests.read(Array(whole.prefix(whole.count * 7 / 10)), named: "a.tar.gz")
        let members = outcomes.filter { if case .member = $0 { true } else { false } }
        #expect(!members.isEmpty && members.count < 3)
        #expect(
            outcomes
                == Array(expectedWhole.prefix(members.count)) + [
                    .error(.damagedData, fatal: false), .error(.truncated, fatal: true),
                ])
    }

    @Test func theMessageSaysHowManyMembersWereRead() throws {
        let (bytes, ends) = Self.build()
        #expect(
            try ZipEndTests.endingError(Array(bytes.prefix(ends[1])), named: "a.tar")?.message
                == "the tar ends without its end-of-archive blocks: it was cut short (an interrupted download or copy?),"
                + " after 2 whole members; any after the cut are missing")
    }
}
