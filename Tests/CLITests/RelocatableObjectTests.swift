// A relocatable object (`.o`: Mach-O MH_OBJECT, ELF ET_REL) has no final addresses and often no
// UUID; importing one or naming it as a symbol file says what it is, instead of a decoding
// error from deep inside its DWARF. The objects are compiled here from a one-line C file.

import Foundation
import TestSupport
import Testing

@Suite struct RelocatableObjectTests {
    static let clang: String? = ProcessRunner.which("clang")

    static func compile(_ target: String?, into dir: String, name: String) throws -> String {
        let source = dir + "/f.c"
        try Data("int twice(int x) { return 2 * x; }\n".utf8).write(to: URL(fileURLWithPath: source))
        let object = dir + "/" + name
        let arguments = (target.map { ["-target", $0] } ?? []) + ["-g", "-c", source, "-o", object]
        let result = try ProcessRunner.run(clang ?? "/usr/bin/clang", arguments)
        #expect(result.status == 0, "clang failed: \(result.stderrText)")
        return object
    }

    @Test(.enabled(if: clang != nil, "needs clang"), arguments: [nil, "x86_64-apple-macos11", "arm64-apple-ios15.0"])
    func importRefusesAnObjectFileByName(_ target: String?) throws {
        let dir = NSTemporaryDirectory() + "/symbolicate-object-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let object = try Self.compile(target, into: dir, name: "f.o")
        let r = try CLI.run(["import", "--store", dir + "/store", object])
        #expect(r.status == 65)
        #expect(r.stderr.contains("\(object): an object file (.o), not a linked binary or dSYM"), "\(r.stderr)")
        let list = try CLI.run(["list", "--store", dir + "/store"])
        #expect(list.status == 0)
        #expect(!list.stdoutText.contains("f.o"))
    }
}
