// Our own DIE reader held to libdwarf's: every Samples dSYM slice and every corpus dSYM slice
// (../shared/corpus/real) is read by both, and the DebugInfo they produce must be identical unit
// by unit (offsets, unit ranges, functions and inlined copies with their names, scopes, call
// sites, line rows and files); the symbol tables built from them (our reader streaming units
// through the builder, libdwarf's read whole) must answer every address alike. The same
// files read on one thread and on four must give equal results, whatever thread read which unit.

import Foundation
import SymbolicateModel
import Testing

@testable import ObjectFiles

struct DieReaderCrossCheckTests {
    static func sampleDSYMs() -> [String] {
        SamplesTests.variants().flatMap { (try? SymbolFileFinder.objectFiles(in: $0)) ?? [] }.filter {
            $0.contains(".dSYM/")
        }
    }

    static func debugSections(_ slice: ObjectSlice) throws -> (sections: [String: ByteReader], pointerSize: Int) {
        switch slice.format {
        case .machO(let m): return (try m.debugSections(), m.is64 ? 8 : 4)
        case .elf(let e): return (try e.debugSections(), e.is64 ? 8 : 4)
        }
    }

    /// Differences between two readings of one file, unit by unit (empty when identical).
    static func differences(_ a: DebugInfo, _ b: DebugInfo) -> [String] {
        var out: [String] = []
        guard a.units.count == b.units.count else { return ["\(a.units.count) units against \(b.units.count)"] }
        func name(_ info: DebugInfo, _ n: DebugInfo.Node) -> String { info.names[Int(n.name)] }
        func file(_ info: DebugInfo, _ f: UInt32) -> String { Int(f) < info.files.count ? info.files[Int(f)] : "-" }
        for (ua, ub) in zip(a.units, b.units) {
            let unit = "unit at \(ua.offset)"
            guard ua.offset == ub.offset else {
                out.append("\(unit): other reader has unit at \(ub.offset)")
                continue
            }
            if ua.ranges.map({ [$0.start, $0.end] }) != ub.ranges.map({ [$0.start, $0.end] }) {
                out.append("\(unit): unit ranges differ")
            }
            if Array(a.scopes[ua.scopes]) != Array(b.scopes[ub.scopes]) { out.append("\(unit): scopes differ") }
            let sa = a.sequences[ua.sequences].map { [$0.low, $0.high, UInt64($0.intervals.count)] }
            let sb = b.sequences[ub.sequences].map { [$0.low, $0.high, UInt64($0.intervals.count)] }
            if sa != sb { out.append("\(unit): line sequences differ") }
            let la = a.sequences[ua.sequences].flatMap {
                a.lines[$0.intervals].map { "\($0.start)-\($0.end) \(file(a, $0.file)):\($0.line)" }
            }
            let lb = b.sequences[ub.sequences].flatMap {
                b.lines[$0.intervals].map { "\($0.start)-\($0.end) \(file(b, $0.file)):\($0.line)" }
            }
            if la != lb { out.append("\(unit): line rows differ") }
            let na = Set(a.scopes[ua.scopes].map(\.node)).sorted().map { i in
                let n = a.nodes[Int(i)]
                return "\(i) \(name(a, n)) \(n.entry) \(n.parent) \(file(a, n.callFile)):\(n.callLine)"
            }
            let nb = Set(b.scopes[ub.scopes].map(\.node)).sorted().map { i in
                let n = b.nodes[Int(i)]
                return "\(i) \(name(b, n)) \(n.entry) \(n.parent) \(file(b, n.callFile)):\(n.callLine)"
            }
            if na != nb {
                out.append("\(unit): functions differ, first: \(zip(na, nb).first { $0 != $1 } ?? ("", ""))")
            }
        }
        if a.files != b.files { out.append("file tables differ") }
        if a.names != b.names { out.append("name tables differ") }
        if a.nodes != b.nodes { out.append("node tables differ") }
        return out
    }

    static func tablesEqual(_ a: SymbolTable, _ b: SymbolTable) -> Bool {
        a.ranges == b.ranges && a.locations == b.locations && a.functions == b.functions && a.files == b.files
    }

