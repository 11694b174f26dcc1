// The store must answer exactly as the symbol files do: every Samples and corpus report is
// symbolicated once from symbol paths and once from a store the same files were imported into,
// through the CLI, and the outputs must be byte-identical (text, .ips and JSON).

import Foundation
import TestSupport
import Testing

@Suite(.tags(.slow), .serialized) struct StoreBackedTests {
    static let corpusDSYMs = "inket__MacSymbolicator/Resources/dSYMs"

    @Test func storeAnswersExactlyAsTheFilesForSamples() throws {
        let reports = try FileManager.default.contentsOfDirectory(atPath: Paths.samples + "/reports")
            .filter { $0.hasSuffix(".crash") || $0.hasSuffix(".ips") }.map { Paths.samples + "/reports/" + $0 }
        try Self.compare(symbolPaths: [Paths.samples + "/build"], reports: reports, atLeast: 20)
    }

    @Test(.tags(.corpus), .needsCorpus)
    func storeAnswersExactlyAsTheFilesForCorpusReports() throws {
        let crashes = Paths.corpus + "/inket__MacSymbolicator/Resources/Crashes"
        let reports = ["ios-crash.crash", "ios-crash.ips", "single-target-crash.crash", "multi-target-crash.ips"]
            .map { crashes + "/" + $0 }
        try Self.compare(symbolPaths: [Paths.corpus + "/" + Self.corpusDSYMs], reports: reports, atLeast: 10)
    }

    /// Imports `symbolPaths` into a fresh store, then requires every report in every output format to
    /// come out byte-identical from the store and from the symbol paths; importing again changes nothing.
    static func compare(symbolPaths: [String], reports: [String], atLeast minimum: Int) throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: store) }

        let imported = try CLI.run(["import", "--store", store] + symbolPaths)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("0 failed"))

        var compared = 0
        for report in reports {
            for format in ["crash", "json"] + (report.hasSuffix(".ips") ? ["ips"] : []) {
                let fromFiles = try CLI.run(["--no-store", "--format", format, report] + symbolPaths)
                let fromStore = try CLI.run(["--store", store, "--format", format, report])
                #expect(fromFiles.status == 0 && fromStore.status == 0, "\(report): \(fromStore.stderr)")
                let same = fromFiles.stdout == fromStore.stdout
                #expect(
                    same,
                    "\(report) as \(format) differs: \(firstDifference(fromFiles.stdoutText, fromStore.stdoutText))")
                let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: report)))
                #expect(fromFiles.stdout != original, "\(report) as \(format): nothing was symbolicated")
                compared += 1
            }
        }
        #expect(compared >= minimum)

        // Importing again changes nothing.
        let again = try CLI.run(["import", "--store", store] + symbolPaths)
        #expect(again.status == 0)
        #expect(again.stderr.hasPrefix("imported 0 builds"))
        let verify = try CLI.run(["verify", "--store", store])
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    @Test func listRemoveAndGC() throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("store-lr-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldKit.framework.dSYM"
        #expect(try CLI.run(["import", "--store", store, dsym]).status == 0)
        let list = try CLI.run(["list", "--store", store, "--json"])
        #expect(list.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(list.stdout)) as? [[String: Any]] ?? []
        #expect(rows.count == 1)
        let uuid = try #require(rows.first?["uuid"] as? String)
        #expect(rows.first?["last_used_at"] == nil)
        // A report that needs the build records its use, which the listing then shows.
        let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash"
        #expect(try CLI.run(["--store", store, report]).status == 0)
        let used = try CLI.run(["list", "--store", store, "--json"])
        let usedRows = try JSONSerialization.jsonObject(with: Data(used.stdout)) as? [[String: Any]] ?? []
        #expect((usedRows.first?["last_used_at"] as? String)?.hasPrefix("20") == true, "\(used.stdoutText)")

        let dry = try CLI.run(["gc", "--store", store, "--older-than", "0", "--dry-run"])
        #expect(dry.status == 0)
        #expect(dry.stdoutText.contains("would remove 1 build"), "gc --dry-run answers on stdout: \(dry.stderr)")
        #expect(try CLI.run(["list", "--store", store]).stdoutText.contains(uuid))

        let removed = try CLI.run(["remove", "--store", store, uuid.lowercased()])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try CLI.run(["list", "--store", store]).stdoutText.isEmpty)
        #expect(try CLI.run(["remove", "--store", store, uuid]).status == 1)
        #expect(try CLI.run(["list", "--store", store + "-absent"]).status == 1)
    }
}

/// The first line where two outputs differ, for a readable failure message.
func firstDifference(_ a: String, _ b: String) -> String {
    let la = a.split(separator: "\n", omittingEmptySubsequences: false)
    let lb = b.split(separator: "\n", omittingEmptySubsequences: false)
    for i in 0..<max(la.count, lb.count) {
        let x = i < la.count ? String(la[i]) : "<end>"
        let y = i < lb.count ? String(lb[i]) : "<end>"
        if x != y { return "line \(i + 1): \(x.prefix(300)) <> \(y.prefix(300))" }
    }
    return "none"
}

/// A build file lost from a folder store is written again from the symbol file it was imported
/// from when a report needs it: the command line opens its store with the Import target's
/// rebuilder, and the report comes out as it did before the loss.
@Suite struct LostBuildFileTests {
    @Test func aReportRebuildsALostBuildFileFromItsSource() throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let dsym = Paths.samples + "/build/ios-arm64-dwarf5/HoldApp.app.dSYM"
        let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash"
        #expect(try CLI.run(["import", "--store", store, dsym]).status == 0)
        let before = try CLI.run(["--store", store, report])
        #expect(before.status == 0, "\(before.stderr)")

        let builds = try FileManager.default.contentsOfDirectory(atPath: store + "/builds").filter {
            $0.hasSuffix(".sqlite")
        }
        #expect(builds.count == 1)
        for file in builds { try FileManager.default.removeItem(atPath: store + "/builds/" + file) }
        #expect(try CLI.run(["verify", "--store", store]).status == 1)

        let after = try CLI.run(["--store", store, report])
        #expect(after.status == 0, "\(after.stderr)")
        let same = after.stdout == before.stdout
        #expect(same, "the report differs after the loss: \(after.stderr)")
        let verify = try CLI.run(["verify", "--store", store])
        #expect(verify.status == 0, "the build file was not written again: \(verify.stdoutText) \(verify.stderr)")
    }
}
