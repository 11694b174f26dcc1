// Hand-made .debug_info / .debug_abbrev bytes for our own DIE reader: a small valid unit read
// alike by libdwarf and by us, then units and abbreviation tables built to hurt (a unit claiming
// more bytes than its section, an abbreviation table past its section or with thousands of
// attributes, unknown forms, chains of DW_FORM_indirect, block lengths near 2^64, DIEs nested a
// hundred thousand deep, references that point at each other, indexes into .debug_str_offsets and
// .debug_addr past any table or without the section). Each ends in a named DecodeError or a
// result, never a trap or a hang.

import Foundation
import Testing

@testable import ObjectFiles

struct DieDecoderHostileTests {
    static func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func le64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func uleb(_ v: UInt64) -> [UInt8] {
        var v = v
        var out: [UInt8] = []
        repeat {
            var b = UInt8(v & 0x7f)
            v >>= 7
            if v != 0 { b |= 0x80 }
            out.append(b)
        } while v != 0
        return out
    }
    static func cstr(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }

    /// One abbreviation: code, tag, children, (attribute, form) pairs.
    static func abbrev(_ code: UInt64, _ tag: UInt16, children: Bool, _ specs: [(UInt16, UInt16)]) -> [UInt8] {
        var out = uleb(code) + uleb(UInt64(tag)) + [children ? DW_CHILDREN_yes : DW_CHILDREN_no]
        for (a, f) in specs { out += uleb(UInt64(a)) + uleb(UInt64(f)) }
        return out + [0, 0]
    }

    /// Codes 1 (compile unit with children), 2 (subprogram, no children), 3 (lexical block with
    /// children), 4 (inlined subroutine naming its origin by ref4).
    static let abbrevs: [UInt8] =
        abbrev(
            1, DW_TAG_compile_unit, children: true,
            [(DW_AT_name, DW_FORM_string), (DW_AT_low_pc, DW_FORM_addr), (DW_AT_high_pc, DW_FORM_data4)])
        + abbrev(
            2, DW_TAG_subprogram, children: false,
            [(DW_AT_name, DW_FORM_string), (DW_AT_low_pc, DW_FORM_addr), (DW_AT_high_pc, DW_FORM_data4)])
        + abbrev(3, DW_TAG_lexical_block, children: true, [])
        + abbrev(
            4, DW_TAG_subprogram, children: false,
            [(DW_AT_abstract_origin, DW_FORM_ref4), (DW_AT_low_pc, DW_FORM_addr), (DW_AT_high_pc, DW_FORM_data4)])
        + [0]

    /// A DWARF 4 unit around `dies`; `length` overrides the unit length.
    static func unit(_ dies: [UInt8], version: UInt16 = 4, length: UInt32? = nil, abbrevOffset: UInt32 = 0) -> [UInt8] {
        let body = le16(version) + le32(abbrevOffset) + [8] + dies
        return le32(length ?? UInt32(body.count)) + body
    }

    static let unitDie = [UInt8(1)] + cstr("u.c") + le64(0x1000) + le32(0x100)

    static func read(_ info: [UInt8], abbrev: [UInt8] = abbrevs, backend: DebugInfoReader.Backend = .own(threads: 1))
        throws -> DebugInfo
    {
        let sections = [
            ".debug_info": ByteStorage(bytes: info).reader(), ".debug_abbrev": ByteStorage(bytes: abbrev).reader(),
        ]
        return try DebugInfoReader.read(sections: sections, pointerSize: 8, backend: backend)
    }

    /// The message of the DecodeError `body` throws (nil when it returns).
    static func failure(_ body: () throws -> DebugInfo) -> String? {
        do {
            _ = try body()
            return nil
        } catch let e as DecodeError {
            return e.description
        } catch {
            Issue.record("unexpected error \(error)")
            return "\(error)"
        }
    }

    @Test func smallUnitReadAlikeByBothReaders() throws {
        let dies = Self.unitDie + [2] + Self.cstr("f") + Self.le64(0x1010) + Self.le32(0x20) + [0]
        let ours = try Self.read(Self.unit(dies))
        let theirs = try Self.read(Self.unit(dies), backend: .libdwarf)
        #expect(ours.units.count == 1)
        #expect(ours.units.first?.ranges.map { [$0.start, $0.end] } == [[0x1000, 0x1100]])
        #expect(ours.nodes.map { ours.names[Int($0.name)] } == ["f"])
        #expect(ours.scopes == [DebugInfo.Scope(start: 0x1010, end: 0x1030, node: 0)])
        #expect(DieReaderCrossCheckTests.differences(ours, theirs).isEmpty)
    }

