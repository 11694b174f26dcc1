// `symbolicate --help` is where a symbolicatecrash user looks for -o and --format: the overview
// lists the default command's options under the commands, and the default command's help names
// every kind of report it takes (MetricKit payloads and resource reports too).

import Testing

@Suite struct OverviewHelpTests {
    @Test func theOverviewListsTheDefaultCommandsOptions() throws {
        let r = try CLI.run(["--help"])
        #expect(r.status == 0)
        for option in ["-o, --output OUT", "--format FORMAT", "-v, --verbose", "--no-store", "--no-inline"] {
            #expect(r.stdoutText.contains(option), "\(option) missing from:\n\(r.stdoutText)")
        }
        #expect(r.stdoutText.contains("MetricKit"))
    }

    @Test func theDefaultCommandsHelpNamesEveryReportKind() throws {
        let r = try CLI.run(["-o", "out.crash", "--help"])
        #expect(r.status == 0)
        #expect(
            r.stdoutText.contains("MetricKit payload") && r.stdoutText.contains("resource report"), "\(r.stdoutText)")
    }
}
