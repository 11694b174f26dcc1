// MetricKitWriter: a symbolicated MetricKit document, two ways.
//
// `write`: the same JSON with each symbolicated frame object given App Store Connect's keys for
// a symbolicated call-stack node, `symbolName`, `offsetIntoSymbol`, `fileName`, `lineNumber`
// (the outermost function), and, when functions were inlined there, `inlineFrames`: an array of
// objects with the same keys, innermost first. A key the object has (an earlier run wrote it)
// gets the new value in its place; the others go after the frame's last member other than
// `subFrames`, in the object's own separator style. `fileName`, `lineNumber` and `inlineFrames`
// that the new result has none for are removed, so a document symbolicated again (when another
// dSYM has arrived) is what one run with every dSYM gives, and a frame the new run finds nothing
// for keeps what it had. Every other byte stays as it was, so key order, number spelling and
// whitespace are kept.
//
// `renderText`: a readable text report. Per-thread call stacks print as Apple's thread
// backtraces; aggregated trees print one line per node, indented by depth, with the node's
// sample count, as Apple's microstackshot reports do. Indentation grows with depth, so a deep
// tree renders to far more bytes than its JSON: the rendering stops at `maxRenderedBytes` with a
// last line that says how many lines were left out and where the whole tree is.

import SymbolicateModel

enum MetricKitWriter {
    static func write(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        let original = report.original
        guard let layout = layout(original) else { return original }
        let tape = layout.tape
        var edits: [ByteEdit] = []
        var b = 0
        for diagnostic in layout.diagnostics {
            for stack in diagnostic.stacks {
                for (f, node) in stack.nodes.enumerated() {
                    guard let result = results[FrameID(backtrace: b, frame: f)], result.status == .symbolicated,
                        let outer = result.frames.last
                    else { continue }
                    edits += keyEdits(
                        node.entry, outer, inline: result.frames.dropLast(), tape: tape, original: original)
                }
                b += 1
            }
        }
        return ByteEdit.apply(edits, to: original)
    }

    /// The MetricKit document in `bytes`, or nil when there is none to rewrite.
    static func layout(_ bytes: [UInt8]) -> MetricKitParser.Layout? {
        guard let start = jsonStart(bytes) else { return nil }
        return try? MetricKitParser.layout(bytes, from: start)
    }

    /// Where the JSON document starts (its first `{` or `[`).
    static func jsonStart(_ bytes: [UInt8]) -> Int? {
        bytes.firstIndex { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }
    }

    /// The edits that give the frame object `entry` `outer`'s keys (and `inlineFrames`), by the
    /// rule every JSON writer follows (`FrameKeys.edits`): each key's value replaced where the
    /// object has the key, else the pair added after its last member other than `subFrames`;
    /// `fileName`, `lineNumber` and `inlineFrames` that this result has none for are removed.
    /// Other JSON formats give their frames their own `keys`, inline array key and members kept last.
    static func keyEdits(
        _ entry: Int, _ outer: SymbolicatedFrame, inline: ArraySlice<SymbolicatedFrame>, tape: JSONTape,
        original: [UInt8], keys: FrameKeys = .metricKit, inlineFrames: String = inlineFrames,
        last: Set<String> = ["subFrames"]
    ) -> [ByteEdit] {
        let children = tape.children(entry)
        let style = Style(children, tape: tape, in: original)
        var pairs = keys.values(outer)
        if !inline.isEmpty {
            let objects = inline.map { level in
                "{"
                    + keys.values(level).map {
                        JSONWriter.quote($0.0) + String(decoding: style.keyValue, as: UTF8.self) + $0.1
                    }
                    .joined(separator: ", ") + "}"
            }
            pairs.append((inlineFrames, "[" + objects.joined(separator: ", ") + "]"))
        }
        let members = children.compactMap { child -> FrameKeys.Member? in
            let e = tape.entries[child]
            guard let key = e.key, let keyRange = e.keyRange else { return nil }
            return FrameKeys.Member(key: key, keyRange: keyRange, value: e.range)
        }
        return FrameKeys.edits(
            members, objectStart: tape.entries[entry].range.lowerBound, pairs: pairs,
            stale: keys.stale(pairs).union([inlineFrames]), last: last, keyValue: style.keyValue,
            separator: style.member)
    }

    /// The key that holds a frame's inline levels, innermost first.
    static let inlineFrames = "inlineFrames"

    /// The separators an object uses: between key and value, and between members (with the
    /// newline and indentation of a pretty-printed document).
    struct Style {
        var keyValue: [UInt8] = Array(":".utf8)
        var member: [UInt8] = Array(",".utf8)

        init(_ members: [Int], tape: JSONTape, in bytes: [UInt8]) {
            if let first = members.first, let key = tape.entries[first].keyRange,
                key.upperBound <= tape.entries[first].range.lowerBound
            {
                keyValue = Array(bytes[key.upperBound..<tape.entries[first].range.lowerBound])
            }
            if members.count >= 2, let key = tape.entries[members[1]].keyRange,
                tape.entries[members[0]].range.upperBound <= key.lowerBound
            {
                member = Array(bytes[tape.entries[members[0]].range.upperBound..<key.lowerBound])
            }
        }
    }

