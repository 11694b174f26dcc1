// `lookup --build-id`: addresses looked up in the store's build of an ELF build id (or a Mach-O
// UUID), as a server-side Swift report names its images. An ELF built here with an inlined
// helper is imported, then looked up by its build id at every instruction of its functions, each
// held to llvm-symbolizer's inline chain (function and line per level); a UUID of the Samples is
// looked up the same way and answers what `-o` with its dSYM answers; an id the store lacks is
// named, with what to do.

import Foundation
import TestSupport
import Testing

@Suite struct LookupBuildIDTests {
    static let clang: String? = ProcessRunner.which("clang")

    @Test(.enabled(if: clang != nil && LLVMSymbolizer.available, "needs clang and llvm-symbolizer-14"))
    func anELFBuildIsLookedUpByItsBuildID() throws {
        let dir = try Repository.scratchFolder("lookup-build-id")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/crash.c"
        try Data(
            """
            static inline __attribute__((always_inline)) int twice(int x) {
                volatile int y = x;
                return y * 2 + 1;
            }
            __attribute__((noinline)) int work(int x) {
                return twice(x) + twice(x + 3);
            }
            int main(int argc, char **argv) { return work(argc); }

            """.utf8
        ).write(to: URL(fileURLWithPath: source))
        let binary = dir + "/crash"
        let built = try ProcessRunner.run(
            Self.clang ?? "clang", ["-g", "-O1", "-Wl,--build-id=sha1", "-o", binary, source])
        try #require(built.status == 0, "\(built.stderrText)")
        let store = dir + "/store"
        let imported = try CLI.run(["import", "--store", store, "--json", binary])
        try #require(imported.status == 0, "\(imported.stderr)")
        let text = imported.stdoutText
        let range = try #require(text.range(of: #""uuid":"([0-9A-F-]+)""#, options: .regularExpression))
        let buildID = String(text[range].dropFirst(8).dropLast()).lowercased()
        #expect(buildID.count == 40, "a SHA-1 build id: \(buildID)")

        // Every address of work(): from its symbol to the next one, as nm lists them.
        let nm = try ProcessRunner.run("/usr/bin/llvm-nm-14", ["--numeric-sort", "--defined-only", binary])
        let symbols = nm.stdoutText.split(separator: "\n").compactMap { line -> (UInt64, String)? in
            let words = line.split(separator: " ")
            guard words.count == 3, let address = UInt64(words[0], radix: 16) else { return nil }
            return (address, String(words[2]))
        }
        let start = try #require(symbols.firstIndex { $0.1 == "work" })
        let end = symbols[(start + 1)...].first { $0.0 > symbols[start].0 }?.0 ?? symbols[start].0 + 16
        let addresses = Array(stride(from: symbols[start].0, to: end, by: 1))
        let expected = try LLVMSymbolizer.levels(obj: binary, arch: nil, addresses: addresses, demangle: true)
        let input = addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n")
        let looked = try CLI.run(
            ["lookup", "--store", store, "--build-id", buildID, "-i", "-d", "\t"], stdin: Array(input.utf8))
        #expect(looked.status == 0, "\(looked.stderr)")
        let lines = looked.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        try #require(lines.count == addresses.count)
        var inlined = 0
        for (i, line) in lines.enumerated() {
            let levels = line.split(separator: "\t").map(String.init)
            let want = expected[i]
            #expect(levels.count == want.count, "0x\(String(addresses[i], radix: 16)): \(line) against \(want)")
            for (got, level) in zip(levels, want) {
                // llvm-symbolizer's nameless level (a line row outside every function) reads `??` here.
                let name = level.function.isEmpty ? "??" : level.function
                #expect(got.hasPrefix(name + " (in crash)"), "\(got) against \(level)")
                #expect(got.hasSuffix(":\(level.line))"), "\(got) against \(level)")
            }
            if want.count > 1 { inlined += 1 }
        }
        #expect(inlined > 0, "the helper is inlined somewhere in work()")

        let unknown = try CLI.run(["lookup", "--store", store, "--build-id", "00112233445566778899", "0x1000"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("the store has no build 00112233445566778899"), "\(unknown.stderr)")
        let both = try CLI.run(["lookup", "--store", store, "--build-id", buildID, "-o", binary, "0x1000"])
        #expect(both.status == 64)
    }

    @Test(.enabled(if: Repository.samplesBuilt, "Samples/build is missing: run Samples/generate.sh"))
    func aUUIDIsLookedUpAsItsDSYMIs() throws {
        let dir = try Repository.scratchFolder("lookup-uuid")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let dsym = Repository.samplesBuild + "/ios-arm64-dwarf5/HoldKit.framework.dSYM"
        let imported = try CLI.run(["import", "--store", dir + "/store", "--json", dsym])
        try #require(imported.status == 0, "\(imported.stderr)")
        let text = imported.stdoutText
        let range = try #require(text.range(of: #""uuid":"([0-9A-F-]+)""#, options: .regularExpression))
        let uuid = String(text[range].dropFirst(8).dropLast())
        let addresses = ["-l", "0x1030a0000", "-i", "0x1030a4044", "0x1030a40ac", "0x1030a41a8"]
        let fromStore = try CLI.run(["lookup", "--store", dir + "/store", "--build-id", uuid] + addresses)
        let fromFile = try CLI.run(["lookup", "-o", dsym] + addresses)
        #expect(fromStore.status == 0 && fromFile.status == 0, "\(fromStore.stderr)\(fromFile.stderr)")
        #expect(fromStore.stdoutText == fromFile.stdoutText)
        #expect(fromStore.stdoutText.contains("HKStore.c"), "\(fromStore.stdoutText)")
    }
}
