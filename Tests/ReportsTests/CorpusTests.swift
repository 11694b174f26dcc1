// Tests over the real reports of the shared corpus: every Apple crash report parses, with its
// frame count and image UUIDs equal to what an independent count finds (regular expressions
// over the text, JSONSerialization over `.ips`), and is written back byte-identical; every other
// format is refused with `.unsupported` and a message naming what it is.

import Foundation
import Reports
import SymbolicateModel
import TestSupport
import Testing

@Suite(.tags(.corpus)) struct CorpusTests {
    /// Frame count and image UUIDs (uppercase, no dashes; not the null UUID) found without our parser.
    static func independentCounts(_ bytes: [UInt8]) throws -> (frames: Int, uuids: Set<String>) {
        let text = String(decoding: bytes, as: UTF8.self)
        let frameLine = try Regex(#"^\s*\d+\s+\S.*?\s0x[0-9a-fA-F]+(\s|$)"#)
        let firstLine = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        let rest = text.split(separator: "\n", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        if firstLine.contains("\"bug_type\""), rest.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
            let body = try #require(try JSONSerialization.jsonObject(with: Data(rest.utf8)) as? [String: Any])
            var frames = 0
            for thread in body["threads"] as? [[String: Any]] ?? [] {
                frames += (thread["frames"] as? [Any])?.count ?? 0
            }
            frames += (body["lastExceptionBacktrace"] as? [Any])?.count ?? 0
            for asi in body["asiBacktraces"] as? [String] ?? [] {
                frames += asi.split(separator: "\n").filter { $0.firstMatch(of: frameLine) != nil }.count
            }
            let uuids = (body["usedImages"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
            return (frames, Set(uuids.map { $0.uppercased().replacing("-", with: "") }).subtracting([nullUUID]))
        }
        var frames = 0
        var uuids = Set<String>()
        var inImages = false
        let uuid = try Regex(#"<([0-9a-fA-F-]{32,36})>"#)
        for line in text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            if line.hasPrefix("Binary Images:") {
                inImages = true
                continue
            }
            if inImages {
                if line.trimmingCharacters(in: .whitespaces).isEmpty {
                    inImages = false
                    continue
                }
                if let m = line.firstMatch(of: uuid), let s = m.output[1].substring {
                    uuids.insert(s.uppercased().replacing("-", with: ""))
                }
                continue
            }
            if line.firstMatch(of: frameLine) != nil { frames += 1 }
        }
        return (frames, uuids.subtracting([nullUUID]))
    }

    /// Apple's id for an image it does not know; no build has it, so it is no UUID.
    static let nullUUID = String(repeating: "0", count: 32)

    @Test(.tags(.corpus), .needsCorpus, arguments: Corpus.appleReports)
    func appleReportParsesAndRoundTrips(entry: Corpus.Entry) throws {
        let bytes = try Corpus.bytes(entry.file)
        let report = try ReportParser.parse(bytes)
        let expected = try Self.independentCounts(bytes)
        #expect(report.frameCount == expected.frames, "frame count of \(entry.file)")
        let uuids = Set(report.images.compactMap { $0.uuid?.bytes.map { String(format: "%02X", $0) }.joined() })
        #expect(uuids == expected.uuids, "image UUIDs of \(entry.file)")
        #expect(
            report.format
                == (entry.format.hasPrefix("apple-ips")
                    ? .ips : entry.format.contains("JSON header") ? .jsonHeaderText : .text))
        #expect(ReportWriter.write(report, results: [:]) == bytes, "round trip of \(entry.file)")
        for backtrace in report.backtraces where backtrace.kind == .thread {
            #expect(backtrace.frames.enumerated().allSatisfy { $0.element.isReturnAddress == ($0.offset > 0) })
        }
    }

    /// Figures counted by hand from the files (or with python's json module for `.ips`).
    static let handCounted: [(file: String, frames: Int, images: Int, threads: Int, firstUUID: String)] = [
        (
            "inket__MacSymbolicator/Resources/Crashes/ios-crash.crash", 130, 16, 9,
            "178BEEAF-85DC-35A7-B02C-B951EBA169CE"
        ),
        ("inket__MacSymbolicator/Resources/Crashes/ios-crash.ips", 130, 16, 9, "178BEEAF-85DC-35A7-B02C-B951EBA169CE"),
        (
            "inket__MacSymbolicator/Resources/Crashes/multi-target-crash.crash", 4, 4, 1,
            "19D7B567-6D0A-356A-8A2B-B45162BD77AB"
        ),
        (
            "llvm__llvm-project/lldb/test/Shell/ScriptInterpreter/Python/Crashlog/Inputs/application_specific_info/leb.txt",
            29, 8, 1,
            ""
        ),
        ("zqqf16__SYM/SYMTests/AppleJson.ips", 75, 13, 8, "9618B2F2-A4C2-3E07-B7EE-D8D9E1BDEAEC"),
        ("zqqf16__SYM/SYMTests/AppleConverted.log", 75, 13, 8, "9618B2F2-A4C2-3E07-B7EE-D8D9E1BDEAEC"),
        (
            "getsentry__apple-crash-report-parser/tests/fixtures/spaces.txt", 17, 17, 1,
            "DEBEFF4E-2653-4F38-E59B-C9DE7B8DAADE"
        ),
        ("kstenerud__KSCrash/Example-Reports/NSException.txt", 48, 123, 8, "99E112D2-0CB4-3F73-BDA6-BCFC1F190724"),
        (
            "getsentry__apple-crash-report-parser/tests/fixtures/handcrafted.txt", 17, 5, 2,
            "2D903291-397D-3D14-BFCA-52C7FB8C5E00"
        ),
        ("getsentry__apple-crash-report-parser/tests/fixtures/xcode16.txt", 0, 0, 0, ""),
        ("inket__MacSymbolicator/Resources/Other/ios-crash-with-json-header.crash", 129, 17, 8, ""),
        ("inket__MacSymbolicator/Resources/Crashes/single-target-crash.ips", 3, 3, 1, ""),
    ]

    @Test(.tags(.corpus), .needsCorpus)
    func handCountedFigures() throws {
        for item in Self.handCounted {
            let r = try ReportParser.parse(try Corpus.bytes(item.file))
            #expect(r.frameCount == item.frames, "\(item.file)")
            #expect(r.images.count == item.images, "\(item.file)")
            #expect(r.threads.count == item.threads, "\(item.file)")
            if !item.firstUUID.isEmpty {
                #expect(r.images.first?.uuid == BuildID(string: item.firstUUID), "\(item.file)")
            }
        }
    }

    @Test(.tags(.corpus), .needsCorpus)
    func ipsDetails() throws {
        let r = try ReportParser.parse(
            try Corpus.bytes(
                "llvm__llvm-project/lldb/test/Shell/ScriptInterpreter/Python/Crashlog/Inputs/application_specific_info/leb.txt"
            ))
        #expect(r.backtraces.map(\.kind) == [.thread, .lastException, .applicationSpecific])
        #expect(r.backtraces.map(\.frames.count) == [15, 7, 7])
        let leb = r.backtraces[1]
        #expect(leb.frames[0].symbol == "__exceptionPreprocess" && leb.frames[0].symbolOffset == 164)
        #expect(leb.frames[0].address == r.images[5].loadAddress + 1_033_228)
        #expect(leb.frames.allSatisfy { $0.isReturnAddress })
        #expect(r.backtraces[2].frames[0].address == 0x1_a0a5_8418 && r.backtraces[2].frames[0].imageIndex == 5)
        #expect(r.applicationSpecificInformation?.contains("NSRangeException") == true)
        #expect(r.backtraces[0].crashed && r.backtraces[0].queue == "com.apple.main-thread")
        #expect(r.arch == .arm64)
    }

    static func expectedWord(_ format: String) -> String {
        if format.hasPrefix("metrickit") { return "MetricKit" }
        if format.hasPrefix("kscrash") { return "KSCrash" }
        if format.hasPrefix("sentry") { return "Sentry" }
        if format.hasPrefix("android") { return "Android tombstone" }
        if format.hasPrefix("plcrash") { return "PLCrashReporter" }
        if format.hasPrefix("umeng") { return "Umeng" }
        return "?"
    }

    /// `sample` call graphs: one sample tree per thread, every frame in an image of Binary Images.
    @Test(.tags(.corpus), .needsCorpus, arguments: Corpus.sampleReports)
    func sampleOutputIsRead(entry: Corpus.Entry) throws {
        let r = try ReportParser.parse(try Corpus.bytes(entry.file))
        #expect(r.format == .sample)
        #expect(r.arch == .x86_64)
        #expect(r.backtraces.allSatisfy { $0.kind == .sampleTree && $0.name?.hasPrefix("Thread_") == true })
        #expect(r.frameCount == (entry.file.contains("multithread") ? 17 : 6), "counted by hand")
        #expect(r.backtraces.flatMap(\.frames).allSatisfy { $0.imageIndex != nil })
        #expect(r.images.count == 130)
    }

    /// spindump process sections: a sample tree per thread, `<patched truncated backtrace>` inside
    /// a tree, and every frame in an image its own process loads, at the offset its line states.
    @Test(.tags(.corpus), .needsCorpus, arguments: Corpus.spindumpReports)
    func spindumpProcessSectionsAreRead(entry: Corpus.Entry) throws {
        let bytes = try Corpus.bytes(entry.file)
        let r = try ReportParser.parse(bytes)
        #expect(r.format == .microstackshot)
        let text = String(decoding: bytes, as: UTF8.self)
        let threads = text.components(separatedBy: "\n").filter { $0.hasPrefix("  Thread 0x") }
        #expect(r.backtraces.count == threads.count && threads.count > 1)
        #expect(r.backtraces.allSatisfy { $0.kind == .sampleTree && $0.name?.hasPrefix("Thread 0x") == true })
        let offset = try NSRegularExpression(pattern: #"\(([^()]+) \+ (\d+)\) \[0x([0-9a-f]+)\]$"#)
        var lines = 0
        for line in text.components(separatedBy: "\n") {
            guard let m = offset.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) else { continue }
            let part = { (i: Int) in (line as NSString).substring(with: m.range(at: i)) }
            let address = try #require(UInt64(part(3), radix: 16))
            let frame = try #require(r.backtraces.flatMap(\.frames).first { $0.address == address }, "\(line)")
            let image = try #require(r.image(for: frame), "\(line)")
            // The line names the image by its file (`CoreFoundation`), Binary Images by its bundle
            // id (`com.apple.CoreFoundation`) and path.
            let named = image.name == part(1) || image.path.flatMap(PathParts.last) == part(1)
            #expect(named && image.loadAddress + (UInt64(part(2)) ?? 0) == address, "\(line)")
            lines += 1
        }
        #expect(lines == r.frameCount)
        // The node above a truncation mark has children below the mark: a return address.
        let marked = try #require(
            text.components(separatedBy: "\n").firstIndex { $0.contains("<patched truncated backtrace>") })
        let above = text.components(separatedBy: "\n")[marked - 1]
        let aboveAddress = try #require(above.split(separator: "[0x").last.flatMap { UInt64($0.dropLast(), radix: 16) })
        #expect(r.backtraces.flatMap(\.frames).first { $0.address == aboveAddress }?.isReturnAddress == true)
    }

    @Test(.tags(.corpus), .needsCorpus, arguments: Corpus.otherReports)
    func otherFormatsAreRefused(entry: Corpus.Entry) throws {
        let bytes = try Corpus.bytes(entry.file)
        do {
            _ = try ReportParser.parse(bytes)
            Issue.record("\(entry.file) (\(entry.format)) was accepted")
        } catch let error as SymbolicateError {
            #expect(error.code == .unsupported)
            #expect(error.message.hasPrefix("not an Apple crash report"))
            #expect(error.message.contains(Self.expectedWord(entry.format)), "\(error.message)")
        }
    }
}
