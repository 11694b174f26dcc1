// `symbolicate lookup` with atos's flags (-i, -d, -fullPath, -s, -l, -f, -arch), run as the built
// binary over every instruction of the Samples dSYMs' __text sections. The expected lines come
// from llvm-symbolizer-14 --inlines on the same DWARF file (Swift-mangled names through the
// toolchain's swift-demangle --simplified, as Apple's reports show them), never from our output.

import Foundation
import TestSupport
import Testing

/// llvm-symbolizer-14's answer for one address: the inline chain, innermost first.
struct AtosExpectation {
    var address: UInt64
    /// Empty where llvm-symbolizer has a level without a name (atos prints the bare address).
    var levels: [SymbolizerLevel]

    /// The atos lines for this address: one per level with -i, else the outermost only. A level
    /// with a name but no file (padding after a function, named from the symbol table) ends in
    /// `+ `: atos adds the offset in the symbol, which llvm-symbolizer does not give.
    func lines(image: String, inlines: Bool, fullPath: Bool) -> [String] {
        guard !levels.isEmpty else { return ["0x" + String(address, radix: 16)] }
        let shown = inlines ? levels : [levels[levels.count - 1]]
        return shown.map { level in
            guard !level.file.isEmpty else { return "\(level.function) (in \(image)) + " }
            let file = fullPath ? level.file : String(level.file.split(separator: "/").last ?? "")
            return "\(level.function) (in \(image)) (\(file):\(level.line))"
        }
    }
}

enum AtosReferee {
    static let objdump = "/usr/bin/llvm-objdump-14"
    static var available: Bool { LLVMSymbolizer.available && FileManager.default.isExecutableFile(atPath: objdump) }

    /// Every 4th byte of the slice's __text section, with llvm-symbolizer's inline chain for each.
    static func expectations(dwarfFile: String, arch: String) throws -> [AtosExpectation] {
        let headers = try run(objdump, ["--macho", "--section-headers", "--arch=\(arch)", dwarfFile])
        guard
            let text = headers.split(separator: "\n").first(where: { $0.contains(" __text ") }),
            case let columns = text.split(separator: " "), columns.count >= 4,
            let size = UInt64(columns[2], radix: 16), let start = UInt64(columns[3], radix: 16)
        else { throw RefereeFailure("no __text section in \(dwarfFile) (\(arch))") }
        let addresses = Array(stride(from: start, to: start + size, by: 4))
        let chains = try LLVMSymbolizer.levels(obj: dwarfFile, arch: arch, addresses: addresses, demangle: true)
        let result = zip(addresses, chains).map { address, levels in
            AtosExpectation(address: address, levels: levels.contains { $0.function.isEmpty } ? [] : levels)
        }
        return try demangleSwift(result)
    }

    /// Swift-mangled names (`$s...`) as swift-demangle --simplified prints them.
    static func demangleSwift(_ expectations: [AtosExpectation]) throws -> [AtosExpectation] {
        let names = Set(expectations.flatMap { $0.levels.map(\.function) }.filter { $0.hasPrefix("$s") })
        guard !names.isEmpty else { return expectations }
        let ordered = names.sorted()
        let output = try run("/usr/bin/env", ["swift-demangle", "--simplified", "--compact"] + ordered)
        let demangled = output.split(separator: "\n").map(String.init)
        guard demangled.count == ordered.count else { throw RefereeFailure("swift-demangle answered \(output)") }
        let table = Dictionary(uniqueKeysWithValues: zip(ordered, demangled))
        return expectations.map { e in
            var e = e
            for i in e.levels.indices { e.levels[i].function = table[e.levels[i].function] ?? e.levels[i].function }
            return e
        }
    }

    static func run(_ tool: String, _ args: [String]) throws -> String {
        try ProcessRunner.run(tool, args).stdoutText
    }
}

/// Our lines against the referee's: equal, or for a line the referee gives without a file, the
/// same name followed by a decimal offset.
func sameAtosLines(_ ours: [String], _ theirs: [String]) -> Bool {
    guard ours.count == theirs.count else { return false }
    return zip(ours, theirs).allSatisfy { ours, theirs in
        let parts = theirs.components(separatedBy: " ~> ")
        let mine = ours.components(separatedBy: " ~> ")
        guard parts.count == mine.count else { return false }
        return zip(mine, parts).allSatisfy { m, t in
            guard t.hasSuffix(" + ") else { return m == t }
            return m.hasPrefix(t) && !m.dropFirst(t.count).isEmpty && m.dropFirst(t.count).allSatisfy(\.isNumber)
        }
    }
}

