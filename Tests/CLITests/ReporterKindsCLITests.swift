// The in-app reporters' formats through the CLI as a user runs it: `inspect` names the kind and
// reads the frames and images of a KSCrash report and a Sentry event written over the Samples'
// build, and `symbolicate` with the build's dSYMs answers each in its own format on stdin and
// from a file alike.

import Foundation
import TestSupport
import Testing

@Suite(.enabled(if: KSCrashSample.available, "Samples/build is absent (run Samples/generate.sh)"))
struct ReporterKindsCLITests {
    @Test(arguments: ["kscrash", "sentry-event"])
    func inspectAndSymbolicateReadTheKind(kind: String) throws {
        let report = kind == "kscrash" ? try KSCrashSample.report() : try KSCrashSample.sentryEvent()
        let inspected = try CLI.run(["inspect", "-"], stdin: report)
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.stdoutText.contains("format: \(kind)"), "\(inspected.stdoutText)")
        let build = Paths.samples + "/build/\(KSCrashSample.variant)"
        let folder = try Repository.scratchFolder("reporter-kinds-cli")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = folder + "/report.json"
        try Data(report).write(to: URL(fileURLWithPath: input))
        let fromFile = try CLI.run(["--no-store", input, build])
        let fromStdin = try CLI.run(["--no-store", "-", build], stdin: report)
        #expect(fromFile.status == 0 && fromStdin.status == 0, "\(fromFile.stderr)\(fromStdin.stderr)")
        #expect(fromFile.stdout == fromStdin.stdout)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(fromFile.stdout)) as? [String: Any])
        #expect(!json.isEmpty)
        #expect(fromFile.stderr.contains("symbolicated"), "\(fromFile.stderr)")
    }
}
