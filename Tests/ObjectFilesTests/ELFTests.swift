// ELF binaries compiled at test time (gcc and clang, DWARF 4 and 5, zlib-compressed debug
// sections in the SHF_COMPRESSED and the older `.zdebug_*` form, a separate debug file, no debug
// information, stripped) compared with llvm-symbolizer-14, and their build-id notes compared
// with readelf.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

@Suite(.tags(.slow))
struct ELFTests {
    static let header = """
        #pragma once
        namespace util {
        template <typename T> struct Acc {
            T total = 0;
            __attribute__((always_inline)) inline void add(T v) { total += v * 3 + (v >> 2); }
        };
        static inline __attribute__((always_inline)) int mix(int a, int b) {
            int r = a ^ (b << 1);
            if (r & 1) r += 7;
            return r;
        }
        }
        """

    static let source = """
        #include "util.h"
        #include <stdio.h>
        #include <stdlib.h>
        extern "C" int crunch(int n);
        namespace app {
        __attribute__((noinline)) int inner(int x) {
            util::Acc<int> acc;
            for (int i = 0; i < x; i++) acc.add(util::mix(i, x));
            return acc.total;
        }
        static int helper(int v) { return inner(v) + util::mix(v, 3); }
        int outer(int v) { return helper(v) * 2 + helper(v + 1); }
        }
        extern "C" int crunch(int n) {
            int s = 0;
            for (int i = 0; i < n; i++) s += app::outer(i);
            return s;
        }
        __attribute__((cold, noinline)) void fail(const char *m) { fprintf(stderr, "%s\\n", m); abort(); }
        int main(int argc, char **argv) {
            int r = crunch(argc * 10);
            if (r == 42) fail("no");
            printf("%d\\n", r);
            return 0;
        }
        """

    struct Variant {
        var name: String
        var compiler: String
        var flags: [String]
        var strip = false
        /// objcopy options applied to the linked file in place.
        var objcopy: [String] = []
    }

    static let variants: [Variant] = [
        Variant(name: "gcc-dwarf4", compiler: "g++", flags: ["-g", "-gdwarf-4", "-O2"]),
        Variant(name: "gcc-dwarf5", compiler: "g++", flags: ["-g", "-gdwarf-5", "-O2"]),
        Variant(name: "clang-dwarf4", compiler: "clang++", flags: ["-g", "-gdwarf-4", "-O2"]),
        Variant(name: "clang-dwarf5", compiler: "clang++", flags: ["-g", "-gdwarf-5", "-O2"]),
        Variant(name: "gcc-dwarf5-gz", compiler: "g++", flags: ["-g", "-gdwarf-5", "-O2", "-gz"]),
        Variant(name: "clang-dwarf4-gz", compiler: "clang++", flags: ["-g", "-gdwarf-4", "-O2", "-gz"]),
        Variant(
            name: "gcc-dwarf4-zdebug", compiler: "g++", flags: ["-g", "-gdwarf-4", "-O2"],
            objcopy: ["--compress-debug-sections=zlib-gnu"]),
        Variant(name: "gcc-debug-only", compiler: "g++", flags: ["-g", "-O2"], objcopy: ["--only-keep-debug"]),
        Variant(name: "gcc-nodebug", compiler: "g++", flags: ["-O2"]),
        Variant(name: "gcc-stripped-debug", compiler: "g++", flags: ["-g", "-O2"], strip: true),
    ]

    /// Builds one variant in `dir`; nil when the compiler is missing.
    static func build(_ v: Variant, in dir: String) throws -> String? {
        guard toolExists(v.compiler) else { return nil }
        try header.write(toFile: dir + "/util.h", atomically: true, encoding: .utf8)
        try source.write(toFile: dir + "/main.cpp", atomically: true, encoding: .utf8)
        let out = dir + "/" + v.name
        let r = try run(v.compiler, v.flags + ["-Wl,--build-id", "-o", out, dir + "/main.cpp"])
        guard r.status == 0 else {
            Issue.record("\(v.compiler) failed: \(r.errors)")
            return nil
        }
        if v.strip { _ = try run("strip", ["--strip-debug", out]) }
        if !v.objcopy.isEmpty {
            let r = try run("objcopy", v.objcopy + [out])
            guard r.status == 0 else {
                Issue.record("objcopy failed: \(r.errors)")
                return nil
            }
        }
        return out
    }

    @Test(.enabled(if: toolExists("g++"), "g++ is not installed"), arguments: names(builtWith: "g++"))
    func gccBuildsMatchLLVMSymbolizer(_ name: String) throws {
        try matchesLLVMSymbolizer(name)
    }

    @Test(.enabled(if: toolExists("clang++"), "clang++ is not installed"), arguments: names(builtWith: "clang++"))
    func clangBuildsMatchLLVMSymbolizer(_ name: String) throws {
        try matchesLLVMSymbolizer(name)
    }

    static func names(builtWith compiler: String) -> [String] {
        variants.filter { $0.compiler == compiler }.map(\.name)
    }

    func matchesLLVMSymbolizer(_ name: String) throws {
        let v = try #require(Self.variants.first { $0.name == name })
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let binary = try #require(try Self.build(v, in: dir), "\(v.compiler) failed to build \(name)")
        let slices = try ObjectFile.slices(atPath: binary)
        #expect(slices.count == 1)
        let slice = try #require(slices.first)
        let hasDebug = v.flags.contains("-g") && !v.strip
        #expect(slice.info.kind == (hasDebug ? .debugInfo : .symbolTable))
        #expect(slice.info.arch == .x86_64 || slice.info.arch.rawValue == "aarch64")
        #expect(slice.info.name == name)
        #expect(slice.info.textSize > 0)

        let notes = try run("readelf", ["-n", binary]).output
        let expected = notes.split(separator: "\n").first { $0.contains("Build ID:") }?.split(separator: " ").last.map(
            String.init)
        #expect(expected != nil && slice.info.uuid.compactString == expected, "readelf: \(expected ?? "none")")

        let table = try slice.loadSymbolTable()
        if hasDebug {
            #expect(table.files.contains { $0.hasSuffix("/util.h") })
            #expect(table.locations.contains { $0.parent != SymbolTable.none }, "no inline chains")
        } else {
            // Only STT_FILE names of local symbols, never a line.
            #expect(table.files.allSatisfy { !$0.contains("/") }, "\(table.files)")
            #expect(table.locations.allSatisfy { $0.line == SymbolTable.none && $0.parent == SymbolTable.none })
        }
        var addresses = Symbolizer.sampleAddresses(table, limit: 500)
        // Every address of the functions compiled here, where inlining is densest.
        if let low = table.ranges.first(where: { table.lookup($0.start)?.last?.function == "crunch" })?.start {
            addresses += (0..<200).map { low + UInt64($0) }
        }
        let mismatches = try Symbolizer.compare(
            table, obj: binary, arch: nil, addresses: Array(Set(addresses)).sorted())
        #expect(mismatches.isEmpty, "\(name): \(mismatches.count) mismatches: \(mismatches.prefix(6))")
    }
}
