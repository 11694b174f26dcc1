// The hex-digit rule every reader shares (ASCII.hexDigitValue), held to the standard library's
// Character.hexDigitValue for every byte, and seen through the readers that use it: build ids,
// report addresses and JSON's \u escapes; and the rule for addresses and sizes in JSON, as
// numbers or as strings, which the .ips, MetricKit and request readers share.

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

    /// Decimal digits appended to bytes (what the writers print offsets and lines with), as
    /// the standard library prints the number, after whatever the bytes held.
    @Test func decimalsAsTheStandardLibraryPrintsThem() {
        var values: [UInt64] = [
            0, 1, 9, 10, 99, 100, .max, .max - 1, 10_000_000_000_000_000_000, 9_999_999_999_999_999_999,
        ]
        var power: UInt64 = 1
        for _ in 0..<19 {
            values += [power - 1, power, power + 1]
            power *= 10
        }
        var state: UInt64 = 0x5EED
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(state >> (state % 64))
        }
        for value in values {
            var out: [UInt8] = Array("x:".utf8)
            ASCII.appendDecimal(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == "x:\(value)")
        }
    }

    @Test func unsignedIntegersInJSON() throws {
        #expect(ASCII.unsignedInteger(number: "4303175680") == 4_303_175_680)
        #expect(ASCII.unsignedInteger(number: "18446744073709551615") == .max)
        #expect(ASCII.unsignedInteger(number: "4.3e9") == 4_300_000_000)
        #expect(ASCII.unsignedInteger(number: "1.81e19") == 18_100_000_000_000_000_000)
        for refused in ["1.5", "-1", "1.8446744073709552e19", "1e300", "nan", ""] {
            #expect(ASCII.unsignedInteger(number: refused) == nil, "\(refused)")
        }
        #expect(ASCII.unsignedInteger(string: "0x1F") == 31 && ASCII.unsignedInteger(string: "0X1f") == 31)
        #expect(ASCII.unsignedInteger(string: "31") == 31)
        for refused in ["0x", "1f", "x1", "", "0x-1", " 31"] {
            #expect(ASCII.unsignedInteger(string: refused) == nil, "\(refused)")
        }
        // The two JSON readers of reports read both forms alike.
        let document = Array(#"{"n":4.3e9,"s":"0x100","d":"256","f":1.5}"#.utf8)
        let (node, _) = try JSONScanner.parse(document)
        #expect(node["n"]?.uint64 == 4_300_000_000 && node["s"]?.uint64 == 256 && node["d"]?.uint64 == 256)
        #expect(node["f"]?.uint64 == nil)
        let (tape, _) = try JSONTape.parse(document, from: 0)
        let values = tape.children(0).map { tape.uint64($0) }
        #expect(values == [4_300_000_000, 256, 256, nil])
    }
}
