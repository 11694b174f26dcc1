// The CLI's answers agree with one another: `inspect --json` has `--format json`'s snake_case keys
// and a final newline; `--format JSON` is `--format json`; a mistake prints one line and the usage
// line; `verify` and `gc --dry-run` answer on stdout; the README's `lookup` examples answer as
// written on the Samples they name; a universal dSYM without `-arch` lists its archs (exit 64);
// a fresh store's import of an .app beside its dSYMs counts each build once.

import Foundation
import TestSupport
import Testing

@Suite struct ConsistencyTests {
    static let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf4.crash"
    static let build = Paths.samples + "/build/ios-arm64-dwarf4"

    static func temporaryStore() -> String {
        NSTemporaryDirectory() + "consistency-\(UUID().uuidString)/store"
    }

    @Test func inspectJSONHasSnakeCaseKeysAndANewline() throws {
        let r = try CLI.run(["inspect", "--json", Self.report])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.last == UInt8(ascii: "\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        var keys = Set(object.keys)
        for image in object["images"] as? [[String: Any]] ?? [] { keys.formUnion(image.keys) }
        for backtrace in object["backtraces"] as? [[String: Any]] ?? [] {
            keys.formUnion(backtrace.keys)
            for frame in backtrace["frames"] as? [[String: Any]] ?? [] { keys.formUnion(frame.keys) }
        }
        #expect(keys.contains("load_address") && keys.contains("image_index") && keys.contains("json_header"))
        let camel = keys.filter { $0.contains { $0.isUppercase } }
        #expect(camel.isEmpty, "camelCase keys: \(camel.sorted())")
    }

    @Test func formatNamesAreCaseInsensitive() throws {
        let upper = try CLI.run(["--no-store", "--format", "JSON", Self.report])
        let lower = try CLI.run(["--no-store", "--format", "json", Self.report])
        #expect(upper.status == 0, "\(upper.stderr)")
        #expect(upper.stdout == lower.stdout)
    }

    @Test func anUnknownOptionPrintsOneLineAndTheUsage() throws {
        for (args, usage) in [
            (["--bogus", Self.report], "USAGE: symbolicate [-o OUT]"),
            (["lookup", "--bogus"], "USAGE: symbolicate lookup"),
        ] {
            let r = try CLI.run(args)
            #expect(r.status == 64)
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.first == "error: unknown option --bogus", "\(r.stderr)")
            #expect(lines.contains { $0.hasPrefix(usage) }, "\(r.stderr)")
            #expect(!r.stderr.contains("OPTIONS"), "not the whole help: \(r.stderr)")
            #expect(lines.count <= 5, "the error, the usage (up to three lines) and where the help is: \(r.stderr)")
        }
    }

    @Test(.needsSamples) func verifyAndGCDryRunAnswerOnStdout() throws {
        let store = Self.temporaryStore()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: store).deletingLastPathComponent().path)
        }
        #expect(try CLI.run(["import", "--store", store, Self.build + "/HoldApp.app.dSYM"]).status == 0)
        let verify = try CLI.run(["verify", "--store", store])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdoutText == "checked 1 build: healthy\n", "\(verify.stderr)")
        let dry = try CLI.run(["gc", "--store", store, "--older-than", "0", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdoutText.contains("would remove 1 build"), "\(dry.stderr)")
        #expect(dry.stderr.isEmpty, "\(dry.stderr)")
    }

    /// Each `symbolicate lookup -o Samples/...` line of the README, run by the shell as written
    /// from the repository's root, answers with a function of HoldApp, not the bare address.
    @Test(.needsSamples, .needsExecutable) func theREADMELookupExamplesAnswer() throws {
        let readme = try String(contentsOfFile: Paths.repository + "/README.md", encoding: .utf8)
        let examples = readme.split(separator: "\n").filter { $0.hasPrefix("symbolicate lookup -o Samples/") }
        #expect(examples.count == 2)
        let bin = URL(fileURLWithPath: CLI.executable).deletingLastPathComponent().path
        for example in examples {
            let r = try ProcessRunner.run(
                "/bin/sh", ["-c", String(example)],
                environment: ["PATH": bin + ":/usr/bin:/bin", "SYMBOLICATE_STORE": ""], directory: Paths.repository)
            #expect(r.status == 0, "\(example): \(r.stderrText)")
            let out = String(decoding: r.stdout, as: UTF8.self)
            #expect(out.contains("(in HoldApp)") && out.contains("ViewController.c:"), "\(example): \(out)")
        }
    }

    @Test(.needsSamples) func aUniversalDSYMWithoutArchListsItsArchs() throws {
        let dsym = Paths.samples + "/build/universal-dwarf5/HoldKit.framework.dSYM"
        let r = try CLI.run(["lookup", "-o", dsym, "-l", "0x1030a0000", "0x1030a0100"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("arm64") && r.stderr.contains("x86_64"), "\(r.stderr)")
        #expect(r.stderr.contains("choose one with -arch"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// A folder with the .app and its dSYMs: the .app's symbol tables are the builds the dSYMs
    /// brought in this run, not "already present".
    @Test(.needsSamples) func aFreshImportCountsEachBuildOnce() throws {
        let store = Self.temporaryStore()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: store).deletingLastPathComponent().path)
        }
        let first = try CLI.run(["import", "--store", store, Self.build])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.hasPrefix("imported 2 builds, 0 already present, 0 failed\n"), "\(first.stderr)")
        let again = try CLI.run(["import", "--store", store, Self.build])
        #expect(again.stderr.hasPrefix("imported 0 builds, 2 already present, 0 failed\n"), "\(again.stderr)")
    }
}
