// Files that are not crash reports are refused with what they are and what to do: a zip or tar
// of reports (`symbolicate batch`), gzip data, a Windows minidump, an ELF core file; exit 65.

import Foundation
import TestSupport
import Testing

@Suite struct RefusalNamingTests {
    @Test(.needsSamples) func containersAndDumpsAreNamed() throws {
        for fixture in try NotAReportFixtures.all() {
            let r = try CLI.run(["--no-store", "-"], stdin: fixture.bytes)
            #expect(r.status == 65, "\(fixture.name): \(r.stderr)")
            #expect(r.stderr.contains(fixture.says), "\(fixture.name): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(fixture.name)")
        }
    }

    /// The same refusal for a file named on the command line.
    @Test(.needsSamples) func aZipNamedAsTheReport() throws {
        let zip = try #require(try NotAReportFixtures.all().first { $0.name == "zip" })
        let path = NSTemporaryDirectory() + "reports-\(UUID().uuidString).zip"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(zip.bytes).write(to: URL(fileURLWithPath: path))
        let r = try CLI.run(["--no-store", path])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("use `symbolicate batch`"), "\(r.stderr)")
    }
}
