// Damaged ELF files: ELFs compiled at test time (gcc, DWARF 5, and DWARF 4 with compressed debug
// sections), then truncated, bit-flipped and given impossible header fields. Each copy must end
// in a table or a SymbolicateError naming the file (libelf's reason in the message), never a
// trap; one slice loaded from many tasks at once must give the same table every time.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

@Suite(.tags(.slow), .enabled(if: toolExists("g++"), "g++ is not installed"))
struct ELFHostileInputTests {
    /// The bytes of a small ELF with DWARF 5 and a build id, built with g++.
    static func seed(in dir: String, flags: [String] = ["-g", "-gdwarf-5", "-O2"]) throws -> [UInt8] {
        let variant = ELFTests.Variant(name: "seed", compiler: "g++", flags: flags)
        let path = try #require(try ELFTests.build(variant, in: dir), "g++ failed to build the seed")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The error a copy ends in, or nil when it gave a table.
    static func error(_ bytes: [UInt8], _ name: String) -> SymbolicateError? {
        do {
            for slice in try ObjectFile.slices(bytes: bytes, path: name) {
                let table = try slice.loadSymbolTable()
                for r in table.ranges.prefix(64) { _ = table.lookup(r.start) }
            }
            return nil
        } catch let e as SymbolicateError {
            return e
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    @Test func truncatedCopiesFailCleanly() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let bytes = try Self.seed(in: dir)
        #expect(Self.error(bytes, "whole") == nil)
        // The section headers sit at the end of the file, so every shorter copy has lost some.
        var lengths = Array(0..<80) + stride(from: 80, to: bytes.count, by: max(1, bytes.count / 200)).map { $0 }
        lengths.append(bytes.count - 1)
        for n in lengths {
            let name = "truncated-\(n).elf"
            let e = Self.error(Array(bytes[0..<n]), name)
            #expect(e != nil, "a \(n)-byte copy of \(bytes.count) gave a table")
            #expect(e?.path == name)
            #expect(e?.code == .badInput || (n < 4 && e?.code == .unsupported), "\(String(describing: e))")
        }
    }

    @Test func impossibleHeaderFieldsNameTheCause() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let bytes = try Self.seed(in: dir)
        #expect(bytes[4] == 2 && bytes[5] == 1, "expected a little-endian ELF64 seed")
        var badClass = bytes
        badClass[4] = 7  // EI_CLASS
        var headersOutside = bytes
        headersOutside.replaceSubrange(0x28..<0x30, with: [0, 0, 0, 0, 0, 0, 0, 0x40])  // e_shoff
        var manySections = bytes
        manySections.replaceSubrange(0x3c..<0x3e, with: [0xff, 0x7f])  // e_shnum
        for (name, copy) in [("class.elf", badClass), ("shoff.elf", headersOutside), ("shnum.elf", manySections)] {
            let e = Self.error(copy, name)
            #expect(e?.code == .badInput, "\(name): \(String(describing: e))")
            #expect(e?.path == name)
            #expect(e?.message.hasPrefix("corrupt ELF file") == true, "\(String(describing: e))")
        }
        // A symbol table whose data lies past the end of the file: libelf refuses it and says why.
        var symbolsOutside = bytes
        let shoff = Self.little(bytes, 0x28, 8)
        for i in 0..<Self.little(bytes, 0x3c, 2) where Self.little(bytes, shoff + i * 64 + 4, 4) == 2 {  // SHT_SYMTAB
            symbolsOutside.replaceSubrange(
                (shoff + i * 64 + 24)..<(shoff + i * 64 + 32), with: [0, 0, 0, 0x7f, 0, 0, 0, 0])
        }
        #expect(symbolsOutside != bytes, "no .symtab in the seed")
        let e = Self.error(symbolsOutside, "symtab.elf")
        #expect(e?.code == .badInput && e?.path == "symtab.elf")
        #expect(e?.message.contains("symbol table .symtab (libelf: ") == true, "\(String(describing: e))")
    }

    /// The section and program header tables pass the same two checks (entries of the format's
    /// size; as many as the header claims fit in the file), and each failure names its table.
    @Test func headerTablesAreCheckedAlike() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let bytes = try Self.seed(in: dir)
        #expect(bytes[4] == 2 && bytes[5] == 1, "expected a little-endian ELF64 seed")
        #expect(Self.little(bytes, 0x38, 2) > 0, "expected program headers in the seed")
        func patched(_ offset: Int, _ value: [UInt8]) -> [UInt8] {
            var copy = bytes
            copy.replaceSubrange(offset..<(offset + value.count), with: value)
            return copy
        }
        let far: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x40]
        let cases: [(String, [UInt8], String)] = [
            ("shentsize.elf", patched(0x3a, [65, 0]), "section header entries of 65 bytes (the format's are 64)"),
            ("phentsize.elf", patched(0x36, [57, 0]), "program header entries of 57 bytes (the format's are 56)"),
            ("shoff.elf", patched(0x28, far), "section headers at offset 4611686018427387904 do not fit in the"),
            ("phoff.elf", patched(0x20, far), "program headers at offset 4611686018427387904 do not fit in the"),
        ]
        for (name, copy, words) in cases {
            let e = Self.error(copy, name)
            #expect(e?.code == .badInput && e?.path == name, "\(name): \(String(describing: e))")
            #expect(e?.message.contains(words) == true, "\(name): \(String(describing: e))")
        }
    }

    /// The little-endian value of `size` bytes at `offset` (the seed is checked to be ELF64 LE).
    static func little(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> Int {
        (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }

    @Test func bitFlippedCopiesNeverTrap() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let plain = try Self.seed(in: dir)
        let compressed = try Self.seed(in: dir, flags: ["-g", "-gdwarf-4", "-O2", "-gz"])
        var rng = SplitMix64(seed: 0x2545_F491_4F6C_DD1D)
        var errors = 0
        var tables = 0
        for i in 0..<600 {
            var bytes = i < 300 ? plain : compressed
            for _ in 0..<(1 + Int(rng.next() % 8)) {
                // Half the flips land in the ELF and program headers, a quarter anywhere, a
                // quarter in the section headers at the end.
                let at: Int
                switch i % 4 {
                case 0, 1: at = Int(rng.next() % UInt64(min(1024, bytes.count)))
                case 2: at = Int(rng.next() % UInt64(bytes.count))
                default: at = bytes.count - 1 - Int(rng.next() % UInt64(min(2048, bytes.count)))
                }
                bytes[at] ^= UInt8(1 << (rng.next() % 8))
            }
            let name = "flipped-\(i).elf"
            if let e = Self.error(bytes, name) {
                errors += 1
                #expect(e.path == name)
                #expect(e.code == .badInput || e.code == .unsupported, "\(e)")
            } else {
                tables += 1
            }
        }
        #expect(errors > 0)
        print("bit-flipped ELF copies: \(errors) errors, \(tables) tables")
    }

    @Test func concurrentLoadsOfOneSliceAgree() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let bytes = try Self.seed(in: dir, flags: ["-g", "-gdwarf-4", "-O2", "-gz"])
        let slice = try #require(try ObjectFile.slices(bytes: bytes, path: "seed").first)
        let reference = try slice.loadSymbolTable()
        let addresses = Symbolizer.sampleAddresses(reference, limit: 300)
        let expected = addresses.map { Symbolizer.ours(reference, $0) }
        #expect(expected.contains { !$0.isEmpty })
        let results = try await withThrowingTaskGroup(of: [[SymbolizerLevel]].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let t = try slice.loadSymbolTable()
                    return addresses.map { Symbolizer.ours(t, $0) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == expected })
    }
}
