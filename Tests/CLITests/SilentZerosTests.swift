// Answers that used to be quiet zeros: a report wrapped at 76 columns by a mail client, read as
// the unwrapped one with a note saying so; a mistyped $SYMBOLICATE_STORE, which stops as a
// mistyped --store does instead of reading as an empty store; and the default store that does
// not exist yet, which is named on stderr.

import Foundation
import TestSupport
import Testing

@Suite struct SilentZerosTests {
    static let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf4.crash"
    static let build = Paths.samples + "/build/ios-arm64-dwarf4"

    /// `fold -s -w 76 in.crash > wrapped.crash; symbolicate --no-store wrapped.crash build/`.
    @Test(.needsSamples) func aWrappedReportIsSymbolicatedAsTheUnwrappedOne() throws {
        let fold = try ProcessRunner.run("/usr/bin/fold", ["-s", "-w", "76", Self.report])
        #expect(fold.status == 0)
        let paths = [Self.build + "/HoldApp.app.dSYM", Self.build + "/HoldKit.framework.dSYM"]
        let wrapped = try CLI.run(["--no-store", "-"] + paths, stdin: fold.stdout)
        let plain = try CLI.run(["--no-store", Self.report] + paths)
        #expect(wrapped.status == 0, "\(wrapped.stderr)")
        #expect(plain.status == 0, "\(plain.stderr)")
        let summary = { (r: CLIResult) in r.stderr.split(separator: "\n").first.map(String.init) ?? "" }
        #expect(summary(wrapped) == summary(plain))
        #expect(wrapped.stderr.contains("looks line-wrapped at 7"), "\(wrapped.stderr)")
        #expect(!plain.stderr.contains("line-wrapped"))
        let frames = { (r: CLIResult) in
            r.stdoutText.split(separator: "\n").filter {
                $0.split(separator: " ").first?.allSatisfy(\.isNumber) == true
            }
        }
        #expect(frames(wrapped) == frames(plain))
        #expect(!frames(plain).isEmpty)
    }

    /// `SYMBOLICATE_STORE=/no/such/store symbolicate in.crash` exits 1 as `--store` does.
    @Test func aMistypedStoreVariableStops() throws {
        let byVariable = try CLI.run([Self.report], environment: ["SYMBOLICATE_STORE": "/no/such/store"])
        let byFlag = try CLI.run(["--store", "/no/such/store", Self.report])
        for r in [byVariable, byFlag] {
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stderr.contains("no symbol store here"), "\(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        #expect(byVariable.stderr.contains("$SYMBOLICATE_STORE"))
    }

    /// Listing a store the variable names wrongly is a failure too, not an empty list.
    @Test func aMistypedStoreVariableFailsList() throws {
        let r = try CLI.run(["list"], environment: ["SYMBOLICATE_STORE": "/no/such/store"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no symbol store here"))
    }

    /// The default store under XDG_DATA_HOME may be absent: the report is processed, and the
    /// summary says that there is no store yet.
    @Test func anAbsentDefaultStoreIsNamed() throws {
        let r = try CLI.run([Self.report], environment: ["XDG_DATA_HOME": "/nonexistent/xdg-data"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("no store yet at /nonexistent/xdg-data/symbolicate"), "\(r.stderr)")
    }

    /// Import creates the store the variable names, and symbolicate then reads it.
    @Test(.needsSamples) func importCreatesTheStoreTheVariableNames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["SYMBOLICATE_STORE": dir]
        let imported = try CLI.run(["import", Self.build + "/HoldApp.app.dSYM"], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        let r = try CLI.run([Self.report], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("no store"))
    }

    /// `symbolicate < in.crash`: no REPORT argument, the report on standard input.
    @Test func noArgumentReadsStandardInput() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.report)))
        let r = try CLI.run(["--no-store"], stdin: bytes)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == bytes)
        #expect(r.stderr.hasPrefix("symbolicated 0/23 frames"), "\(r.stderr)")
        let bare = try CLI.run([], stdin: bytes)
        #expect(bare.status == 0, "\(bare.stderr)")
        let empty = try CLI.run(["--no-store"], stdin: [])
        #expect(empty.status == 64, "\(empty.stderr)")
        #expect(empty.stderr.contains("missing REPORT"))
    }
}
