// ByteSize, the one reading of sizes typed on the command line, and the one percent-encoder:
// every spelling users type (`1.5G`, `1.5GiB`, `512m`, `64KB`, plain bytes) reads the same
// wherever a size is accepted, and what is not a size is nil, never a guess.

import SymbolicateModel
import Testing

struct ByteSizeTests {
    static let spellings: [(String, Int64)] = [
        ("12345", 12345), ("0", 0), ("64k", 65536), ("64K", 65536), ("64KB", 65536), ("64KiB", 65536),
        ("512M", 536_870_912), ("512mib", 536_870_912), ("10G", 10_737_418_240), ("2GiB", 2_147_483_648),
        ("1.5G", 1_610_612_736), ("1.5GiB", 1_610_612_736), ("0.5K", 512), ("1T", 1_099_511_627_776),
        (" 2G ", 2_147_483_648), ("100B", 100),
    ]

    @Test(arguments: spellings)
    func sizesPeopleType(text: String, bytes: Int64) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test(arguments: ["", "G", "lots", "-1G", "1.5.1G", "5iB", "1P", "1e3", "0x10", "9999999999T", "nan", "inf"])
    func whatIsNoSize(text: String) {
        #expect(ByteSize.parse(text) == nil)
    }

    @Test func percentEncodingIsOfBytes() {
        #expect(ASCII.percentEncoded("a b/c~d") == "a%20b%2Fc~d")
        #expect(ASCII.percentEncoded("a b/c", keeping: [UInt8(ascii: "/")]) == "a%20b/c")
        // é is two UTF-8 bytes, each encoded (not the scalar U+00E9 as %E9).
        #expect(ASCII.percentEncoded("é") == "%C3%A9")
    }
}
