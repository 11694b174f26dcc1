// A stripped ELF binary with a `.gnu_debuglink` (`objcopy --only-keep-debug`, `strip`,
// `objcopy --add-gnu-debuglink`) finds its debug file beside it or in `.debug/` beside it and
// answers as that file does, under the binary's name; a debug file whose CRC is not the link's is
// not used. llvm-symbolizer on the unstripped binary is the referee for what the lookups give.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

@Suite(.enabled(if: toolExists("g++") && toolExists("objcopy"), "g++ or objcopy is not installed"))
struct DebugLinkTests {
    enum Place: String, CaseIterable, Sendable {
        case beside, debugFolder, changed
    }

    @Test(arguments: Place.allCases)
    func aStrippedBinaryAnswersFromItsDebugFile(_ place: Place) throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let v = try #require(ELFTests.variants.first { $0.name == "gcc-dwarf5" })
        let binary = try #require(try ELFTests.build(v, in: dir))
        let debug = dir + "/app.debug"
        let stripped = dir + "/app"
        for (tool, arguments) in [
            ("objcopy", ["--only-keep-debug", binary, debug]), ("strip", ["-o", stripped, binary]),
            ("objcopy", ["--add-gnu-debuglink=" + debug, stripped]),
        ] {
            try #require(try run(tool, arguments).status == 0, "\(tool) failed")
        }
        switch place {
        case .beside: break
        case .debugFolder:
            try FileManager.default.createDirectory(atPath: dir + "/.debug", withIntermediateDirectories: false)
            try FileManager.default.moveItem(atPath: debug, toPath: dir + "/.debug/app.debug")
        case .changed:
            // The same build's debug file, one byte longer: its CRC is no longer the link's.
            let handle = try #require(FileHandle(forWritingAtPath: debug))
            try handle.seekToEnd()
            try handle.write(contentsOf: [0])
            try handle.close()
        }

        let slices = try ObjectFile.slices(atPath: stripped)
        let slice = try #require(slices.first)
        #expect(slices.count == 1 && slice.info.name == "app")
        guard place != .changed else {
            #expect(slice.info.kind == .symbolTable && slice.info.path == stripped)
            return
        }
        #expect(slice.info.kind == .debugInfo && slice.info.path.hasSuffix("app.debug"))
        #expect(slice.info.uuid == (try ObjectFile.slices(atPath: binary)).first?.info.uuid)
        let table = try slice.loadSymbolTable()
        let mismatches = try Symbolizer.compare(
            table, obj: binary, arch: nil, addresses: Symbolizer.sampleAddresses(table, limit: 300))
        #expect(mismatches.isEmpty, "\(mismatches.prefix(6))")
    }
}
