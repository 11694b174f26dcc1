// What users read when they get something wrong: a mistyped command is answered with the command
// it is close to, a path that cannot be created says which part is missing or in the way (never
// Foundation's "NSCocoaErrorDomain error 512"), and the default worker count follows taskset.

import Foundation
import TestSupport
import Testing

@Suite struct MessagesTests {
    @Test(arguments: [
        ("imprt", "import"), ("lsit", "list"), ("loookup", "lookup"), ("serv", "serve"), ("Batch", "batch"),
    ])
    func aCloseCommandIsSuggested(_ typed: String, _ meant: String) throws {
        let r = try CLI.run([typed, "x"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("unknown command '\(typed)'; did you mean `\(meant)`?"), "\(r.stderr)")
        #expect(r.stderr.contains("USAGE"))
    }

    @Test func aWordFarFromEveryCommandGetsUsage() throws {
        let r = try CLI.run(["zzzzzz"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("'zzzzzz' is neither a command nor a report file"), "\(r.stderr)")
        #expect(r.stderr.contains("USAGE"))
    }

    /// `help WORD` names WORD when it is no command, not `help`.
    @Test(arguments: [
        ("lokup", "unknown command 'lokup'; did you mean `lookup`?"),
        ("zzzzzz", "'zzzzzz' is neither a command nor a report file"),
        ("x.crash", "unknown command 'x.crash'"),
    ])
    func helpAboutAnUnknownCommandNamesIt(_ typed: String, _ said: String) throws {
        let r = try CLI.run(["help", typed])
        #expect(r.status == 64)
        #expect(r.stderr.contains(said), "\(r.stderr)")
        #expect(!r.stderr.contains("'help'"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// A text report asked for as `.ips` is refused naming the option to use.
    @Test func aTextReportAskedForAsIPSIsToldTheOption() throws {
        let report = Repository.root + "/Samples/reports/HoldApp-ios-arm64-dwarf4.crash"
        let r = try CLI.run([report, "--format", "ips", "-o", "-"])
        #expect(r.status != 0)
        #expect(
            r.stderr.contains("a text report cannot be written as .ips; ask for --format crash or json"), "\(r.stderr)")
    }

    /// A gc --older-than given but out of range is said to be invalid, with what is accepted; one
    /// not given is said to be required.
    @Test func gcSaysWhatIsWrongWithOlderThan() throws {
        let store = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: store) }
        let negative = try CLI.run(["gc", "--store", store, "--older-than", "-1"])
        #expect(negative.status == 64)
        #expect(
            negative.stderr.contains("--older-than expects a whole number of days, 0 or more, got -1"),
            "\(negative.stderr)")
        #expect(!negative.stderr.contains("is required"), "\(negative.stderr)")
        let missing = try CLI.run(["gc", "--store", store])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--older-than DAYS is required"), "\(missing.stderr)")
    }

    @Test func aReportPathIsStillAReport() throws {
        let r = try CLI.run(["/nonexistent/imprt"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no such file"))
    }

    static func scratch() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("messages-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: folder + "/file", contents: Data("x".utf8))
        return folder
    }

    static func expectPlainWords(_ r: CLIResult, _ wanted: String) {
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains(wanted), "\(r.stderr)")
        #expect(!r.stderr.contains("NSCocoaErrorDomain") && !r.stderr.contains("doesn’t exist"), "\(r.stderr)")
        #expect(!r.stderr.contains("doesn't exist") && !r.stderr.contains("could not be completed"), "\(r.stderr)")
    }

    @Test func anOutputInAMissingFolderNamesTheFolder() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash"
        let r = try CLI.run(["--no-store", "-o", folder + "/missing/deeper/out.crash", report])
        Self.expectPlainWords(r, "the folder \(folder)/missing does not exist; create it or write elsewhere")
        let f = try CLI.run(["--no-store", "-o", folder + "/file/out.crash", report])
        Self.expectPlainWords(f, "\(folder)/file is a file, not a folder")
    }

    @Test func foldersThatCannotBeCreatedNameThePartInTheWay() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM"
        let store = try CLI.run(["import", "--store", folder + "/file/store", dsym])
        Self.expectPlainWords(store, "cannot create the store folder: \(folder)/file is a file, not a folder")
        let batch = try CLI.run(["batch", "-o", folder + "/file/out", Paths.samples + "/reports"])
        Self.expectPlainWords(batch, "cannot create the output folder: \(folder)/file is a file, not a folder")
        let serve = try CLI.run(["serve", "--store", folder + "/file/store", "--listen", "127.0.0.1:0"])
        Self.expectPlainWords(serve, "\(folder)/file is a file, not a folder")
    }

    @Test func unreadableInputsSayWhy() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let token = try CLI.run([
            "serve", "--store", folder + "/store", "--token-file", folder + "/none", "--listen", "127.0.0.1:0",
        ])
        Self.expectPlainWords(token, "\(folder)/none: cannot read the token file: No such file or directory")
    }

    static var taskset: String? {
        ["/usr/bin/taskset", "/bin/taskset"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test(.enabled(if: taskset != nil, "taskset (util-linux) is not installed"))
    func batchStartsOneWorkerPerCPUItMayUse() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("workers-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try ProcessRunner.run(
            try #require(Self.taskset),
            ["-c", "0", CLI.executable, "batch", "--no-store", "-o", out, Paths.samples + "/reports"],
            environment: ["SYMBOLICATE_STORE": "/nonexistent/symbolicate-test-store"])
        let text = result.stderrText
        #expect(result.status == 0, "\(text)")
        #expect(text.contains("with 1 worker\n"), "\(text)")
    }
}
