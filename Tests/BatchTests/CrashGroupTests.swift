// Crash groups and the per-file report list: one crash seen in two app versions, under two
// exception types and with system frames on top is one group, counted per app version; another
// crash is another group; a group's id is the first 16 hex digits of the SHA-256 of its key
// (checked against the system's sha256sum); `--report-list` has one line per input file with
// its kind, status, frame counts, group and reason.

import Foundation
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@testable import Batch

struct CrashGroupTests {
    static func sha256sum(_ text: String) throws -> String {
        let output = try ProcessRunner.run("sha256sum", stdin: Array(text.utf8)).stdoutText
        return output.split(separator: " ").first.map(String.init) ?? ""
    }

    @Test func functionNamesLoseOffsetsFilesAndImages() {
        #expect(ReportFacts.functionName("hk_rotate + 16") == "hk_rotate")
        #expect(ReportFacts.functionName("hk_rotate + 0x10") == "hk_rotate")
        #expect(ReportFacts.functionName("hk_rotate (HoldKit.c:12)") == "hk_rotate")
        #expect(
            ReportFacts.functionName("-[UIViewController loadViewIfRequired] (in UIKitCore)")
                == "-[UIViewController loadViewIfRequired]")
        #expect(
            ReportFacts.functionName("holdkit::codec::Session<unsigned int>::run(unsigned int)")
                == "holdkit::codec::Session<unsigned int>::run(unsigned int)")
    }

    /// The three suffix rules as regular expressions (how they were first written): the string
    /// code must strip exactly what they strip, over combinations of the awkward cases.
    @Test func functionNamesStripWhatTheRegularExpressionsStrip() {
        func reference(_ symbol: String) -> String {
            var name = symbol.trimmingCharacters(in: .whitespaces)
            name = name.replacing(/\s\(in [^()]*\)$/, with: "")
            name = name.replacing(/\s\([^()]*:\d+\)$/, with: "")
            name = name.replacing(/\s\+\s(0x[0-9a-fA-F]+|\d+)$/, with: "")
            return name
        }
        let heads = ["f", "-[A b:]", "run(int)", "a (b)", "x +", "", " ", "op+", "g\t"]
        let tails = [
            "", " + 16", " + 0x1f", " + 0x", " + 0xZZ", "+ 1", " +1", "\t+\t7", " (in Kit)", "(in Kit)", " (in (Kit))",
            " (F.c:12)", " (F.c:)", " (F.c:x)", " (a:1) (in K)", " (in K) + 4", " (F.swift:3) + 8", " ()", " (:9)",
            " (in )", "  (in K)", " (F.c:12) (in K)",
        ]
        var checked = 0
        for head in heads {
            for tail in tails {
                for extra in ["", " ", " + 2", " (in X)"] {
                    let symbol = head + tail + extra
                    #expect(ReportFacts.functionName(symbol) == reference(symbol), "\(symbol.debugDescription)")
                    checked += 1
                }
            }
        }
        #expect(checked == heads.count * tails.count * 4)
    }

    @Test func systemImagesAreKnownByTheirPaths() {
        func image(_ path: String?) -> BinaryImage { BinaryImage(loadAddress: 0, name: "x", path: path) }
        #expect(CrashSignature.isSystemImage(image("/usr/lib/system/libsystem_kernel.dylib")))
        #expect(CrashSignature.isSystemImage(image("/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore")))
        #expect(
            CrashSignature.isSystemImage(
                image("/private/preboot/Cryptexes/OS/System/Library/Frameworks/Foundation.framework/Foundation")))
        #expect(
            CrashSignature.isSystemImage(
                image(
                    "/Library/Developer/CoreSimulator/Volumes/iOS_21A328/Library/Developer/CoreSimulator/Profiles/Runtimes/iOS 17.0.simruntime/Contents/Resources/RuntimeRoot/usr/lib/libobjc.A.dylib"
                )))
        #expect(
            !CrashSignature.isSystemImage(image("/private/var/containers/Bundle/Application/5E1B/HoldApp.app/HoldApp")))
        #expect(!CrashSignature.isSystemImage(image("/Applications/Notes.app/Contents/MacOS/Notes")))
        #expect(!CrashSignature.isSystemImage(image(nil)))
    }
}