    /// Addresses where two tables answer differently: every range boundary of either and the
    /// address before it. (Streaming numbers files and locations in address order, the whole-file
    /// path in unit order, so the arrays may be permuted while every answer is the same.)
    static func lookupDifferences(_ a: SymbolTable, _ b: SymbolTable) -> [UInt64] {
        var addresses = Set(a.ranges.map(\.start))
        addresses.formUnion(b.ranges.map(\.start))
        var out: [UInt64] = []
        for start in addresses.sorted() {
            for address in [start &- 1, start] where a.lookup(address) != b.lookup(address) { out.append(address) }
        }
        return out
    }

    func crossCheck(_ files: [String]) throws -> Int {
        var slices = 0
        for path in files {
            for slice in try ObjectFile.slices(atPath: path) where slice.info.kind == .debugInfo {
                let (sections, pointerSize) = try Self.debugSections(slice)
                let ours = try DebugInfoReader.read(
                    sections: sections, pointerSize: pointerSize, backend: .own(threads: 1))
                let theirs = try DebugInfoReader.read(sections: sections, pointerSize: pointerSize, backend: .libdwarf)
                #expect(!ours.units.isEmpty, "\(path) \(slice.info.arch): no units")
                let diff = Self.differences(ours, theirs)
                #expect(diff.isEmpty, "\(path) \(slice.info.arch): \(diff.count) differences, first: \(diff.prefix(3))")
                let a = try slice.loadSymbolTable(backend: .own(threads: 2))
                let b = try slice.loadSymbolTable(backend: .libdwarf)
                let differ = Self.lookupDifferences(a, b)
                #expect(
                    differ.isEmpty,
                    "\(path) \(slice.info.arch): \(differ.count) addresses answered differently, first: \(differ.prefix(5))"
                )
                #expect(
                    a.ranges.count == b.ranges.count && a.locations.count == b.locations.count,
                    "\(path) \(slice.info.arch)")
                slices += 1
            }
        }
        return slices
    }

    @Test(.enabled(if: !sampleDSYMs().isEmpty, "no Samples builds in Samples/build"))
    func samplesReadAlikeByBothReaders() throws {
        let n = try crossCheck(Self.sampleDSYMs())
        #expect(n >= 8)
    }

    @Test(.enabled(if: !DwarfCorpusTests.corpusDSYMs().isEmpty, "no corpus dSYMs at ../shared/corpus/real"))
    func corpusReadAlikeByBothReaders() throws {
        let n = try crossCheck(DwarfCorpusTests.corpusDSYMs())
        #expect(n > 0)
    }

    /// gcc and clang ELF builds, DWARF 4 and 5 (gcc's DW_FORM_implicit_const and line_strp
    /// names, compressed sections), built at test time as ELFTests builds them.
    @Test(.enabled(if: toolExists("g++") || toolExists("clang++"), "neither g++ nor clang++ is installed"))
    func elfBuildsReadAlikeByBothReaders() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        var binaries: [String] = []
        for v in ELFTests.variants where v.flags.contains("-g") && !v.strip {
            if let binary = try ELFTests.build(v, in: dir) { binaries.append(binary) }
        }
        #expect(try crossCheck(binaries) == binaries.count)
    }

    /// One thread or four, the same DebugInfo and the same symbol table.
    @Test(.enabled(if: !sampleDSYMs().isEmpty, "no Samples builds in Samples/build"))
    func threadCountChangesNothing() throws {
        var files = Self.sampleDSYMs()
        files += DwarfCorpusTests.corpusDSYMs()
        for path in files {
            for slice in try ObjectFile.slices(atPath: path) where slice.info.kind == .debugInfo {
                let (sections, pointerSize) = try Self.debugSections(slice)
                let one = try DebugInfoReader.read(
                    sections: sections, pointerSize: pointerSize, backend: .own(threads: 1))
                let four = try DebugInfoReader.read(
                    sections: sections, pointerSize: pointerSize, backend: .own(threads: 4))
                let diff = Self.differences(one, four)
                #expect(diff.isEmpty, "\(path) \(slice.info.arch): \(diff.prefix(3))")
                let a = try slice.loadSymbolTable(backend: .own(threads: 1))
                let b = try slice.loadSymbolTable(backend: .own(threads: 4))
                let same = Self.tablesEqual(a, b)
                #expect(same, "\(path) \(slice.info.arch): symbol tables differ between 1 and 4 threads")
            }
        }
    }
}
