// A watchOS build (arm64_32: 64-bit instructions, 32-bit pointers, so a 32-bit Mach-O with
// LC_SEGMENT, 12-byte nlist entries and 4-byte DWARF addresses): the Samples' HoldKit sources
// (C, C++ and Objective-C) compiled at test time with the Swift toolchain's clang, linked with
// ld64.lld-14 and given a dSYM by dsymutil-14. The dSYM's table must agree with
// llvm-symbolizer-14 everywhere; the binary alone gives its symbol table, under the same UUID.

import Foundation
import SymbolicateModel
import TestSupport
import Testing

@testable import ObjectFiles

enum WatchOSBuild {
    static let target = "arm64_32-apple-watchos8.0"

    static var toolsExist: Bool {
        ["clang", "ld64.lld-14", "dsymutil-14", "llvm-symbolizer-14"].allSatisfy(toolExists)
            && ((try? run("clang", ["-target", target, "-x", "c", "-c", "/dev/null", "-o", "/dev/null"]))?.status == 0)
    }

    /// HoldKit for arm64_32 in `dir`: the linked binary and its dSYM's DWARF file.
    static func build(in dir: String) throws -> (binary: String, dwarf: String) {
        let sources = Fixtures.repo.path + "/Samples/src"
        var objects: [String] = []
        for source in ["HoldKit/HKStore.c", "HoldKit/HKCodec.cpp", "HoldKit/HKRecord.m"] {
            let language: [String]
            switch (source as NSString).pathExtension {
            case "cpp": language = ["-x", "c++", "-std=c++17", "-fno-exceptions", "-fno-rtti"]
            case "m": language = ["-x", "objective-c", "-fobjc-runtime=watchos-8.0", "-fno-objc-arc"]
            default: language = ["-x", "c", "-std=c11"]
            }
            let object = dir + "/" + ((source as NSString).lastPathComponent as NSString).deletingPathExtension + ".o"
            let compiled = try run(
                "clang",
                ["-target", target] + language + [
                    "-O2", "-g", "-gdwarf-4", "-ffreestanding", "-fno-stack-protector", "-fno-common",
                    "-I\(sources)/HoldKit/include", "-DHOLD_VARIANT=\"watch\"", "-c", sources + "/" + source,
                    "-o", object,
                ])
            try #require(compiled.status == 0, "clang \(source): \(compiled.errors)")
            objects.append(object)
        }
        let binary = dir + "/HoldKit"
        let linked = try run(
            "ld64.lld-14",
            [
                "-arch", "arm64_32", "-platform_version", "watchos", "8.0", "8.0", "-dylib", "-install_name",
                "@rpath/HoldKit.framework/HoldKit", "-undefined", "dynamic_lookup",
            ] + objects + ["-o", binary])
        try #require(linked.status == 0, "ld64.lld-14: \(linked.errors)")
        // The dSYM in a folder of its own: beside the binary, llvm-symbolizer would read it for the
        // binary too, and the binary's own answers are what its symbol table is compared with.
        let dsym = dir + "/dSYMs/HoldKit.framework.dSYM"
        let made = try run("dsymutil-14", [binary, "-o", dsym])
        try #require(made.status == 0, "dsymutil-14: \(made.errors)")
        return (binary, dsym + "/Contents/Resources/DWARF/HoldKit")
    }
}

@Suite(.enabled(if: WatchOSBuild.toolsExist, "needs clang for Apple targets, ld64.lld-14 (lld-14) and dsymutil-14"))
struct WatchOSTests {
    @Test func dsymAndBinaryAgreeWithLLVMSymbolizer() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { Fixtures.cleanup(dir) }
        let (binary, dwarf) = try WatchOSBuild.build(in: dir)

        let slices = try ObjectFile.slices(atPath: dwarf)
        let slice = try #require(slices.first)
        #expect(slices.count == 1)
        #expect(slice.info.arch == .arm64_32 && slice.info.kind == .debugInfo && slice.info.textSize > 0)
        let table = try slice.loadSymbolTable()
        #expect(table.files.contains { $0.hasSuffix("HKInline.h") })
        #expect(table.locations.contains { $0.parent != SymbolTable.none }, "no inline chains")
        #expect(table.functions.count > 5, "\(table.functions.map(\.name))")
        // Every address of the text, where inlining is densest, plus the sampled ones.
        let text = table.build.textVMAddress..<(table.build.textVMAddress + table.build.textSize)
        let addresses = Set(Symbolizer.sampleAddresses(table) + text.prefix(4096))
        let mismatches = try Symbolizer.compare(table, obj: dwarf, arch: "arm64_32", addresses: addresses.sorted())
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(6))")

        // The binary alone: the same build, named from its symbol table, as llvm-symbolizer names it.
        let stripped = try #require(try ObjectFile.slices(atPath: binary).first)
        #expect(stripped.info.uuid == slice.info.uuid && stripped.info.arch == .arm64_32)
        #expect(stripped.info.kind == .symbolTable)
        let symbols = try stripped.loadSymbolTable()
        #expect(symbols.functions.contains { $0.name == "hk_store_put" }, "\(symbols.functions.map(\.name))")
        let symbolMismatches = try Symbolizer.compare(
            symbols, obj: binary, arch: "arm64_32", addresses: Symbolizer.sampleAddresses(symbols))
        #expect(symbolMismatches.isEmpty, "\(symbolMismatches.count) mismatches: \(symbolMismatches.prefix(6))")
    }
}
