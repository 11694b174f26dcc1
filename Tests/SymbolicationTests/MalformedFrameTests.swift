// A frame line that cannot be read inside a backtrace of a text report (`4   HoldApp   ???`, a
// line cut after the image name): the frame is kept with the status `malformed`, the frames
// after it are still counted and symbolicated, and the line is written back as it was. The
// reports are the Samples' own, with one frame line replaced here.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import TestSupport
import Testing

@Suite(.needsSamples) struct MalformedFrameTests {
    struct Mutation: Sendable, CustomTestStringConvertible {
        /// The line that opens the backtrace, and the number of the frame replaced in it.
        var header: String
        var frame: Int
        var replacement: String
        var testDescription: String { "\(header) frame \(frame) as \"\(replacement)\"" }
    }

    static let sample = "HoldApp-ios-arm64-dwarf5.crash"
    static let mutations = [
        Mutation(header: "Last Exception Backtrace:", frame: 4, replacement: "4   HoldApp   ???"),
        Mutation(header: "Thread 0 Crashed:", frame: 5, replacement: "5   HoldApp"),
    ]

    /// The sample with frame `frame` of the backtrace under `header` replaced.
    static func mutated(_ m: Mutation) throws -> [UInt8] {
        let text = try String(contentsOfFile: Repository.samplesReports + "/" + sample, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex(of: m.header))
        let target = header + 1 + m.frame
        try #require(lines[target].hasPrefix("\(m.frame)   HoldApp "))
        lines[target] = m.replacement
        return Array(lines.joined(separator: "\n").utf8)
    }

    static func service() throws -> SymbolicationService {
        SymbolicationService(locator: try SymbolPathLocator(paths: [Repository.samplesBuild]))
    }

    @Test(arguments: mutations)
    func theBacktraceGoesOnPastAnUnreadableFrameLine(_ m: Mutation) throws {
        let original = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: Repository.samplesReports + "/" + Self.sample)))
        let before = try Self.service().process(original, format: nil)
        let after = try Self.service().process(Self.mutated(m), format: nil)

        #expect(after.outcome.totalFrames == before.outcome.totalFrames)
        try #require(after.report.backtraces.map(\.frames.count) == before.report.backtraces.map(\.frames.count))
        let b = try #require(
            after.report.backtraces.firstIndex {
                m.header.hasPrefix("Last") ? $0.kind == .lastException : $0.number == 0
            })
        let frame = after.report.backtraces[b].frames[m.frame]
        #expect(frame.isMalformed && frame.number == m.frame && frame.imageName == "HoldApp")
        #expect(after.outcome.results[FrameID(backtrace: b, frame: m.frame)]?.status == .malformed)
        // Every other frame fares as it does in the sample: the HoldApp frames after it are symbolicated.
        for (id, result) in before.outcome.results where id != FrameID(backtrace: b, frame: m.frame) {
            #expect(after.outcome.results[id]?.status == result.status, "\(id)")
            #expect(after.outcome.results[id]?.frames == result.frames, "\(id)")
        }
        #expect(after.outcome.symbolicatedFrames == before.outcome.symbolicatedFrames - 1)
        let app = try #require(after.outcome.images.first { $0.image.name == "HoldApp" })
        #expect(app.framesSymbolicated == app.framesTotal - 1, "\(app.summary)")

        // The output is the sample's but for that frame: its line as the report has it, byte for byte.
        let out = String(decoding: after.output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let expected = String(decoding: before.output, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let head = zip(out, expected).prefix { $0 == $1 }.count
        let tail = zip(out.reversed(), expected.reversed()).prefix { $0 == $1 }.count
        #expect(Array(out[head..<(out.count - tail)]) == [Substring(m.replacement)])
        let replaced = expected[head..<(expected.count - tail)]
        #expect(!replaced.isEmpty && replaced.allSatisfy { $0.hasPrefix("\(m.frame)   HoldApp ") })
    }

    @Test(arguments: mutations)
    func jsonAndInspectShowTheFrameAsMalformed(_ m: Mutation) throws {
        let bytes = try Self.mutated(m)
        let processed = try Self.service().process(bytes, format: .json)
        let json = try #require(JSONSerialization.jsonObject(with: Data(processed.output)) as? [String: Any])
        #expect(json["frames_total"] as? Int == 23)
        let backtraces = try #require(json["backtraces"] as? [[String: Any]])
        let malformed = backtraces.flatMap { ($0["frames"] as? [[String: Any]]) ?? [] }
            .filter { $0["status"] as? String == "malformed" }
        #expect(malformed.count == 1)
        let frame = try #require(malformed.first)
        #expect(frame["number"] as? Int == m.frame && frame["image"] as? String == "HoldApp")
        #expect(frame["address"] is NSNull, "a malformed frame has no address to show")

        let report = try ReportParser.parse(bytes)
        #expect(ReportInspector.text(report).contains("frames: 23"))
        #expect(ReportInspector.text(report).contains("\n    \(m.frame) HoldApp ??? image #0 malformed\n"))
        let inspected = try #require(
            JSONSerialization.jsonObject(with: Data(ReportInspector.json(report).utf8)) as? [String: Any])
        let frames = ((inspected["backtraces"] as? [[String: Any]]) ?? []).flatMap {
            ($0["frames"] as? [[String: Any]]) ?? []
        }
        #expect(frames.count == 23)
        let marked = frames.filter { $0["malformed"] as? Bool == true }
        #expect(marked.count == 1 && marked.first?["address"] is NSNull)
        #expect(frames.filter { $0["malformed"] as? Bool == false }.count == 22)
    }
}
