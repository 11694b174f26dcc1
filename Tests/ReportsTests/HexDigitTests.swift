// The hex-digit rule every reader shares (ASCII.hexDigitValue), held to the standard library's
// Character.hexDigitValue for every byte, and seen through the readers that use it: build ids,
// report addresses and JSON's \u escapes.

import SymbolicateModel
import Testing

@testable import Reports

struct HexDigitTests {
    @Test func everyByteAsTheStandardLibraryReadsIt() {
        for byte in UInt8.min...UInt8.max {
            let character = Character(Unicode.Scalar(byte))
            let expected = character.isASCII ? character.hexDigitValue.map(UInt8.init) : nil
            #expect(ASCII.hexDigitValue(byte) == expected, "byte 0x\(String(byte, radix: 16))")
        }
    }

    @Test func readersThatUseIt() throws {
        #expect(BuildID(string: "82D13D98-219E-3040-b62a-07a297007a7c")?.bytes.first == 0x82)
        #expect(BuildID(string: "82g1") == nil)
        #expect(BuildID(string: "8\u{FF12}") == nil)
        let text = Array("0x1aF".utf8)
        #expect(ByteText.hexAddress(text, 0..<text.count) == 0x1af)
        let bad = Array("0x1aG".utf8)
        #expect(ByteText.hexAddress(bad, 0..<bad.count) == nil)
    }
}
