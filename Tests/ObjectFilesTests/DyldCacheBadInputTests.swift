// Damaged dyld shared caches: a subcache missing, a `.symbols` file of another cache, a file cut
// short, a header of a layout newer than we know, an image outside every mapping, gigabytes of
// zeros. Each ends in an error that says what is wrong, never a trap or a misread. DyldExtractor
// cannot referee these; the messages are the contract.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

@Suite(.needsSamples, .needsPython)
struct DyldCacheBadInputTests {
    func failure(_ body: () throws -> Void) -> SymbolicateError? {
        do {
            try body()
            return nil
        } catch {
            return error as? SymbolicateError
        }
    }

    func patch(_ path: String, at offset: UInt64, _ bytes: [UInt8]) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        handle.write(Data(bytes))
    }

    @Test func aMissingSubcacheIsNamed() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let main = try CacheFixture.make("ios16", in: dir)
        try FileManager.default.removeItem(atPath: main + ".02")
        let error = failure { _ = try DyldCache(path: main) }
        #expect(
            error?.message.contains("the cache names 2 subcaches; .02 is not here") == true,
            "\(String(describing: error))")
    }

    @Test func aSymbolsFileOfAnotherCacheIsNamed() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let main = try CacheFixture.make("ios15", in: dir)
        let other = try CacheFixture.make("ios15", in: dir + "/other", extra: ["--copies", "2"])
        try FileManager.default.removeItem(atPath: main + ".symbols")
        try FileManager.default.copyItem(atPath: other + ".symbols", toPath: main + ".symbols")
        let error = failure { _ = try DyldCache(path: main) }
        #expect(error?.message.contains("belongs to another cache") == true, "\(String(describing: error))")
    }

    @Test func aFileCutShortFailsItsImagesOnly() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let main = try CacheFixture.make("ios16", in: dir)
        // `.01` holds the second image: cut it in the middle of that image.
        try FileHandle(forUpdatingAtPath: main + ".01").map {
            try $0.truncate(atOffset: 0x6000)
            try $0.close()
        }
        let cache = try DyldCache(path: main)
        #expect(try cache.image(at: 0).symbolTable().functions.count > 0)
        let error = failure { _ = try cache.image(at: 1).symbolTable() }
        #expect(error?.code == .badInput)
        #expect(error?.message.contains("cut short") == true, "\(String(describing: error))")
    }

    @Test func aNewerLayoutIsRefusedByName() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let main = try CacheFixture.make("ios16", in: dir)
        try patch(main, at: 0x10, [0x40, 0x02, 0, 0])  // mappingOffset 0x240
        let error = failure { _ = try DyldCache(path: main) }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("newer than this program knows") == true, "\(String(describing: error))")
    }

    @Test func anImageOutsideEveryMappingIsNamed() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let main = try CacheFixture.make("old", in: dir)
        let imagesOffset = try #require(FileHandle(forReadingAtPath: main)).readData(ofLength: 0x20)[0x18..<0x1c]
        let at = imagesOffset.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        try patch(main, at: at, [0, 0, 0, 0, 0x7f, 0, 0, 0])  // the first image at 0x7f00000000
        let cache = try DyldCache(path: main)
        let error = failure { _ = try cache.image(at: 0) }
        #expect(error?.message.contains("is in no mapping") == true, "\(String(describing: error))")
        #expect(try cache.image(at: 1).symbolTable().functions.count > 0)
    }

    @Test func gigabytesOfZerosAreNoCache() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let path = dir + "/dyld_shared_cache_arm64e"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        try FileHandle(forUpdatingAtPath: path).map {
            try $0.truncate(atOffset: 10 << 30)
            try $0.close()
        }
        let error = failure { _ = try DyldCache(path: path) }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("not a dyld shared cache") == true, "\(String(describing: error))")
    }
}
