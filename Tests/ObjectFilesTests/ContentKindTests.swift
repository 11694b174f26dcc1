// ContentKind: the one magic-byte sniffer. Each kind from its specification's magic, the
// object-file and archive questions built on it agree with it, and short or foreign bytes are
// nothing.

import SymbolicateModel
import Testing

@testable import ObjectFiles

@Suite struct ContentKindTests {
    static func tar() -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        block.replaceSubrange(257..<262, with: Array("ustar".utf8))
        return block
    }

    static let cases: [([UInt8], ContentKind?)] = [
        ([0xCF, 0xFA, 0xED, 0xFE, 0x0C, 0, 0, 0x01], .machO),
        ([0xCE, 0xFA, 0xED, 0xFE], .machO),
        ([0xFE, 0xED, 0xFA, 0xCF], .machOBigEndian),
        ([0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 2], .universal),
        ([0xCA, 0xFE, 0xBA, 0xBF, 0, 0, 0, 2], .universal64),
        ([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1], .elf),
        ([0x50, 0x4B, 0x03, 0x04, 0x14], .zip),
        ([0x50, 0x4B, 0x05, 0x06], .zip),
        ([0x50, 0x4B, 0x07, 0x08], .zip),
        ([0x1F, 0x8B, 0x08], .gzip),
        (Array("BZh9".utf8), .bzip2),
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], .xz),
        ([0x28, 0xB5, 0x2F, 0xFD], .zstd),
        (tar(), .tar),
        ([], nil),
        ([0x7F, 0x45], nil),
        (Array("Incident Identifier: 1".utf8), nil),
        ([0x50, 0x4B, 0x01, 0x02], nil),
    ]

    @Test(arguments: cases) func sniffsEachKindByItsMagic(bytes: [UInt8], expected: ContentKind?) {
        #expect(ContentKind.sniff(bytes) == expected)
    }

    @Test(arguments: cases) func objectFilesAndArchivesFollowTheSniffer(bytes: [UInt8], expected: ContentKind?) {
        let readable: Set<ContentKind> = [.machO, .universal, .universal64, .elf]
        #expect(ObjectFile.looksLikeObjectFile(prefix: bytes) == expected.map(readable.contains) ?? false)
        #expect((expected?.isArchive ?? false) == [.zip, .tar, .gzip, .bzip2, .xz, .zstd].contains(expected))
    }

    @Test func aBigEndianMachOIsNamedWhenOpened() throws {
        let error = #expect(throws: SymbolicateError.self) {
            try ObjectFile.slices(bytes: [0xFE, 0xED, 0xFA, 0xCE] + [UInt8](repeating: 0, count: 60), path: "ppc")
        }
        #expect(error?.message == "big-endian Mach-O files are not supported")
    }
}