@Suite(
    .enabled(if: BatchFixture.samplesAvailable, "Samples/reports or Samples/build is absent (run Samples/generate.sh)"))
struct CrashGroupRunTests {
    static let sampleName = "HoldApp-ios-arm64-dwarf4.crash"

    /// The sample crash as another app version would report it under another exception type,
    /// with two frames of libsystem_kernel (one named by the report, one not) on top. The app's
    /// top frame becomes a return address (the instruction after the call, looked up at
    /// address - 1), so it is the address of the next instruction.
    static func sameCrashElsewhere(_ text: String) -> String {
        var lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "Thread 0 Crashed:") else { return text }
        var i = start + 1
        while i < lines.count, let first = lines[i].first, first.isNumber {
            let number = lines[i].prefix { $0.isNumber }
            lines[i] = String(Int(number).map { $0 + 2 } ?? 0) + lines[i].dropFirst(number.count)
            i += 1
        }
        lines.insert(
            contentsOf: [
                "0   libsystem_kernel.dylib        \t       0x1e0ac92bc __pthread_kill + 8",
                "1   libsystem_kernel.dylib        \t       0x1e0ac9300 0x1e0aaf000 + 107264",
            ], at: start + 1)
        return lines.joined(separator: "\n")
            .replacingOccurrences(of: "Version:             1.2 (12)", with: "Version:             1.3 (13)")
            .replacingOccurrences(of: "EXC_CRASH (SIGABRT)", with: "EXC_BREAKPOINT (SIGTRAP)")
            .replacingOccurrences(of: "0x1030a40ac 0x1030a0000 + 16556", with: "0x1030a40b0 0x1030a0000 + 16560")
    }

    /// Another crash: the thread crashed one call further out.
    static func anotherCrash(_ text: String) -> String {
        var lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "Thread 0 Crashed:") else { return text }
        lines.remove(at: start + 1)
        return lines.joined(separator: "\n")
    }

    @Test func oneCrashInTwoVersionsIsOneGroupAndTheReportListNamesEveryFile() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        let sample = String(decoding: try BatchFixture.sample(Self.sampleName), as: UTF8.self)
        let folder = fixture.root + "/in"
        try BatchFixture.write(Array(sample.utf8), to: folder + "/a.crash")
        try BatchFixture.write(Array(Self.sameCrashElsewhere(sample).utf8), to: folder + "/b.crash")
        try BatchFixture.write(Array(Self.anotherCrash(sample).utf8), to: folder + "/c.crash")
        try BatchFixture.write(Array("not a report\n".utf8), to: folder + "/notes.txt")
        try BatchFixture.write(Array("{\"bug_type\":\"309\"".utf8), to: folder + "/cut.ips")
        var configuration = BatchFixture.configuration([folder], into: fixture.root + "/out")
        configuration.reportList = fixture.root + "/list.jsonl"
        let service = try BatchFixture.service()
        let summary = try BatchRunner(configuration: configuration, service: service).run()

        #expect(summary.crashGroups.count == 2, "\(summary.table())")
        let group = try #require(summary.crashGroups.first)
        #expect(group.count == 2)
        #expect(group.example == folder + "/a.crash")
        #expect(group.appVersions == [.init(version: "1.2 (12)", count: 1), .init(version: "1.3 (13)", count: 1)])
        #expect(group.frames.count == 3)
        #expect(group.frames.allSatisfy { !$0.contains(" + ") && !$0.contains("(in ") && !$0.contains(".c:") })
        #expect(!group.frames.contains { $0.contains("pthread") || $0.contains("libsystem_kernel") })
        if BatchFixture.toolExists("sha256sum") {
            let key = ([group.app] + group.frames).joined(separator: "\n")
            #expect(group.app == "com.example.HoldApp")
            #expect(group.id == String(try CrashGroupTests.sha256sum(key).prefix(16)))
        }
        #expect(group.id.count == 16 && group.id.allSatisfy(\.isHexDigit))
        #expect(summary.skippedFiles == [.init(path: folder + "/notes.txt", reason: SummaryCollector.notAReport)])

        // The report list: one line per input file, in any order.
        let text = try String(contentsOfFile: fixture.root + "/list.jsonl", encoding: .utf8)
        var lines: [String: [String: Any]] = [:]
        for line in text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            lines[try #require(object["path"] as? String)] = object
        }
        #expect(lines.count == summary.counts.files && lines.count == 5)
        for name in ["a.crash", "b.crash", "c.crash"] {
            let line = try #require(lines[folder + "/" + name])
            let bytes = try #require(FileManager.default.contents(atPath: folder + "/" + name))
            let processed = try service.process([UInt8](bytes), format: nil)
            let outcome = processed.outcome
            #expect(line["kind"] as? String == "crash")
            let status = outcome.isComplete ? "full" : outcome.symbolicatedFrames > 0 ? "partial" : "none"
            #expect(line["status"] as? String == status)
            #expect(line["frames_total"] as? Int == outcome.totalFrames)
            #expect(line["frames_symbolicated"] as? Int == outcome.symbolicatedFrames)
            #expect(line["reason"] is NSNull)
            #expect(summary.crashGroups.map(\.id).contains(line["group"] as? String ?? ""))
        }
        #expect(lines[folder + "/a.crash"]?["group"] as? String == group.id)
        #expect(lines[folder + "/b.crash"]?["group"] as? String == group.id)
        #expect(lines[folder + "/c.crash"]?["group"] as? String != group.id)
        let skipped = try #require(lines[folder + "/notes.txt"])
        #expect(skipped["kind"] as? String == "skipped" && skipped["status"] as? String == "skipped")
        #expect(skipped["reason"] as? String == SummaryCollector.notAReport && skipped["group"] is NSNull)
        let cut = try #require(lines[folder + "/cut.ips"])
        #expect(cut["kind"] as? String == "ips" && cut["status"] as? String == "unparsable")
        #expect((cut["reason"] as? String).map { !$0.isEmpty } == true)
    }

    static var diagnosticsFolder: String { BatchFixture.repoRoot + "/Samples/diagnostics" }

    /// Other report kinds keep their kind's name in the report list; a MetricKit crash joins
    /// the group of the same crash's .crash report, and a report without a crashed thread (a
    /// CPU-resource microstackshot, a bare call-stack tree) is in no group.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: diagnosticsFolder), "Samples/diagnostics is absent"))
    func otherKindsAndReportsWithoutACrash() throws {
        let fixture = try BatchFixture()
        defer { fixture.cleanUp() }
        try BatchFixture.write(try BatchFixture.sample(Self.sampleName), to: fixture.root + "/in/sample.crash")
        var configuration = BatchFixture.configuration(
            [fixture.root + "/in", Self.diagnosticsFolder], into: fixture.root + "/out")
        configuration.reportList = fixture.root + "/list.jsonl"
        let summary = try BatchRunner(configuration: configuration, service: try BatchFixture.service()).run()
        var lines: [String: [String: Any]] = [:]
        for line in try String(contentsOfFile: fixture.root + "/list.jsonl", encoding: .utf8).split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            lines[try #require(object["path"] as? String)] = object
        }
        let crashGroup = try #require(lines[fixture.root + "/in/sample.crash"]?["group"] as? String)
        let metricKit = try #require(lines[Self.diagnosticsFolder + "/HoldApp-metrickit.json"])
        #expect(metricKit["kind"] as? String == "metrickit")
        #expect(metricKit["group"] as? String == crashGroup)
        let cpu = try #require(lines[Self.diagnosticsFolder + "/HoldApp-cpu-resource.txt"])
        #expect(cpu["kind"] as? String == "microstackshot" && cpu["group"] is NSNull)
        #expect(lines[Self.diagnosticsFolder + "/HoldApp-callstacktree.json"]?["group"] is NSNull)
        #expect(summary.crashGroups.map(\.id) == [crashGroup])
    }
}