    // MARK: Text

    /// The most a text rendering may hold (a deep tree of 100,000 nodes, each line indented by
    /// its depth, would otherwise take hundreds of megabytes from a 60 KB gzip body).
    static let maxRenderedBytes = 64 << 20

    static func renderText(
        _ report: CrashReport, results: [FrameID: FrameResult], limit: Int = maxRenderedBytes
    ) -> [UInt8] {
        let original = report.original
        guard let layout = layout(original) else { return original }
        let tape = layout.tape
        var out = RenderedLines(limit: limit)
        for payload in layout.payloads {
            let begin = tape.scalarText(tape.member(payload, "timeStampBegin"))
            let end = tape.scalarText(tape.member(payload, "timeStampEnd"))
            if let begin, let end { out.append("MetricKit payload: \(begin) - \(end)") }
        }
        var b = 0
        for diagnostic in layout.diagnostics {
            if !out.isEmpty { out.append("") }
            for field in MetricKitParser.fields(of: diagnostic, tape) {
                out.append(field.key + ":" + String(repeating: " ", count: max(1, 20 - field.key.count)) + field.value)
            }
            for (s, stack) in diagnostic.stacks.enumerated() {
                out.append("")
                guard b < report.backtraces.count else { break }
                let backtrace = report.backtraces[b]
                if diagnostic.perThread {
                    out.append("Call stack \(s)" + (stack.threadAttributed ? " (attributed thread):" : ":"))
                } else {
                    out.append("Call stack tree \(s) (sample count, frame):")
                }
                for (f, frame) in backtrace.frames.enumerated() where f < stack.nodes.count {
                    let result = results[FrameID(backtrace: b, frame: f)]
                    if diagnostic.perThread {
                        out += threadLines(frame, result, report)
                    } else {
                        let node = stack.nodes[f]
                        let count = tape.scalarText(tape.member(node.entry, "sampleCount")) ?? "?"
                        out += treeLines(frame, result, report, depth: node.depth, count: count)
                    }
                }
                b += 1
            }
        }
        return out.bytes()
    }

    /// Lines up to a number of bytes; past it, only how many more there were.
    private struct RenderedLines {
        let limit: Int
        var lines: [String] = []
        var byteCount = 0
        var leftOut = 0

        var isEmpty: Bool { lines.isEmpty }

        mutating func append(_ line: String) {
            guard leftOut == 0, byteCount + line.utf8.count + 1 <= limit else {
                leftOut += 1
                return
            }
            byteCount += line.utf8.count + 1
            lines.append(line)
        }

        static func += (lines: inout RenderedLines, more: [String]) {
            for line in more { lines.append(line) }
        }

        func bytes() -> [UInt8] {
            var all = lines
            if leftOut > 0 {
                all.append(
                    "[\(leftOut) more lines left out: the text rendering stops at \(limit >> 20) MB;"
                        + " the JSON output (format ips or json) holds every frame]")
            }
            var out: [UInt8] = []
            out.reserveCapacity(byteCount + 200)
            for line in all {
                out += line.utf8
                out.append(0x0A)
            }
            return out
        }
    }

    /// `N   Image   0xADDR symbol + off (File.swift:12)`, one line per inline level.
    private static func threadLines(_ frame: Frame, _ result: FrameResult?, _ report: CrashReport) -> [String] {
        let image = report.image(for: frame)?.name ?? frame.imageName ?? "???"
        guard let result, result.status == .symbolicated, !result.frames.isEmpty else {
            return [
                ReportWriter.frameLine(
                    number: frame.number, image: image, address: frame.address,
                    column: ReportWriter.unsymbolicatedColumn(frame, in: report))
            ]
        }
        return result.frames.map {
            ReportWriter.frameLine(
                number: frame.number, image: image, address: frame.address, column: ReportWriter.symbolColumn($0))
        }
    }

    /// `  COUNT  symbol + off (File.swift:12) (Image + offset) [0xADDR]`, indented by depth;
    /// inline levels get their own lines at the same depth, outermost first, so they read from
    /// caller to callee like the tree.
    private static func treeLines(
        _ frame: Frame, _ result: FrameResult?, _ report: CrashReport, depth: Int, count: String
    ) -> [String] {
        let image = report.image(for: frame)
        let name = image?.name ?? frame.imageName ?? "???"
        var location = "(\(name)"
        if let image, frame.address >= image.loadAddress { location += " + \(frame.address - image.loadAddress)" }
        location += ") [" + ASCII.hex(frame.address) + "]"
        let indent = String(repeating: "  ", count: min(depth, 512))
        guard let result, result.status == .symbolicated, !result.frames.isEmpty else {
            return ["\(indent)\(count)  ??? \(location)"]
        }
        return result.frames.reversed().map { "\(indent)\(count)  \(ReportWriter.symbolColumn($0)) \(location)" }
    }
}
