// How the archive reader decides where a zip ends. A zip's members are listed by its central
// directory, which the end of central directory record at the very end of the file locates; a
// zip cut short (an interrupted download or copy) has none, and must end with `.truncated` after
// the members before the cut, never with exit-0 silence about the members after it. These zips
// are built byte by byte (ZipFixture), so each cut and each patched field is exactly where the
// test says.

import Archives
import Foundation
import TestSupport
import Testing

struct ZipEndTests {
    /// What reading an archive to its end gave: each member's name and data, and each error.
    enum Outcome: Equatable, CustomStringConvertible {
        case member(String, [UInt8])
        case error(ArchiveError.Code, fatal: Bool)

        var description: String {
            switch self {
            case .member(let name, let data): "\(name) (\(data.count) bytes)"
            case .error(let code, let fatal): "\(code)\(fatal ? " (fatal)" : "")"
            }
        }
    }

    static func read(
        _ bytes: [UInt8], named name: String = "a.zip", memberErrors: ArchiveReader.Policy.MemberErrors = .recoverable,
        limit: Int = 100
    ) throws -> [Outcome] {
        let folder = NSTemporaryDirectory() + "zip-end-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader = try ArchiveReader(
            path: path, policy: .init(names: .sanitize, memberErrors: memberErrors, limits: .init()))
        var outcomes: [Outcome] = []
        while outcomes.count < limit {
            do {
                guard let entry = try reader.next() else { break }
                outcomes.append(.member(entry.storedName, try reader.readAll(limit: 1 << 20)))
            } catch {
                outcomes.append(.error(error.code, fatal: error.fatal))
                if error.fatal { break }
            }
        }
        return outcomes
    }

    /// The error that ends reading `bytes` (saved as `name`) to the end, under the recoverable
    /// policy; nil when none does.
    static func endingError(_ bytes: [UInt8], named name: String) throws -> ArchiveError? {
        let path = NSTemporaryDirectory() + "archive-end-\(UUID().uuidString)-" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let reader = try ArchiveReader(
            path: path, policy: .init(names: .sanitize, memberErrors: .recoverable, limits: .init()))
        do { while try reader.next() != nil {} } catch let e { return e }
        return nil
    }

    static func expect(
        _ bytes: [UInt8], _ expected: [Outcome], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let outcomes = try read(bytes)
        #expect(outcomes == expected, "read \(outcomes)", sourceLocation: sourceLocation)
    }

    static func text(_ seed: Int, _ count: Int) -> [UInt8] {
        var generator = SplitMix64(seed: UInt64(seed))
        return (0..<count).map { _ in UInt8(0x61 + generator.next() % 26) }
    }

    /// A stored inner zip ends with an end record of its own. When the outer zip is cut after it,
    /// that record is near the end of the file, but it is not the outer zip's: the members before
    /// the cut are read, the cut is reported, and the inner zip's members are not taken for the
    /// outer's.
    @Test(arguments: [ZipFixture.Method.stored, .deflated])
    func aCutAfterAStoredZipIsStillACut(method: ZipFixture.Method) throws {
        var inner = ZipFixture(zip64: false)
        inner.add("inner.txt", contents: Self.text(1, 300), method: method)
        let innerBytes = inner.bytes
        var outer = ZipFixture(zip64: false)
        let first = Self.text(2, 1000)
        outer.add("first.txt", contents: first, method: method)
        outer.add("older.zip", contents: innerBytes, method: .stored)
        outer.add("after.txt", contents: Self.text(3, 4000), method: .stored)
        outer.add("last.txt", contents: Self.text(4, 4000), method: method)
        let whole = outer.bytes
        try Self.expect(
            whole,
            [
                .member("first.txt", first), .member("older.zip", innerBytes),
                .member("after.txt", Self.text(3, 4000)), .member("last.txt", Self.text(4, 4000)),
            ])
        let cut = Array(whole[..<(outer.placements[2].dataStart + 500)])
        let outcomes = try Self.read(cut)
        #expect(
            outcomes == [
                .member("first.txt", first), .member("older.zip", innerBytes),
                .error(.damagedData, fatal: false), .error(.truncated, fatal: true),
            ],
            "\(outcomes)")
    }

    /// The cut falls exactly at the end of the inner zip: the file then ends with a whole end
    /// record, but one whose directory does not lie where it says in this file.
    @Test func aCutRightAfterAStoredZipIsStillACut() throws {
        var inner = ZipFixture(zip64: false)
        inner.add("inner.txt", contents: Self.text(1, 300), method: .stored)
        let innerBytes = inner.bytes
        var outer = ZipFixture(zip64: false)
        outer.add("first.txt", contents: Self.text(2, 1000), method: .stored)
        outer.add("older.zip", contents: innerBytes, method: .stored)
        outer.add("after.txt", contents: Self.text(3, 4000), method: .stored)
        let cut = Array(outer.bytes[..<outer.placements[1].dataEnd])
        try Self.expect(
            cut,
            [
                .member("first.txt", Self.text(2, 1000)), .member("older.zip", innerBytes),
                .error(.truncated, fatal: true),
            ])
    }

    /// The end record's entry counts are not what lists the members: the directory is read to its
    /// end, as libarchive reads it, so a record that undercounts loses nothing.
    @Test(arguments: [0, 1, 2])
    func anEndRecordThatUndercountsItsEntriesLosesNoMember(count: UInt8) throws {
        var zip = ZipFixture(zip64: false)
        let contents = (0..<3).map { Self.text($0, 2000) }
        for (i, data) in contents.enumerated() { zip.add("m\(i).txt", contents: data) }
        var bytes = zip.bytes
        let end = bytes.count - 22
        for field in [end + 8, end + 10] { (bytes[field], bytes[field + 1]) = (count, 0) }
        try Self.expect(bytes, contents.enumerated().map { .member("m\($0.offset).txt", $0.element) })
    }

    /// A local header signature inside the data of the member before a cut is not a member: a
    /// zip cut inside a header is cut after its whole members, with no damaged member made up.
    @Test(arguments: [4, 20, 38])
    func aSignatureInsideDataBeforeACutIsNotAMember(into header: Int) throws {
        var zip = ZipFixture(zip64: false)
        let lookalike = Self.text(5, 500) + [0x50, 0x4B, 0x03, 0x04] + Self.text(6, 500)
        zip.add("first.txt", contents: Self.text(7, 800), method: .stored)
        zip.add("second.txt", contents: lookalike, method: .stored)
        zip.add("third.txt", contents: Self.text(8, 800), method: .stored)
        let cut = Array(zip.bytes[..<(zip.placements[2].header + header)])
        try Self.expect(
            cut,
            [
                .member("first.txt", Self.text(7, 800)), .member("second.txt", lookalike),
                .error(.truncated, fatal: true),
            ])
    }

    /// A zip written as a stream (sizes in data descriptors) and cut where a member begins: every
    /// member before the cut is whole, and is read whole.
    @Test(arguments: [ZipFixture.Method.stored, .deflated])
    func aStreamedZipCutAtAMemberBoundaryKeepsItsWholeMembers(method: ZipFixture.Method) throws {
        var zip = ZipFixture(zip64: false)
        let contents = (0..<3).map { Self.text(10 + $0, 3000) }
        for (i, data) in contents.enumerated() {
            zip.add("m\(i).txt", contents: data, method: method, dataDescriptor: true)
        }
        let cut = Array(zip.bytes[..<zip.placements[2].header])
        try Self.expect(
            cut,
            [
                .member("m0.txt", contents[0]), .member("m1.txt", contents[1]), .error(.truncated, fatal: true),
            ])
    }

    /// A whole zip with a comment after its end record reads whole.
    @Test func aCommentedZipIsWhole() throws {
        var zip = ZipFixture(zip64: false)
        zip.add("m.txt", contents: Self.text(20, 100))
        let comment = Array("PK\u{5}\u{6} is how an end record begins".utf8)
        try Self.expect(zip.bytes(comment: comment), [.member("m.txt", Self.text(20, 100))])
    }

    /// Every cut of a zip (stored, deflated and streamed members; with and without zip64) reads
    /// every member that ends before the cut, whole, makes up none, and ends with `.truncated`.
    @Test(arguments: [false, true])
    func everyCutKeepsTheWholeMembersBeforeIt(zip64: Bool) throws {
        var zip = ZipFixture(zip64: zip64)
        let contents = (0..<4).map { Self.text(30 + $0, 700) }
        zip.add("stored.txt", contents: contents[0], method: .stored)
        zip.add("deflated.txt", contents: contents[1], method: .deflated)
        zip.add("streamed-stored.txt", contents: contents[2], method: .stored, dataDescriptor: true)
        zip.add("streamed-deflated.txt", contents: contents[3], method: .deflated, dataDescriptor: true)
        let whole = zip.bytes
        try Self.expect(whole, zip.placements.indices.map { .member(zip.placements[$0].name, contents[$0]) })
        // Where each member ends: its data, and the data descriptor after it.
        let ends = zip.placements.indices.map { i in
            i + 1 < zip.placements.count ? zip.placements[i + 1].header : zip.centralDirectoryOffset
        }
        for cut in stride(from: 4, to: zip.centralDirectoryOffset + 1, by: 7) {
            let outcomes = try Self.read(Array(whole[..<cut]))
            let wholeBefore = ends.filter { $0 <= cut }.count
            let members = outcomes.compactMap { outcome -> String? in
                if case .member(let name, _) = outcome { return name }
                return nil
            }
            // A member whose data is whole may be read even when the cut falls in its data
            // descriptor (its CRC is checked): no more, and no fewer than the whole members.
            let dataBefore = zip.placements.filter { $0.dataEnd <= cut }.count
            #expect(
                members == zip.placements.prefix(members.count).map(\.name)
                    && (wholeBefore...dataBefore).contains(members.count), "cut at \(cut): \(outcomes)")
            for case .member(let name, let data) in outcomes {
                #expect(data == contents[zip.placements.firstIndex { $0.name == name } ?? 0], "cut at \(cut)")
            }
            #expect(outcomes.last == .error(.truncated, fatal: true), "cut at \(cut): \(outcomes)")
        }
    }

    /// The zip64 end records count as the end: a whole zip64 zip is whole.
    @Test func aWholeZip64IsWhole() throws {
        var zip = ZipFixture(zip64: true)
        zip.add("a.txt", contents: Self.text(40, 100))
        zip.add("b.txt", contents: Self.text(41, 100), dataDescriptor: true)
        try Self.expect(zip.bytes, [.member("a.txt", Self.text(40, 100)), .member("b.txt", Self.text(41, 100))])
    }

    /// Under a policy that makes damage fatal (a store import), a zip cut inside a member's data
    /// is reported as cut short, not as data that fails to decode.
    @Test(arguments: [ZipFixture.Method.stored, .deflated])
    func aFatalPolicyHearsOfTheCut(method: ZipFixture.Method) throws {
        var zip = ZipFixture(zip64: false)
        zip.add("first.txt", contents: Self.text(50, 2000), method: method)
        zip.add("second.txt", contents: Self.text(51, 2000), method: method)
        let cut = Array(zip.bytes[..<(zip.placements[1].dataStart + 100)])
        let outcomes = try Self.read(cut, memberErrors: .fatal)
        #expect(
            outcomes == [.member("first.txt", Self.text(50, 2000)), .error(.truncated, fatal: true)], "\(outcomes)")
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    /// Zip64 end records before an end record that holds the real counts and sizes (Info-ZIP
    /// writing to a pipe, libarchive's writer with its zip64 option): whole.
    @Test func zip64RecordsBeforeAnEndRecordWithRealValuesAreTheEnd() throws {
        var zip = ZipFixture(zip64: true)
        zip.add("a.txt", contents: Self.text(60, 100))
        var bytes = zip.bytes
        let end = bytes.count - 22
        let directorySize = end - 20 - 56 - zip.centralDirectoryOffset
        bytes.replaceSubrange(
            (end + 8)..<(end + 20),
            with: Self.le16(1) + Self.le16(1) + Self.le32(directorySize) + Self.le32(zip.centralDirectoryOffset))
        try Self.expect(bytes, [.member("a.txt", Self.text(60, 100))])
    }

    /// Exactly 65,535 members and no zip64 records (what Info-ZIP, Python's zipfile and libarchive
    /// write): the count of 0xFFFF is a count, not a zip64 mark.
    @Test(.tags(.slow)) func sixtyFiveThousandFiveHundredThirtyFiveMembersAreWhole() throws {
        var zip = ZipFixture(zip64: false)
        for i in 0..<65535 { zip.add("f\(i)", contents: [], method: .stored) }
        let outcomes = try Self.read(zip.bytes, limit: 70_000)
        #expect(outcomes.count == 65535, "\(outcomes.suffix(3))")
        #expect(outcomes.allSatisfy { if case .member = $0 { true } else { false } }, "\(outcomes.suffix(3))")
    }

    /// Two zips back to back (`cat one.zip two.zip`): neither end record is the file's own (the
    /// second's offsets count from where the second zip begins), so nothing is read in silence:
    /// the first zip's members, then the cut.
    @Test func concatenatedZipsAreNotReadInSilence() throws {
        var one = ZipFixture(zip64: false)
        one.add("one.txt", contents: Self.text(61, 100))
        var two = ZipFixture(zip64: false)
        for i in 0..<3 { two.add("two-\(i).txt", contents: Self.text(62 + i, 100)) }
        try Self.expect(
            one.bytes + two.bytes, [.member("one.txt", Self.text(61, 100)), .error(.truncated, fatal: true)])
        // A whole zip followed by a cut one: not whole either.
        let cutTwo = Array(two.bytes[..<two.placements[2].header])
        try Self.expect(
            one.bytes + cutTwo,
            [
                .member("one.txt", Self.text(61, 100)), .error(.truncated, fatal: true),
            ])
    }

    /// A cut inside the header after a member with a data descriptor is the cut, whatever the
    /// policy: libarchive still holds the descriptor when the header fails.
    @Test(arguments: [4, 29], [ArchiveReader.Policy.MemberErrors.fatal, .recoverable])
    func aCutInTheHeaderAfterADataDescriptorIsTheCut(into header: Int, policy: ArchiveReader.Policy.MemberErrors)
        throws
    {
        var zip = ZipFixture(zip64: false)
        zip.add("a.txt", contents: Self.text(70, 500), dataDescriptor: true)
        zip.add("b.txt", contents: Self.text(71, 500), dataDescriptor: true)
        let cut = Array(zip.bytes[..<(zip.placements[1].header + header)])
        let outcomes = try Self.read(cut, memberErrors: policy)
        #expect(outcomes == [.member("a.txt", Self.text(70, 500)), .error(.truncated, fatal: true)], "\(outcomes)")
    }

    /// A cut inside a stored inner zip: the inner zip's local headers are data of the member the
    /// cut falls in, not members, whatever the policy.
    @Test(arguments: [ArchiveReader.Policy.MemberErrors.fatal, .recoverable], [false, true])
    func aCutInsideAStoredZipYieldsNoneOfItsMembers(policy: ArchiveReader.Policy.MemberErrors, descriptor: Bool)
        throws
    {
        var inner = ZipFixture(zip64: false)
        inner.add("inner1.txt", contents: Self.text(72, 300), method: .stored)
        inner.add("inner2.txt", contents: Self.text(73, 300), method: .stored)
        var outer = ZipFixture(zip64: false)
        outer.add("first.txt", contents: Self.text(74, 300))
        outer.add("older.zip", contents: inner.bytes, method: .stored, dataDescriptor: descriptor)
        let cut = Array(outer.bytes[..<(outer.placements[1].dataStart + inner.centralDirectoryOffset)])
        let outcomes = try Self.read(cut, memberErrors: policy)
        let expected: [Outcome] =
            policy == .fatal
            ? [.member("first.txt", Self.text(74, 300)), .error(.truncated, fatal: true)]
            : [
                .member("first.txt", Self.text(74, 300)), .error(.damagedData, fatal: false),
                .error(.truncated, fatal: true),
            ]
        #expect(outcomes == expected, "\(outcomes)")
    }
}
