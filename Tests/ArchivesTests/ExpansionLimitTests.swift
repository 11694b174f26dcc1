// The limit against expansion bombs: an archive may expand to the larger of a ratio times its
// size and a floor. The refusal names the limit in bytes and which of the two rules set it, with
// the archive's size, so that the numbers in the message can be checked against each other.

import Archives
import Foundation
import TestSupport
import Testing

struct ExpansionLimitTests {
    /// Reads every member of a zip holding `count` zero bytes under `limits`; returns the error.
    static func refusal(zeros count: Int, limits: ArchiveReader.Limits) throws -> (ArchiveError?, size: Int) {
        var zip = ZipFixture(zip64: false)
        zip.add("zeros", contents: [UInt8](repeating: 0, count: count), method: .deflated)
        let path = NSTemporaryDirectory() + "bomb-\(UUID().uuidString).zip"
        try Data(zip.bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let reader = try ArchiveReader(
            path: path, policy: .init(names: .sanitize, memberErrors: .recoverable, limits: limits))
        do {
            while try reader.next() != nil { _ = try reader.readAll(limit: .max) }
            return (nil, zip.bytes.count)
        } catch {
            return (error, zip.bytes.count)
        }
    }

    @Test func theRatioSetsTheLimitOfALargeArchive() throws {
        let (error, size) = try Self.refusal(zeros: 4 << 20, limits: .init(expansionRatio: 20, expansionFloor: 1))
        let refusal = try #require(error)
        #expect(refusal.code == .expansionBomb)
        #expect(refusal.fatal)
        #expect(
            refusal.message
                == "the archive expands to more than \(20 * size) bytes (20 times its \(size) bytes) at zeros; "
                + "refusing it as an expansion bomb")
    }

    @Test func theFloorSetsTheLimitOfASmallArchive() throws {
        let (error, size) = try Self.refusal(
            zeros: 4 << 20, limits: .init(expansionRatio: 20, expansionFloor: 1 << 20))
        let refusal = try #require(error)
        #expect(refusal.code == .expansionBomb)
        #expect(
            refusal.message
                == "the archive expands to more than 1048576 bytes (the floor for any archive; 20 times its "
                + "\(size) bytes is less) at zeros; refusing it as an expansion bomb")
    }

    @Test func anArchiveWithinItsLimitIsRead() throws {
        let (error, _) = try Self.refusal(zeros: 1 << 20, limits: .init(expansionRatio: 20, expansionFloor: 2 << 20))
        #expect(error == nil)
    }
}
