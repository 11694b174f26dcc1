// zstd-compressed debug sections (`objcopy --compress-debug-sections=zstd`), which libelf 0.188
// cannot decompress: a build compressed so looks up as the same build uncompressed does, with
// llvm-symbolizer-14 (which predates zstd sections) run on the uncompressed file as the referee,
// and a section whose compression header lies about its size is refused by name.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

@Suite(.enabled(if: toolExists("g++") && toolExists("objcopy"), "g++ or objcopy is not installed"))
struct ZstdSectionTests {
    /// A gcc DWARF 5 build and its copy with zstd-compressed debug sections.
    static func build(in dir: String) throws -> (plain: String, zstd: String) {
        let v = try #require(ELFTests.variants.first { $0.name == "gcc-dwarf5" })
        let plain = try #require(try ELFTests.build(v, in: dir))
        let zstd = dir + "/zstd"
        let r = try run("objcopy", ["--compress-debug-sections=zstd", plain, zstd])
        try #require(r.status == 0, "objcopy cannot write zstd sections: \(r.errors)")
        return (plain, zstd)
    }

    @Test func zstdSectionsLookUpAsUncompressedOnes() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let (plain, zstd) = try Self.build(in: dir)
        let sections = try run("readelf", ["-t", zstd]).output
        #expect(sections.contains("ZSTD"), "objcopy left the sections uncompressed")
        let slice = try #require(try ObjectFile.slices(atPath: zstd).first)
        #expect(slice.info.kind == .debugInfo)
        let table = try slice.loadSymbolTable()
        #expect(table.locations.contains { $0.parent != SymbolTable.none }, "no inline chains")
        let mismatches = try Symbolizer.compare(
            table, obj: plain, arch: nil, addresses: Symbolizer.sampleAddresses(table, limit: 400))
        #expect(mismatches.isEmpty, "\(mismatches.prefix(6))")
    }

    /// The file offset of `.debug_info` in `path`, from readelf's section table.
    static func debugInfoOffset(_ path: String) throws -> Int {
        let table = try run("readelf", ["-SW", path]).output
        let line = try #require(table.split(separator: "\n").first { $0.contains(" .debug_info ") })
        let fields = line.split(separator: "]").last?.split(separator: " ") ?? []
        // Name, type, address, offset, ...
        return try #require(fields.count > 3 ? Int(fields[3], radix: 16) : nil)
    }

    @Test(arguments: [-1, 1])
    func aSectionLyingAboutItsSizeIsRefused(_ change: Int) throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let (_, zstd) = try Self.build(in: dir)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: zstd)))
        // Elf64_Chdr: ch_type (4 bytes), ch_reserved (4), ch_size (8, little-endian).
        let at = try Self.debugInfoOffset(zstd) + 8
        var size: UInt64 = 0
        for i in (0..<8).reversed() { size = size << 8 | UInt64(bytes[at + i]) }
        size = change < 0 ? size - 1 : size + 1
        for i in 0..<8 { bytes[at + i] = UInt8(truncatingIfNeeded: size >> (8 * UInt64(i))) }
        try Data(bytes).write(to: URL(fileURLWithPath: zstd))

        let slice = try #require(try ObjectFile.slices(atPath: zstd).first)
        #expect {
            _ = try slice.loadSymbolTable()
        } throws: {
            let text = "\($0)"
            return text.contains(".debug_info") && text.contains("its header says")
        }
    }
}