struct RefereeFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite(.enabled(if: AtosReferee.available, "llvm-symbolizer-14 / llvm-objdump-14 are not installed"))
struct AtosFlagsTests {
    struct Slice: CustomStringConvertible, Sendable {
        var variant: String
        var image: String
        var arch: String
        var bundle: String {
            Paths.samples + "/build/\(variant)/\(image).\(image == "HoldApp" ? "app" : "framework").dSYM"
        }
        var dwarfFile: String { bundle + "/Contents/Resources/DWARF/\(image)" }
        var description: String { "\(variant) \(image) \(arch)" }
    }

    static let slices = [
        Slice(variant: "ios-arm64-dwarf5", image: "HoldApp", arch: "arm64"),
        Slice(variant: "ios-arm64-dwarf4", image: "HoldKit", arch: "arm64"),
        Slice(variant: "universal-dwarf5", image: "HoldKit", arch: "x86_64"),
    ]

    static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

    static func lookup(_ slice: Slice, _ flags: [String], _ addresses: [String]) throws -> [String] {
        let r = try CLI.run(["lookup", "-o", slice.bundle, "-arch", slice.arch] + flags + addresses)
        #expect(r.status == 0, "\(slice): \(r.stderr)")
        return r.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test(arguments: slices)
    func inlineChainsMatchTheReferee(_ slice: Slice) throws {
        let expected = try AtosReferee.expectations(dwarfFile: slice.dwarfFile, arch: slice.arch)
        #expect(expected.contains { $0.levels.count > 1 }, "\(slice) has no inlined code to check")
        let addresses = expected.map { Self.hex($0.address) }
        for fullPath in [false, true] {
            let ours = try Self.lookup(slice, ["-i"] + (fullPath ? ["-fullPath"] : []), addresses)
            let theirs = expected.flatMap { $0.lines(image: slice.image, inlines: true, fullPath: fullPath) }
            #expect(sameAtosLines(ours, theirs), "\(slice) -i\(fullPath ? " -fullPath" : "")")
        }
        let outermost = try Self.lookup(slice, [], addresses)
        #expect(
            sameAtosLines(outermost, expected.flatMap { $0.lines(image: slice.image, inlines: false, fullPath: false) })
        )
    }

    @Test(arguments: slices)
    func delimiterJoinsAnAddressesInlinedFunctions(_ slice: Slice) throws {
        let expected = try AtosReferee.expectations(dwarfFile: slice.dwarfFile, arch: slice.arch)
        let ours = try Self.lookup(slice, ["-i", "-d", " ~> "], expected.map { Self.hex($0.address) })
        let theirs = expected.map {
            $0.lines(image: slice.image, inlines: true, fullPath: false).joined(separator: " ~> ")
        }
        #expect(sameAtosLines(ours, theirs))
        #expect(ours.contains { $0.contains(" ~> ") })
    }

