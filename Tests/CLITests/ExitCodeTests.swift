// What scripts rely on: exit codes (0 ok, 1 failure, 64 usage, 65 bad input), help on every
// command, one clear line on stderr for errors, and no death by signal whatever the input.

import Foundation
import TestSupport
import Testing

@Suite struct ExitCodeTests {
    @Test func noArgumentsIsUsage() throws {
        let r = try CLI.run([])
        #expect(r.status == 64)
        #expect(r.stderr.contains("USAGE"))
    }

    @Test(arguments: [
        [String](), ["inspect"], ["lookup"], ["import"], ["list"], ["remove"], ["gc"], ["verify"], ["serve"], ["batch"],
        ["upload"],
    ])
    func helpForEveryCommand(_ command: [String]) throws {
        let r = try CLI.run(command + ["--help"])
        #expect(r.status == 0)
        let usage = (["USAGE: symbolicate"] + command).joined(separator: " ")
        #expect(r.stdoutText.contains(usage), "no help of its own for \(command)")
    }

    @Test func unknownOptionIsUsage() throws {
        let r = try CLI.run(["--bogus", "x.crash"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("unknown option --bogus"))
    }

    @Test func missingReportFileFails() throws {
        let r = try CLI.run(["/nonexistent/report.crash"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no such file"))
    }

    @Test func garbageIsBadInput() throws {
        var bytes: [UInt8] = []
        var seed: UInt64 = 42
        for _ in 0..<4096 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: seed >> 33))
        }
        let r = try CLI.run(["-"], stdin: bytes)
        #expect(r.status == 65)
        #expect(!r.stderr.isEmpty)
    }

    @Test func emptyInputIsBadInput() throws {
        let r = try CLI.run(["-"], stdin: [])
        #expect(r.status == 65)
    }

    @Test(.tags(.corpus), .needsCorpus)
    func nonAppleReportsAreNamed() throws {
        let tombstone = Paths.corpus + "/aosp-mirror__platform_development/scripts/example_crashes.arm64.txt"
        let r = try CLI.run([tombstone])
        #expect(r.status == 65)
        #expect(r.stderr.lowercased().contains("android"))
    }
}
