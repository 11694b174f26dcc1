// The text rendering of a MetricKit call-stack tree is bounded: each node's line is indented by
// its depth, so a deep tree renders to far more bytes than its JSON (a 60 KB gzip body once
// rendered to 373 MB). Past the limit the rendering stops with a line that says how many lines
// were left out; below it, nothing changes.

import Foundation
import Testing

@testable import Reports

struct MetricKitRenderLimitTests {
    /// An aggregated tree `depth` nodes deep, one chain.
    static func deepTree(_ depth: Int) -> [UInt8] {
        var text = "{\"callStackPerThread\":false,\"callStacks\":[{\"callStackRootFrames\":["
        for i in 0..<depth {
            text +=
                "{\"binaryUUID\":\"4C4C44AA-5555-3144-A1C9-3105F2834F44\",\"offsetIntoBinaryTextSegment\":\(16556 + i)"
            text += ",\"sampleCount\":1,\"binaryName\":\"HoldKit\",\"address\":\(0x1_030a_40ac + i)"
            text += i + 1 < depth ? ",\"subFrames\":[" : "}"
        }
        text += String(repeating: "]}", count: depth - 1) + "]}]}"
        return Array(text.utf8)
    }

    @Test func aDeepTreeStopsAtTheLimitAndSaysSo() throws {
        let report = try ReportParser.parse(Self.deepTree(600))
        let whole = MetricKitWriter.renderText(report, results: [:])
        let wholeLines = String(decoding: whole, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(whole.count > 100_000, "\(whole.count)")
        let limit = 50_000
        let cut = MetricKitWriter.renderText(report, results: [:], limit: limit)
        var lines = String(decoding: cut, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        try #require(lines.count >= 2)
        #expect(lines.removeLast().isEmpty)
        let last = lines.removeLast()
        #expect(last.contains("more lines left out"), "\(last)")
        #expect(cut.count - last.utf8.count - 1 <= limit)
        // What is kept is the whole rendering's beginning, line for line.
        #expect(Array(wholeLines.prefix(lines.count)) == lines)
        let leftOut = Int(last.dropFirst().prefix { $0.isNumber }) ?? -1
        #expect(lines.count + leftOut == wholeLines.count - 1, "\(lines.count) + \(leftOut) vs \(wholeLines.count)")
    }

    @Test func aShallowTreeIsWhole() throws {
        let report = try ReportParser.parse(Self.deepTree(20))
        let text = String(decoding: MetricKitWriter.renderText(report, results: [:]), as: UTF8.self)
        #expect(!text.contains("left out"))
        #expect(text.split(separator: "\n").count >= 20)
    }
}