    @Test func unitClaimingMoreThanItsSection() {
        let message = Self.failure { try Self.read(Self.unit(Self.unitDie + [0], length: 1 << 20)) }
        #expect(message?.contains("past the end of .debug_info") == true, "\(message ?? "no error")")
        let reserved = Self.failure { try Self.read(Self.le32(0xffff_fff5) + [UInt8](repeating: 0, count: 16)) }
        #expect(reserved?.contains("reserved initial length") == true, "\(reserved ?? "no error")")
    }

    @Test func unknownVersion() {
        let message = Self.failure { try Self.read(Self.unit(Self.unitDie + [0], version: 9)) }
        #expect(message?.contains("unsupported DWARF version 9") == true, "\(message ?? "no error")")
    }

    @Test func abbreviationTablePastItsSection() {
        let message = Self.failure { try Self.read(Self.unit(Self.unitDie + [0], abbrevOffset: 1 << 30)) }
        #expect(message?.contains("past the end of .debug_abbrev") == true, "\(message ?? "no error")")
    }

    @Test func abbreviationWithTooManyAttributes() {
        let specs = Array(
            repeating: (DW_AT_name, DW_FORM_data1), count: AbbreviationTable.maxAttributesPerAbbreviation + 1)
        let table = Self.abbrev(1, DW_TAG_compile_unit, children: false, specs) + [0]
        let message = Self.failure { try Self.read(Self.unit(Self.unitDie), abbrev: table) }
        #expect(
            message?.contains("more than \(AbbreviationTable.maxAttributesPerAbbreviation) attributes") == true,
            "\(message ?? "no error")")
    }

    @Test func unknownAbbreviationCode() {
        let message = Self.failure { try Self.read(Self.unit(Self.unitDie + [9, 0])) }
        #expect(message?.contains("abbreviation code 9") == true, "\(message ?? "no error")")
    }

    @Test func unknownFormAndIndirectChains() {
        let unknown = Self.abbrev(1, DW_TAG_compile_unit, children: false, [(DW_AT_name, 0x7f)]) + [0]
        let m1 = Self.failure { try Self.read(Self.unit([1, 0, 0, 0]), abbrev: unknown) }
        #expect(m1?.contains("unknown form 0x7f") == true, "\(m1 ?? "no error")")
        let indirect = Self.abbrev(1, DW_TAG_compile_unit, children: false, [(DW_AT_name, DW_FORM_indirect)]) + [0]
        let chain = [UInt8(1)] + [UInt8](repeating: UInt8(DW_FORM_indirect), count: 64) + [0]
        let m2 = Self.failure { try Self.read(Self.unit(chain), abbrev: indirect) }
        #expect(m2?.contains("nests DW_FORM_indirect") == true, "\(m2 ?? "no error")")
    }

    @Test func blockLengthNearTwoToThe64() {
        let table =
            Self.abbrev(1, DW_TAG_compile_unit, children: false, [(DW_AT_location, DW_FORM_block)]) + [0]
        let dies = [UInt8(1)] + Self.uleb(UInt64.max - 3) + [0, 0, 0]
        let message = Self.failure { try Self.read(Self.unit(dies), abbrev: table) }
        #expect(message?.contains("truncated") == true, "\(message ?? "no error")")
    }

    /// A hundred thousand lexical blocks, each the child of the one before, never closed: read
    /// through to the unit's end in one pass (the walk stops descending at its depth limit).
    @Test func deeplyNestedDIEs() throws {
        let dies =
            Self.unitDie + [UInt8](repeating: 3, count: 100_000) + [2] + Self.cstr("deep") + Self.le64(0x1010)
            + Self.le32(4)
        let info = try Self.read(Self.unit(dies))
        #expect(info.units.count == 1)
        #expect(info.nodes.isEmpty)
    }

    /// Two subprograms whose abstract origins name each other, and one naming itself.
    @Test func referencesThatLoop() throws {
        // Offsets in the unit: header 11 bytes, unit DIE 1 + 4 + 8 + 4 = 17, so the first child is at 28.
        let a = [UInt8(4)] + Self.le32(28 + 17) + Self.le64(0x1010) + Self.le32(4)
        let b = [UInt8(4)] + Self.le32(28) + Self.le64(0x1020) + Self.le32(4)
        let c = [UInt8(4)] + Self.le32(28 + 34) + Self.le64(0x1030) + Self.le32(4)
        let info = try Self.read(Self.unit(Self.unitDie + a + b + c + [0]))
        #expect(info.nodes.map { info.names[Int($0.name)] } == ["??", "??", "??"])
        let theirs = try Self.read(Self.unit(Self.unitDie + a + b + c + [0]), backend: .libdwarf)
        #expect(DieReaderCrossCheckTests.differences(info, theirs).isEmpty)
    }

    /// A DWARF 5 unit whose names and addresses are indexes (DW_FORM_strx / DW_FORM_addrx) into
    /// `.debug_str_offsets` and `.debug_addr`, read from just past each table's 8-byte header (the
    /// unit states no base): the compile unit is entry 0 of both, the subprogram entries `strIndex` and
    /// `addrIndex`; `omitted` names sections left out.
    static func indexedRead(strIndex: UInt64, addrIndex: UInt64, sections omitted: Set<String> = []) throws
        -> DebugInfo
    {
        let specs = [(DW_AT_name, DW_FORM_strx), (DW_AT_low_pc, DW_FORM_addrx), (DW_AT_high_pc, DW_FORM_data4)]
        let table =
            abbrev(1, DW_TAG_compile_unit, children: true, specs) + abbrev(2, DW_TAG_subprogram, children: false, specs)
            + [0]
        let dies =
            [1] + uleb(0) + uleb(0) + le32(0x100) + [2] + uleb(strIndex) + uleb(addrIndex) + le32(0x20) + [0]
        let body = le16(5) + [DW_UT_compile, 8] + le32(0) + dies
        let offsets = le16(5) + le16(0) + le32(0) + le32(4)
        let addresses = le16(5) + [8, 0] + le64(0x1000) + le64(0x1010)
        var sections = [
            ".debug_info": le32(UInt32(body.count)) + body, ".debug_abbrev": table,
            ".debug_str": cstr("u.c") + cstr("f"),
            ".debug_str_offsets": le32(UInt32(offsets.count)) + offsets,
            ".debug_addr": le32(UInt32(addresses.count)) + addresses,
        ]
        for name in omitted { sections[name] = nil }
        return try DebugInfoReader.read(
            sections: sections.mapValues { ByteStorage(bytes: $0).reader() }, pointerSize: 8, backend: .own(threads: 1))
    }

    @Test func indexedStringsAndAddresses() throws {
        let info = try Self.indexedRead(strIndex: 1, addrIndex: 1)
        #expect(info.units.first?.ranges.map { [$0.start, $0.end] } == [[0x1000, 0x1100]])
        #expect(info.nodes.map { info.names[Int($0.name)] } == ["f"])
        #expect(info.scopes == [DebugInfo.Scope(start: 0x1010, end: 0x1030, node: 0)])
    }

    @Test func indexesPastAnyTableOrWithoutTheirSection() {
        let string = Self.failure { try Self.indexedRead(strIndex: 1 << 40, addrIndex: 1) }
        #expect(string?.contains("string index \(1 << 40) is out of range") == true, "\(string ?? "no error")")
        let address = Self.failure { try Self.indexedRead(strIndex: 1, addrIndex: 1 << 40) }
        #expect(address?.contains("address index \(1 << 40) is out of range") == true, "\(address ?? "no error")")
        let noOffsets = Self.failure {
            try Self.indexedRead(strIndex: 1, addrIndex: 1, sections: [".debug_str_offsets"])
        }
        #expect(noOffsets?.contains("without a .debug_str_offsets section") == true, "\(noOffsets ?? "no error")")
        let noAddresses = Self.failure { try Self.indexedRead(strIndex: 1, addrIndex: 1, sections: [".debug_addr"]) }
        #expect(noAddresses?.contains("without a .debug_addr section") == true, "\(noAddresses ?? "no error")")
    }
}
