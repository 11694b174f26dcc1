// Truncated, bit-flipped and look-alike files: every one must end in a SymbolicateError or a
// table, never a trap or a hang, and the errors must name the file.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

@Suite(.tags(.slow))
struct HostileInputTests {
    /// A small thin DWARF 5 dSYM and a small universal dSYM, from the Samples or the corpus.
    static func seeds() -> [String] {
        var out: [String] = []
        let thin = Fixtures.samples + "/ios-arm64-dwarf5/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        let fat = Fixtures.samples + "/universal-dwarf5/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        let corpusFat =
            Fixtures.corpus
            + "/inket__MacSymbolicator/Resources/dSYMs/Embedded.app.dSYM/Framework_1.framework.dSYM/Contents/Resources/DWARF/Framework_1"
        for p in [thin, fat, corpusFat] where Fixtures.exists(p) { out.append(p) }
        return out
    }

    enum Outcome { case table, error }

    static func attempt(_ bytes: [UInt8], _ name: String) -> Outcome {
        do {
            for slice in try ObjectFile.slices(bytes: bytes, path: name) {
                let table = try slice.loadSymbolTable()
                // The table must be usable: sorted ranges, in-bounds indices via lookup.
                for r in table.ranges.prefix(64) { _ = table.lookup(r.start) }
            }
            return .table
        } catch let e as SymbolicateError {
            #expect(e.path == name, "\(e)")
            #expect(e.code == .badInput || e.code == .unsupported, "\(e)")
            return .error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return .error
        }
    }

    @Test(.enabled(if: !seeds().isEmpty, "no seed dSYMs in Samples/build"))
    func truncatedCopies() throws {
        let seeds = Self.seeds()
        var errors = 0
        var tables = 0
        var attempts = 0
        for seed in seeds {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: seed)))
            var lengths = Array(0..<64) + stride(from: 64, to: bytes.count, by: max(1, bytes.count / 150)).map { $0 }
            lengths.append(bytes.count - 1)
            for n in lengths {
                attempts += 1
                let outcome = Self.attempt(Array(bytes[0..<n]), "truncated-\(n)")
                switch outcome {
                case .table: tables += 1
                case .error: errors += 1
                }
                // Cut inside the 32-byte Mach-O header (or a universal header and its first entry),
                // there is nothing to read: a named error, never a table.
                #expect(n >= 32 || outcome == .error, "\(seed) cut to \(n) bytes gave a table")
            }
        }
        // Every copy ends in a table or a named error (attempt checks the error).
        #expect(errors + tables == attempts)
        #expect(errors >= seeds.count * 32)
        print("truncated copies: \(errors) errors, \(tables) tables")
    }

    @Test(.enabled(if: !seeds().isEmpty, "no seed dSYMs in Samples/build"))
    func bitFlippedCopies() throws {
        let seeds = Self.seeds()
        var rng = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)
        var errors = 0
        var tables = 0
        for seed in seeds {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: seed)))
            for i in 0..<250 {
                var bytes = original
                let flips = 1 + Int(rng.next() % 8)
                for _ in 0..<flips {
                    // Half the flips land in the first 4 KB (headers and load commands).
                    let range = i % 2 == 0 ? min(4096, bytes.count) : bytes.count
                    let at = Int(rng.next() % UInt64(range))
                    bytes[at] ^= UInt8(1 << (rng.next() % 8))
                }
                switch Self.attempt(bytes, "flipped-\(i)") {
                case .table: tables += 1
                case .error: errors += 1
                }
            }
        }
        // Every copy ends in a table or a named error (attempt checks the error), and flips in the
        // load commands are caught.
        #expect(errors + tables == seeds.count * 250)
        #expect(errors > 0)
        print("bit-flipped copies: \(errors) errors, \(tables) tables")
    }

    @Test func lookAlikesAreRefused() throws {
        // A Java class file: 0xcafebabe, then minor and major version where a fat count would be.
        let java: [UInt8] = [0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x34] + [UInt8](repeating: 7, count: 64)
        #expect(!ObjectFile.looksLikeObjectFile(prefix: java))
        #expect(throws: SymbolicateError.self) { try ObjectFile.slices(bytes: java, path: "A.class") }
        do {
            _ = try ObjectFile.slices(bytes: java, path: "A.class")
        } catch let e as SymbolicateError {
            #expect(e.code == .unsupported)
            #expect(e.path == "A.class")
        }
        for bytes: [UInt8] in [[], [0x7f], Array("hello, world\n".utf8), [0xfe, 0xed, 0xfa, 0xcf, 0, 0, 0, 0]] {
            do {
                _ = try ObjectFile.slices(bytes: bytes, path: "x")
                Issue.record("accepted \(bytes)")
            } catch let e as SymbolicateError {
                #expect(e.code == .unsupported)
            }
        }
        #expect(ObjectFile.looksLikeObjectFile(prefix: [0xcf, 0xfa, 0xed, 0xfe]))
        #expect(ObjectFile.looksLikeObjectFile(prefix: [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]))
        #expect(ObjectFile.looksLikeObjectFile(prefix: [0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]))
        #expect(!ObjectFile.looksLikeObjectFile(prefix: [0xca, 0xfe]))
    }

    @Test func missingAndNonRegularPaths() throws {
        do {
            _ = try ObjectFile.slices(atPath: "/nonexistent/file")
            Issue.record("opened a missing file")
        } catch let e as SymbolicateError {
            #expect(e.code == .notFound)
        }
        do {
            _ = try ObjectFile.slices(atPath: "/tmp")
            Issue.record("opened a folder")
        } catch let e as SymbolicateError {
            #expect(e.code == .unsupported)
        }
    }
}
