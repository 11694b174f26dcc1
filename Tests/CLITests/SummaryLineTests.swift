// The first line `symbolicate` prints on stderr counts what the report holds: threads for crash
// reports, sample trees for resource reports and aggregated MetricKit stacks (not "0 threads"),
// with the singular for one.

import Foundation
import Testing

@Suite struct SummaryLineTests {
    static var dwarf5: String { Paths.samples + "/build/ios-arm64-dwarf5" }

    static func firstLine(_ r: CLIResult) -> String {
        String(r.stderr.split(separator: "\n").first ?? "")
    }

    @Test func aCrashReportCountsItsThreads() throws {
        let r = try CLI.run(["--no-store", Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash", Self.dwarf5])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.firstLine(r) == "symbolicated 15/23 frames (text report, 2 threads, 5 images)")
    }

    @Test func aResourceReportCountsSampleTrees() throws {
        let r = try CLI.run(["--no-store", Paths.samples + "/diagnostics/HoldApp-cpu-resource.txt", Self.dwarf5])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.firstLine(r) == "symbolicated 19/26 frames (microstackshot report, 2 sample trees, 5 images)")
    }

    @Test func oneThreadIsSingular() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("summary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A bare MXCallStackTree with one thread: HoldKit's hk_rotate, called from hk_session_flush.
        let tree = """
            {"callStackPerThread":true,"callStacks":[{"threadAttributed":true,"callStackRootFrames":[\
            {"binaryUUID":"4C4C44AA-5555-3144-A1C9-3105F2834F44","offsetIntoBinaryTextSegment":16556,\
            "sampleCount":1,"binaryName":"HoldKit","address":4345970860,"subFrames":[\
            {"binaryUUID":"4C4C44AA-5555-3144-A1C9-3105F2834F44","offsetIntoBinaryTextSegment":16716,\
            "sampleCount":1,"binaryName":"HoldKit","address":4345971020}]}]}]}
            """
        let path = folder.appendingPathComponent("tree.json").path
        try Data(tree.utf8).write(to: URL(fileURLWithPath: path))
        let r = try CLI.run(["--no-store", path, Self.dwarf5])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.firstLine(r) == "symbolicated 2/2 frames (metrickit report, 1 thread, 1 image)")
    }
}