    @Test(arguments: slices)
    func slideLoadAddressAndFileGiveTheSameAnswers(_ slice: Slice) throws {
        let expected = try AtosReferee.expectations(dwarfFile: slice.dwarfFile, arch: slice.arch)
        let theirs = expected.flatMap { $0.lines(image: slice.image, inlines: true, fullPath: false) }
        let vmaddr = try #require(try Self.textVMAddress(slice))
        let slide: UInt64 = 0x2bc_4000
        let slid = expected.map { Self.hex($0.address + slide) }
        #expect(sameAtosLines(try Self.lookup(slice, ["-i", "-s", Self.hex(slide)], slid), theirs))
        #expect(sameAtosLines(try Self.lookup(slice, ["-i", "-l", Self.hex(vmaddr + slide)], slid), theirs))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("atos-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        // Mixed separators and blank lines, as addresses pasted from a report arrive.
        let text = slid.enumerated().map { $0.offset % 3 == 0 ? $0.element + "\n\n" : $0.element + " \t" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        #expect(sameAtosLines(try Self.lookup(slice, ["-i", "-s", Self.hex(slide), "-f", file], []), theirs))
    }

    static func textVMAddress(_ slice: Slice) throws -> UInt64? {
        let output = try AtosReferee.run(
            AtosReferee.objdump, ["--macho", "--private-headers", "--arch=\(slice.arch)", slice.dwarfFile])
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for (i, line) in lines.enumerated() where line == "segname __TEXT" && i + 1 < lines.count {
            let parts = lines[i + 1].split(separator: " ")
            if parts.count == 2, parts[0] == "vmaddr" { return UInt64(parts[1].dropFirst(2), radix: 16) }
        }
        return nil
    }

    @Test func archTheFileDoesNotHaveIsNamedWithTheArchsItHas() throws {
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM"
        let r = try CLI.run(["lookup", "-o", dsym, "-arch", "arm64e", "0x100004110"])
        #expect(r.status == 65)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("has no arm64e slice (it has: arm64)"), "\(r.stderr)")

        let universal = Paths.samples + "/build/universal-dwarf5/HoldKit.framework.dSYM"
        let u = try CLI.run(["lookup", "-o", universal, "-arch", "i386", "0x1000"])
        #expect(u.status == 65)
        #expect(u.stderr.contains("it has: arm64, x86_64") || u.stderr.contains("it has: x86_64, arm64"), "\(u.stderr)")
    }

    /// An .app holds its executable and, under Frameworks/, the frameworks it embeds, all arm64:
    /// -arch arm64 cannot tell them apart, so neither is taken for the other (the framework's
    /// symbols are no answer for the app's addresses). Its executable, named with -o, is.
    @Test func anAppWithFrameworksOfTheSameArchIsRefusedNotGuessed() throws {
        let app = Paths.samples + "/build/ios-arm64-dwarf4/HoldApp.app"
        for flags in [["-arch", "arm64"], []] {
            let r = try CLI.run(["lookup", "-o", app] + flags + ["-l", "0x102bc4000", "0x102bc80e0"])
            #expect(r.status == 64, "\(flags): \(r.stdoutText)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.contains("HoldApp arm64") && r.stderr.contains("HoldKit arm64"), "\(r.stderr)")
            #expect(r.stderr.contains("give -o the .dSYM or binary"), "\(r.stderr)")
        }
        let binary = try CLI.run([
            "lookup", "-o", app + "/HoldApp", "-arch", "arm64", "-l", "0x102bc4000", "0x102bc80e0",
        ])
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(
            binary.stdoutText.hasPrefix("closure #1 in ViewController.viewDidLoad() (in HoldApp)"),
            "\(binary.stdoutText)")
    }

    /// A folder with a build's dSYM and its binary holds one build: its debug information answers.
    @Test func aDSYMBesideItsBinaryIsOneBuild() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("atos-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let variant = Paths.samples + "/build/ios-arm64-dwarf4"
        try FileManager.default.copyItem(atPath: variant + "/HoldApp.app.dSYM", toPath: folder + "/HoldApp.app.dSYM")
        try FileManager.default.copyItem(atPath: variant + "/HoldApp.app/HoldApp", toPath: folder + "/HoldApp")
        let r = try CLI.run(["lookup", "-o", folder, "-l", "0x102bc4000", "0x102bc80e0"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutText == "closure #1 in ViewController.viewDidLoad() (in HoldApp) (ViewController.c:26)\n")
    }

    @Test(arguments: [
        (["0x100004110", "main+4"], "'main+4' (argument 2)"),
        (["0x10000411g"], "'0x10000411g' (argument 1)"),
    ])
    func anAddressThatIsNotANumberIsBadInput(_ addresses: [String], _ named: String) throws {
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM"
        let r = try CLI.run(["lookup", "-o", dsym] + addresses)
        #expect(r.status == 65)
        #expect(r.stdout.isEmpty, "nothing is printed before the bad address is found")
        #expect(r.stderr.contains(named) && r.stderr.contains("is not an address"), "\(r.stderr)")
    }

    /// A folder given to -f is named as not being the file of addresses -f reads.
    @Test func aFolderForTheAddressFileIsNamedAsSuch() throws {
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM"
        let r = try CLI.run(["lookup", "-o", dsym, "-f", Paths.samples])
        #expect(r.status == 65)
        #expect(r.stderr.contains("is a folder, expected a file of addresses"), "\(r.stderr)")
        #expect(!r.stderr.contains("crash report"), "\(r.stderr)")
    }

    @Test func aBadAddressInAFileIsNamedWithItsLine() throws {
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM"
        let r = try CLI.run(["lookup", "-o", dsym, "-f", "-"], stdin: Array("0x100004110\n0x100004114 oops\n".utf8))
        #expect(r.status == 65)
        #expect(r.stderr.contains("'oops' (stdin line 2)"), "\(r.stderr)")
    }

    /// A file written with CRLF line ends reads as one address a line, and a bad word is named
    /// by its line all the same ("\r\n" is one Swift character, neither "\r" nor "\n").
    @Test func crlfLinesAreLines() throws {
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM"
        let lf = try CLI.run(["lookup", "-o", dsym, "-f", "-"], stdin: Array("0x100004110\n0x100004114\n".utf8))
        let crlf = try CLI.run(["lookup", "-o", dsym, "-f", "-"], stdin: Array("0x100004110\r\n0x100004114\r\n".utf8))
        #expect(lf.status == 0 && crlf.status == 0, "\(crlf.stderr)")
        #expect(crlf.stdout == lf.stdout)
        let bad = try CLI.run(
            ["lookup", "-o", dsym, "-f", "-"], stdin: Array("0x100004110\r\n0x100004114 oops\r\n".utf8))
        #expect(bad.stderr.contains("'oops' (stdin line 2)"), "\(bad.stderr)")
    }

    @Test func slideAndLoadAddressTogetherIsUsage() throws {
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM"
        let r = try CLI.run(["lookup", "-o", dsym, "-s", "0x1000", "-l", "0x100001000", "0x100005110"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("either -l LOADADDR or -s SLIDE"))
    }
}
