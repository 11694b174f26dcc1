// A Swift runtime crash report from an arm64 Linux machine: the runtime names the arch `arm64`,
// ELF files `aarch64`, and the two must match. The toolchain here cannot build Swift for aarch64,
// so the program is C, built at test time with the toolchain's clang and lld for
// aarch64-linux-gnu (its code segment after a read-only one, on 64 KiB pages), and the reports
// are written in the runtime's layout for a crash in it. llvm-symbolizer is the referee.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

/// The toolchain's clang, beside swiftc, when lld is there too.
enum ToolchainClang {
    static let path: String? = {
        let toolchain = ProcessRunner.which("swiftc").map { ($0 as NSString).deletingLastPathComponent + "/clang" }
        guard let path = toolchain, FileManager.default.isExecutableFile(atPath: path), ProcessRunner.exists("ld.lld")
        else { return nil }
        return path
    }()
}

@Suite(.needsReferee, .enabled(if: ToolchainClang.path != nil, "no clang with lld for aarch64-linux-gnu"))
struct SwiftBacktraceArm64Tests {
    static let source = """
        int *volatile target;
        volatile int sink;
        static inline __attribute__((always_inline)) int helper(int *p) { return *p + 1; }
        __attribute__((noinline)) int crash(int *p) { return helper(p) * 2; }
        void _start(void) { sink = crash(target); for (;;) {} }

        """

    /// The program, its build id, the address of `crash` (where it faults) and the return address
    /// after its call in `_start`, as file addresses.
    static func build(in folder: String) throws -> (path: String, id: String, pc: UInt64, ra: UInt64) {
        let clang = try #require(ToolchainClang.path)
        try source.write(toFile: folder + "/crash.c", atomically: true, encoding: .utf8)
        let binary = folder + "/crash"
        let built = try ProcessRunner.run(
            clang,
            [
                "-target", "aarch64-linux-gnu", "-g", "-O1", "-nostdlib", "-fuse-ld=lld", "-fPIE", "-pie",
                "-Wl,--build-id=sha1", "crash.c", "-o", binary,
            ], directory: folder)
        try #require(built.status == 0, "\(built.stderrText)")
        let notes = try ProcessRunner.run("readelf", ["-n", binary]).stdoutText
        let id = try #require(
            notes.split(separator: "\n").first { $0.contains("Build ID:") }?.split(separator: " ").last)
        let disassembly = try ProcessRunner.run("llvm-objdump-14", ["-d", "--no-show-raw-insn", binary]).stdoutText
        var pc: UInt64?
        var call: UInt64?
        for line in disassembly.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" })
            if line.hasSuffix("<crash>:"), let first = fields.first { pc = UInt64(first, radix: 16) }
            if fields.count > 1, fields[1] == "bl", call == nil { call = UInt64(fields[0], radix: 16) }
        }
        return (binary, String(id), try #require(pc), try #require(call) + 4)
    }

    static let base: UInt64 = 0xaaaa_b000_0000

    static func reports(_ b: (path: String, id: String, pc: UInt64, ra: UInt64)) -> [String] {
        func hex(_ v: UInt64) -> String {
            let digits = String(v, radix: 16)
            return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
        }
        let text = """
            *** Program crashed: Bad pointer dereference at 0x0000000000000000 ***

            Platform: arm64 Linux (Debian GNU/Linux 12 (bookworm))

            Thread 0 "crash" crashed:

            0      \(hex(base + b.pc))
            1 [ra] \(hex(base + b.ra))
            2 [ra] \(hex(0x10))


            Images (3 omitted):

            \(hex(base))\u{2013}\(hex(base + 0x10400)) \(b.id) crash \(b.path)

            """
        let json = """
            { "kind": "crashReport", "architecture": "arm64", "threads": [ { "name": "crash", "crashed": true, \
            "frames": [ { "kind": "programCounter", "address": "\(hex(base + b.pc))" }, \
            { "kind": "returnAddress", "address": "\(hex(base + b.ra))" }, \
            { "kind": "returnAddress", "address": "\(hex(0x10))" } ] } ], \
            "images": [ { "name": "crash", "buildId": "\(b.id)", "path": "\(b.path)", \
            "baseAddress": "\(hex(base))", "endOfText": "\(hex(base + 0x10400))" } ] }

            """
        return [text, json]
    }

    @Test func arm64ReportsMatchAarch64Files() throws {
        let folder = try Repository.scratchFolder("swift-backtrace-arm64")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let build = try Self.build(in: folder)
        let expected = try LLVMSymbolizer.levels(obj: build.path, arch: nil, addresses: [build.pc, build.ra - 1])
        #expect(expected.allSatisfy { $0.first?.function.isEmpty == false })
        #expect(expected[0].count == 2, "helper is inlined into crash")
        let service = SymbolicationService(locator: try SymbolPathLocator(paths: [build.path]))
        for report in Self.reports(build) {
            let processed = try service.process(Array(report.utf8), format: nil)
            #expect(processed.report.arch == Arch("aarch64"))
            for (f, levels) in expected.enumerated() {
                let result = try #require(processed.outcome.results[FrameID(backtrace: 0, frame: f)])
                #expect(result.status == .symbolicated)
                let ours = result.frames.map {
                    SymbolizerLevel(function: $0.rawSymbol ?? $0.symbol, file: $0.file ?? "", line: $0.line ?? 0)
                }
                #expect(ours == levels, "frame \(f)")
            }
            // The frame outside every image is named as such; the others are symbolicated all the same.
            #expect(processed.outcome.results[FrameID(backtrace: 0, frame: 2)]?.status == .unknownImage)
        }
    }
}
