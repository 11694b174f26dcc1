// ELF build ids of every length: a file linked with a hand-picked 5-byte id (`--build-id=0xHEX`)
// is imported and looked up, and `list` marks the id as unusual (text and --json); a file linked
// without one is refused by name, saying how to link it.

import Foundation
import TestSupport
import Testing

@Suite struct BuildIDLengthTests {
    static let clang: String? = ProcessRunner.which("clang")

    @Test(.enabled(if: clang != nil, "needs clang"))
    func unusualLengthsAreKeptAndMarkedAndNoIDIsRefused() throws {
        let dir = try Repository.scratchFolder("build-id-length")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/a.c"
        try Data("int main(void) { return 0; }\n".utf8).write(to: URL(fileURLWithPath: source))
        for (name, flag) in [
            ("odd", "-Wl,--build-id=0x0102030405"), ("sha1", "-Wl,--build-id=sha1"), ("none", "-Wl,--build-id=none"),
        ] {
            let r = try ProcessRunner.run(Self.clang ?? "clang", ["-g", flag, "-o", dir + "/" + name, source])
            try #require(r.status == 0, "\(r.stderrText)")
        }
        let store = dir + "/store"
        let imported = try CLI.run(["import", "--store", store, dir + "/odd", dir + "/sha1"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let list = try CLI.run(["list", "--store", store])
        let lines = list.stdoutText.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.contains { $0.hasPrefix("0102030405 ") && $0.contains("(a build id of 5 bytes: unusual)") })
        #expect(lines.filter { $0.contains("unusual") }.count == 1, "\(list.stdoutText)")
        let json = try CLI.run(["list", "--store", store, "--json"])
        let builds = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])
        #expect(
            builds.filter { $0["unusual_build_id_length"] as? Bool == true }.map { $0["uuid"] as? String } == [
                "0102030405"
            ])

        let none = try CLI.run(["import", "--store", store, dir + "/none"])
        #expect(none.status == 65)
        #expect(none.stderr.contains("no UUID or build id") && none.stderr.contains("-Wl,--build-id"), "\(none.stderr)")
    }
}
