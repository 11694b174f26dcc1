// A build the store has but cannot read is a failure, never a missing symbol: a store build
// file whose ranges page is damaged gives its image's frames the status `failed`, with the
// build and SQLite's cause, in `--format json`; the command exits 1 naming the cause unless
// `--partial` accepts the answer as it is. `batch` does not write such a report (so `--resume`
// does it again), counts it and exits 1 naming the cause.

import Foundation
import Testing

@Suite struct FailedLookupTests {
    static let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash"
    static let app = "4C4C4421-5555-3144-A186-2F41CD93DD95"

    /// A store with the Samples build imported, and the path of HoldApp's build file.
    static func storeWithBuild() throws -> (store: String, buildFile: String) {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("failed-\(UUID().uuidString)").path
        let imported = try CLI.run(["import", "--store", store, Paths.samples + "/build/ios-arm64-dwarf5"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let builds = try FileManager.default.contentsOfDirectory(atPath: store + "/builds")
        let name = try #require(builds.first { $0.hasPrefix(app) && $0.hasSuffix(".sqlite") }, "\(builds)")
        return (store, store + "/builds/" + name)
    }

    /// Overwrites the b-tree header of the file's last page (the ranges table, written last).
    static func damageLastPage(_ path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let size = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = size == 1 ? 65536 : size
        try #require(bytes.count >= 2 * pageSize && bytes.count % pageSize == 0)
        let last = bytes.count - pageSize
        for i in last..<last + 16 { bytes[i] = 0xff }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func frames(_ json: [String: Any], image: String) -> [[String: Any]] {
        let traces = json["backtraces"] as? [[String: Any]] ?? []
        return traces.flatMap { $0["frames"] as? [[String: Any]] ?? [] }.filter { $0["image"] as? String == image }
    }

    @Test func aDamagedBuildFileGivesFailedFramesWithTheCause() throws {
        let (store, buildFile) = try Self.storeWithBuild()
        defer { try? FileManager.default.removeItem(atPath: store) }
        let intact = try CLI.run(["--store", store, "--format", "json", Self.report])
        #expect(intact.status == 0, "\(intact.stderr)")
        let before = try #require(try JSONSerialization.jsonObject(with: Data(intact.stdout)) as? [String: Any])
        #expect(Self.frames(before, image: "HoldApp").allSatisfy { $0["status"] as? String == "symbolicated" })

        try Self.damageLastPage(buildFile)
        let failed = try CLI.run(["--store", store, "--format", "json", Self.report])
        #expect(failed.status == 1)
        let errorLine = failed.stderr.split(separator: "\n").first { $0.hasPrefix("error:") } ?? ""
        #expect(errorLine.contains("--partial"), "\(failed.stderr)")
        #expect(failed.stderr.contains(buildFile) && failed.stderr.contains("malformed"), "\(failed.stderr)")

        let partial = try CLI.run(["--store", store, "--format", "json", "--partial", Self.report])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(partial.stdout == failed.stdout)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(partial.stdout)) as? [String: Any])
        let frames = Self.frames(json, image: "HoldApp")
        #expect(!frames.isEmpty)
        for frame in frames {
            #expect(frame["status"] as? String == "failed", "\(frame)")
            let error = frame["error"] as? String ?? ""
            #expect(error.contains(buildFile) && error.contains(Self.app) && error.contains("malformed"), "\(error)")
            #expect((frame["symbols"] as? [Any])?.isEmpty == true)
        }
        #expect(json["frames_failed"] as? Int == frames.count)
        let images = json["images"] as? [[String: Any]] ?? []
        let app = try #require(images.first { $0["name"] as? String == "HoldApp" })
        #expect(app["status"] as? String == "failed")
        #expect((app["error"] as? String)?.contains(buildFile) == true)
        // The image that reads fine is untouched.
        #expect(Self.frames(json, image: "HoldKit").allSatisfy { $0["status"] as? String == "symbolicated" })
    }

    @Test func batchDoesNotMarkAReportDoneWhoseSymbolsCouldNotBeRead() throws {
        let (store, buildFile) = try Self.storeWithBuild()
        defer { try? FileManager.default.removeItem(atPath: store) }
        let folder = store + "-batch"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.report, toPath: folder + "/in/app.crash")
        try Self.damageLastPage(buildFile)

        let summaryFile = folder + "/summary.json"
        let failed = try CLI.run([
            "batch", "--store", store, "-o", folder + "/out", "--summary", summaryFile, "--progress", "none",
            folder + "/in",
        ])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("error: 1 report not written") && failed.stderr.contains(buildFile))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out/app.crash"))
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryFile)))
                as? [String: Any])
        let counts = try #require(summary["counts"] as? [String: Any])
        #expect(counts["symbols_unreadable"] as? Int == 1 && counts["written"] as? Int == 0, "\(counts)")

        // --resume does it again (nothing was marked done); --partial writes it as it is.
        let resumed = try CLI.run([
            "batch", "--store", store, "-o", folder + "/out", "--resume", "--progress", "none", folder + "/in",
        ])
        #expect(resumed.status == 1 && resumed.stderr.contains("error: 1 report not written"), "\(resumed.stderr)")
        let partial = try CLI.run([
            "batch", "--store", store, "-o", folder + "/out", "--resume", "--partial", "--progress", "none",
            folder + "/in",
        ])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/out/app.crash"))
    }
}
