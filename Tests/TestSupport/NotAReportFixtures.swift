// Files people send in place of a crash report, made at test time from a Samples report with the
// system's own tools: a zip and a tar of it, the report gzipped, and the smallest headers of a
// Windows minidump (MINIDUMP_HEADER) and of an ELF core file (Elf64_Ehdr with ET_CORE). Each is
// paired with the words its refusal must say.

import Foundation

public enum NotAReportFixtures {
    /// `(what, bytes, words the refusal names it with)`.
    public static func all() throws -> [(name: String, bytes: [UInt8], says: String)] {
        let report = Repository.samplesReports + "/HoldApp-ios-arm64-dwarf4.crash"
        let directory = NSTemporaryDirectory() + "not-a-report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: report, toPath: directory + "/in.crash")
        func made(_ program: String, _ arguments: [String], _ output: String) throws -> [UInt8] {
            let r = try ProcessRunner.run(program, arguments, directory: directory)
            guard r.status == 0 else { throw FixtureError("\(program) failed: \(r.stderrText)") }
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + output)))
        }
        let zip = try made("zip", ["-q", "reports.zip", "in.crash"], "reports.zip")
        let tar = try made("tar", ["cf", "reports.tar", "in.crash"], "reports.tar")
        let gzip = try made("gzip", ["-k", "in.crash"], "in.crash.gz")
        // MINIDUMP_HEADER: Signature 'MDMP', Version 0xA793 (MINIDUMP_VERSION), no streams.
        let minidump: [UInt8] = Array("MDMP".utf8) + [0x93, 0xA7, 0, 0] + [UInt8](repeating: 0, count: 24)
        // Elf64_Ehdr: ELFCLASS64, ELFDATA2LSB, EV_CURRENT; e_type ET_CORE (4), e_machine EM_X86_64 (62).
        var core: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 56)
        core[16] = 4
        core[18] = 62
        return [
            ("zip", zip, "a zip archive: use `symbolicate batch`"),
            ("tar", tar, "a tar archive"),
            ("gzip", gzip, "gzip data"),
            ("minidump", minidump, "a Windows minidump (MDMP)"),
            ("ELF core", core, "an ELF core file"),
        ]
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
