// `--strict` and the line said when nothing was symbolicated: exit 3 when an image that is not a
// system image lacks symbols for frames the report does not name, exit 0 when only system
// images do; and one stderr line when a report with frames yielded nothing at all.

import Foundation
import TestSupport
import Testing

@Suite struct StrictTests {
    static let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf4.crash"
    static let build = Paths.samples + "/build/ios-arm64-dwarf4"

    @Test func strictFailsOnAppImagesWithoutSymbols() throws {
        let r = try CLI.run(["--no-store", "--strict", Self.report])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(!r.stdout.isEmpty, "the report is still written")
        let line = r.stderr.split(separator: "\n").first { $0.hasPrefix("--strict:") } ?? ""
        #expect(line.contains("HoldApp") && line.contains("HoldKit"), "\(r.stderr)")
        #expect(!line.contains("UIKitCore") && !line.contains("libsystem_kernel"), "system images do not count")
    }

    @Test(.needsSamples) func strictPassesWhenOnlySystemImagesLackSymbols() throws {
        let r = try CLI.run([
            "--no-store", "--strict", Self.report, Self.build + "/HoldApp.app.dSYM",
            Self.build + "/HoldKit.framework.dSYM",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("UIKitCore: missing"))
    }

    @Test func withoutStrictMissingSymbolsStillExitZero() throws {
        let r = try CLI.run(["--no-store", Self.report])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// A report whose frames are all unnamed and whose images have no symbols says so.
    @Test func nothingSymbolicatedIsSaid() throws {
        let text =
            "Exception Type:  EXC_CRASH (SIGABRT)\n\nThread 0 Crashed:\n"
            + "0   App                           \t            0x1010 0x1000 + 16\n"
            + "1   App                           \t            0x1020 0x1000 + 32\n\n"
            + "Binary Images:\n       0x1000 -        0x1fff App arm64  <82d13d98219e3040b62a07a297007a7c> /App\n"
        let r = try CLI.run(["--no-store", "-"], stdin: Array(text.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("nothing was symbolicated"), "\(r.stderr)")
        let named = try CLI.run(["--no-store", Self.report])
        #expect(!named.stderr.contains("nothing was symbolicated"), "frames the report names count")
    }
}
