// Our dyld shared cache reader against DyldExtractor, an independent reader: for each layout
// Samples/dyldcache/make_cache.py writes (one file of iOS 13-14, split iOS 15 with `.1` and
// `.symbols`, split iOS 16 with v2 `.01` entries), `dyldex -l -a` must list the images we list at
// the addresses we give them, and every symbol `llvm-nm-14` finds in the image `dyldex -e`
// extracts must be what our table says at its address. Caches without local symbols, and
// damaged caches that DyldExtractor cannot referee, are checked against the sample dylibs'
// own symbol tables.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

@Suite(.needsSamples, .needsPython)
struct DyldCacheTests {
    @Test(.needsDyldExtractor, arguments: ["old", "ios15", "ios16"])
    func imagesAndSymbolsMatchDyldExtractor(layout: String) throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let main = try CacheFixture.make(layout, in: dir)
        let cache = try DyldCache(path: main)
        let dyldex = try #require(CacheFixture.dyldex)

        let listing = try ProcessRunner.run(dyldex, ["-l", "-a", main])
        let listed = listing.stdoutText.split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("0x") ? String(line) : nil
        }
        #expect(listed == cache.images.map { "0x\(String($0.address, radix: 16)) : \($0.path)" })
        #expect(cache.hasLocalSymbols)

        for index in cache.images.indices {
            let image = try cache.image(at: index)
            #expect(image.info.kind == .symbolTable)
            let table = try image.symbolTable()
            let out = dir + "/extracted-\(index)"
            let extract = try ProcessRunner.run(dyldex, ["-e", image.installPath, "-o", out, main])
            #expect(extract.status == 0, "\(extract.stderrText)")
            let symbols = try CacheFixture.nm(out)
            let code = symbols.filter { "tT".contains($0.type) }
            #expect(!code.isEmpty)
            for s in code {
                let name = s.name.hasPrefix("_") ? String(s.name.dropFirst()) : s.name
                let found = table.lookup(s.address)?.last?.function
                #expect(found == name, "\(layout) \(image.installPath) 0x\(String(s.address, radix: 16))")
            }
            // And nothing of ours (code or data) that DyldExtractor does not name.
            let names = Set(symbols.map { $0.name.hasPrefix("_") ? String($0.name.dropFirst()) : $0.name })
            for f in table.functions { #expect(names.contains(f.name), "\(f.name) is ours only") }
        }
    }

    @Test func withoutLocalSymbolsExportsAreNamedAndStrippedFunctionsRedacted() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let main = try CacheFixture.make("ios16", in: dir, extra: ["--no-locals"])
        let cache = try DyldCache(path: main)
        #expect(!cache.hasLocalSymbols)
        let image = try cache.image(at: 0)
        #expect(image.info.kind == .exports)
        let table = try image.symbolTable()
        let original = try CacheFixture.nm(
            Repository.samplesBuild + "/ios-arm64-dwarf4/HoldApp.app/Frameworks/HoldKit.framework/HoldKit")
        let slide = image.info.textVMAddress
        for s in original where s.type == "T" || s.type == "t" {
            let name = s.name.hasPrefix("_") ? String(s.name.dropFirst()) : s.name
            let found = table.lookup(s.address + slide)?.last?.function
            if s.type == "T" {
                #expect(found == name)
            } else {
                // A static function: no name in a device's cache, never its neighbour's.
                #expect(found == DyldCacheImage.redacted, "\(name) read as \(found ?? "nothing")")
            }
        }
    }
}
