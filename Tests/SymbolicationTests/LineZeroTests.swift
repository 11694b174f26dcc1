// Line 0 of a line table (code that no source line owns: thunks, outlined copies, merged
// instructions, Swift's `<compiler-generated>`) is kept from the DWARF reader through the store's
// build file to the report, and printed as Apple's tools print it: `(File.m:0)`,
// `(<compiler-generated>:0)`. The addresses come from llvm-dwarfdump's line rows and the truth
// from llvm-symbolizer; the corpus case checks Apple's own reference output.

import Foundation
import Import
import ObjectFiles
import Reports
import Store
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

enum LineZero {
    static let dwarfdump = "/usr/bin/llvm-dwarfdump-14"
    static let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"

    static var available: Bool {
        LLVMSymbolizer.available && FileManager.default.isExecutableFile(atPath: dwarfdump)
    }

    /// Addresses of line-table rows with line 0 (not end-of-sequence rows).
    static func lineZeroAddresses(_ file: String) throws -> [UInt64] {
        let output = try Referee.run(dwarfdump, ["--debug-line", file])
        var out: [UInt64] = []
        for line in output.split(separator: "\n") {
            let cols = line.split(separator: " ", omittingEmptySubsequences: true)
            guard cols.count >= 6, cols[0].hasPrefix("0x0000"), cols[1] == "0", !line.contains("end_sequence"),
                let address = UInt64(cols[0].dropFirst(2), radix: 16)
            else { continue }
            out.append(address)
        }
        return out
    }
}

@Suite(.enabled(if: LineZero.available, "llvm-symbolizer-14 or llvm-dwarfdump-14 is absent"))
struct LineZeroTests {
    @Test func lineZeroSurvivesTheTableAndTheStore() throws {
        let slice = try #require(try ObjectFile.slices(atPath: LineZero.dsym).first)
        let table = try slice.loadSymbolTable()
        let folder = NSTemporaryDirectory() + "line-zero-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SymbolStore(directory: folder)
        _ = try store.importSlice(slice, source: LineZero.dsym)
        let stored = try #require(try store.source(for: slice.info.uuid, arch: slice.info.arch))

        let addresses = try LineZero.lineZeroAddresses(LineZero.dsym)
        let expected = try Referee.symbolize(LineZero.dsym, arch: "arm64", addresses: addresses)
        var zeros = 0
        for (address, truth) in zip(addresses, expected) {
            guard let innermost = truth.first, innermost.line == 0, !innermost.file.isEmpty else { continue }
            for source in [table as any SymbolSource, stored] {
                let chain = try #require(try source.lookup(address), "nothing at 0x\(String(address, radix: 16))")
                #expect(
                    chain.map { SymbolizerLevel(function: $0.function, file: $0.file ?? "", line: $0.line ?? 0) }
                        == truth)
                #expect(chain.first?.line == 0, "line 0 at 0x\(String(address, radix: 16)) became no line")
            }
            zeros += 1
        }
        #expect(zeros > 0, "the sample has no line-0 row that llvm-symbolizer reports")
    }

    @Test func lineZeroIsPrintedWithItsFile() throws {
        let slice = try #require(try ObjectFile.slices(atPath: LineZero.dsym).first)
        let table = try slice.loadSymbolTable()
        let symbolicator = Symbolicator(locator: try SymbolPathLocator(paths: []))
        let address = try #require(
            try LineZero.lineZeroAddresses(LineZero.dsym).first { table.lookup($0)?.first?.file != nil })
        let result = symbolicator.lookup(address - table.build.textVMAddress, in: table, isReturnAddress: false)
        let innermost = try #require(result.frames.first)
        let report = try #require(innermost.fileName)
        let text = ReportWriter.symbolColumn(innermost)
        #expect(text.hasSuffix("(\(report):0)"), "printed as \(text)")
    }
}

@Suite(.tags(.corpus), .needsCorpus)
struct AppleFrameFormatTests {
    /// Apple's reference output of the same report prints line 0 as `(<compiler-generated>:0)`.
    /// It is atos output for the printed addresses (atos does not step return addresses back),
    /// so ours is made with --no-adjust to look up the same addresses.
    @Test func compilerGeneratedLineZeroAsApplePrintsIt() throws {
        let base = Paths.corpus + "/inket__MacSymbolicator/Resources"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: base + "/Crashes/ios-crash.crash")))
        let apple = try String(contentsOfFile: base + "/Crashes/ios-crash_symbolicated.crash", encoding: .utf8)
        let locator = try SymbolPathLocator(paths: [base + "/dSYMs/iOSCrashingTest.app.dSYM"])
        let service = SymbolicationService(
            locator: locator, options: SymbolicationOptions(adjustReturnAddresses: false))
        let ours = String(decoding: try service.process(bytes, format: nil).output, as: UTF8.self)
        let appleZeros = apple.split(separator: "\n").filter { $0.hasSuffix("(<compiler-generated>:0)") }
        #expect(appleZeros.count >= 2)
        for line in appleZeros {
            // Apple's reference: `SYMBOL (in Image) (File:LINE)`; ours keeps the offset, as
            // Xcode's symbolicated reports do: `SYMBOL + OFFSET (File:LINE)` (README).
            let after = try #require(line.split(separator: "\t", maxSplits: 1).last).trimmingCharacters(in: " ")
            let address = String(after.prefix { $0 != " " })
            let symbol = after.dropFirst(address.count + 1).components(separatedBy: " (in ").first ?? ""
            let ourLine = ours.split(separator: "\n").first { $0.contains(address + " " + symbol + " + ") }
            let found = try #require(ourLine, "no frame \(address) \(symbol) in our output")
            #expect(found.hasSuffix("(<compiler-generated>:0)"), "ours: \(found)")
        }
    }
}
