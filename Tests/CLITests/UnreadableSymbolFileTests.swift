// A dSYM that cannot be read is named with its reason on stderr, not quietly replaced by the
// binary's symbol table: a copy of a Samples build whose dSYM is damaged (DWARF overwritten,
// file cut short) or, when the tests do not run as root, unreadable by permissions. `-v` says
// which file served each image; `lookup` on a damaged dSYM fails naming it.

import Foundation
import Testing

@Suite struct UnreadableSymbolFileTests {
    static let variant = "ios-arm64-dwarf5"
    static let report = Paths.samples + "/reports/HoldApp-\(variant).crash"

    /// A copy of the variant's build folder, removed by the caller.
    static func copyOfBuild() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unreadable-\(UUID().uuidString)")
            .path
        try FileManager.default.copyItem(atPath: Paths.samples + "/build/\(variant)", toPath: folder)
        return folder
    }

    static func dwarfFile(_ build: String, _ image: String) -> String {
        let bundle = image == "HoldApp" ? "HoldApp.app.dSYM" : "\(image).framework.dSYM"
        return build + "/\(bundle)/Contents/Resources/DWARF/\(image)"
    }

    /// Overwrites the first bytes of the Mach-O's __debug_info section (its section_64 record:
    /// sectname[16], segname[16], addr, size, then the file offset as a 32-bit little-endian).
    static func damageDebugInfo(_ path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let name = Array("__debug_info".utf8) + [0, 0, 0, 0]
        guard let at = (0..<(bytes.count - 52)).first(where: { Array(bytes[$0..<$0 + 16]) == name }) else {
            throw RefereeFailure("no __debug_info section in \(path)")
        }
        let o = at + 48
        let offset = Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24
        for i in offset..<offset + 16 { bytes[i] = 0xff }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func aDamagedDSYMIsNamedNotQuietlyASymbolTable() throws {
        let build = try Self.copyOfBuild()
        defer { try? FileManager.default.removeItem(atPath: build) }
        let dwarf = Self.dwarfFile(build, "HoldApp")
        try Self.damageDebugInfo(dwarf)

        let r = try CLI.run(["--no-store", Self.report, build])
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.stderr.split(separator: "\n").first { $0.contains("HoldApp:") } ?? ""
        #expect(line.contains("symbol table only") && line.contains("the dSYM could not be read"), "\(r.stderr)")
        #expect(line.contains(dwarf) && line.contains("corrupt arm64 slice"), "\(line)")

        let lookup = try CLI.run(["lookup", "-o", build + "/HoldApp.app.dSYM", "0x100004110"])
        #expect(lookup.status == 65)
        #expect(lookup.stderr.contains(dwarf) && lookup.stderr.contains("corrupt"), "\(lookup.stderr)")
    }

    @Test func aDSYMCutShortIsNamedWithoutVerbose() throws {
        let build = try Self.copyOfBuild()
        defer { try? FileManager.default.removeItem(atPath: build) }
        let dwarf = Self.dwarfFile(build, "HoldKit")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dwarf))
        try handle.truncate(atOffset: 100)
        try handle.close()

        let r = try CLI.run(["--no-store", Self.report, build])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("dSYM not used, it cannot be read: \(dwarf)"), "\(r.stderr)")
    }

    /// A dSYM whose DWARF file is no Mach-O file at all (a Git LFS pointer checked out without
    /// `git lfs pull`, an empty file) is named too, whether given inside a folder or itself.
    @Test(arguments: [
        (
            "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 393216\n",
            "is a Git LFS pointer, not the Mach-O file"
        ),
        ("", "is empty, not a Mach-O file"),
    ])
    func aDSYMWhoseDWARFFileIsNoMachOIsNamed(_ content: String, _ said: String) throws {
        let build = try Self.copyOfBuild()
        defer { try? FileManager.default.removeItem(atPath: build) }
        let dwarf = Self.dwarfFile(build, "HoldApp")
        try Data(content.utf8).write(to: URL(fileURLWithPath: dwarf))
        for path in [build, build + "/HoldApp.app.dSYM"] {
            let r = try CLI.run(["--no-store", Self.report, path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("dSYM not used, it cannot be read: \(dwarf): \(said)"), "\(r.stderr)")
        }
    }

    @Test(.enabled(if: getuid() != 0, "root reads files whatever their permissions"))
    func aDSYMWithoutReadPermissionIsNamed() throws {
        let build = try Self.copyOfBuild()
        defer { try? FileManager.default.removeItem(atPath: build) }
        let dwarf = Self.dwarfFile(build, "HoldApp")
        chmod(dwarf, 0)
        let r = try CLI.run(["--no-store", Self.report, build])
        #expect(r.stderr.contains("dSYM not used, it cannot be read: \(dwarf)"), "\(r.stderr)")
        #expect(r.stderr.contains("Permission denied"), "\(r.stderr)")
    }

    @Test func verboseSaysWhichFileServedEachImage() throws {
        let build = try Self.copyOfBuild()
        defer { try? FileManager.default.removeItem(atPath: build) }
        try FileManager.default.removeItem(atPath: build + "/HoldKit.framework.dSYM")
        let r = try CLI.run(["--no-store", "-v", Self.report, build])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("  HoldApp: \(Self.dwarfFile(build, "HoldApp")) (debug information)"), "\(r.stderr)")
        #expect(
            r.stderr.contains("  HoldKit: \(build)/HoldApp.app/Frameworks/HoldKit.framework/HoldKit (symbol table)"))

        let store = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let imported = try CLI.run(["import", "--store", store, build + "/HoldApp.app.dSYM"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let fromStore = try CLI.run(["--store", store, "-v", Self.report])
        #expect(
            fromStore.stderr.contains("  HoldApp: the store's build (debug information), imported from "),
            "\(fromStore.stderr)")
    }
}
