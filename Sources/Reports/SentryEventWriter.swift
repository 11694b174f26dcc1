// SentryEventWriter: a symbolicated Sentry event, two ways.
//
// `write`: the same JSON with each symbolicated frame given `function`, `filename` and `lineno`
// (replacing what the device wrote, often `<redacted>`; `instruction_addr` and every other key
// kept), and, where functions were inlined, one frame object per level in place of the frame, as
// Symbolicator does: copies of the frame, each with its level's function and line, oldest first
// (the outermost function, then those inlined into it) as Sentry orders frames. `filename` and
// `lineno` the result has none for are removed. Every other byte stays as it was. The inserted
// copies carry `"symbolicate_inlined": true`: an event symbolicated again (a stored one, when
// another dSYM arrives) has them removed and made afresh, never read as frames of their own.
//
// `renderText`: each stack trace as an Apple text backtrace (innermost first), then the images.

import SymbolicateModel

enum SentryEventWriter {
    /// The keys Sentry's frames use; the offset is not one of them (`symbol_addr` is the device's).
    static let keys = FrameKeys(symbol: "function", offset: "symbol_offset", file: "filename", line: "lineno")
    /// The key that marks a frame object inserted for an inlined function.
    static let insertedKey = "symbolicate_inlined"

    static func write(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        let original = report.original
        guard let start = MetricKitWriter.jsonStart(original),
            let layout = try? SentryEventParser.layout(original, from: start)
        else { return original }
        let tape = layout.tape
        var edits: [ByteEdit] = []
        for (b, trace) in layout.traces.enumerated() {
            let frames = trace.frames
            var separator = Array(", ".utf8)
            if frames.count >= 2 {
                separator = Array(
                    original[tape.entries[frames[0]].range.upperBound..<tape.entries[frames[1]].range.lowerBound])
            }
            var expanded: Set<Int> = []
            for (d, entry) in frames.enumerated() {
                guard let result = results[FrameID(backtrace: b, frame: frames.count - 1 - d)],
                    result.status == .symbolicated, !result.frames.isEmpty
                else { continue }
                let range = tape.entries[entry].range
                let object = Array(original[range])
                let copies = result.frames.reversed().map { level -> [UInt8] in
                    var level = level
                    level.symbolOffset = nil
                    let shifted = MetricKitWriter.keyEdits(
                        entry, level, inline: [], tape: tape, original: original, keys: keys, inlineFrames: "", last: []
                    ).map {
                        ByteEdit(
                            range: ($0.range.lowerBound - range.lowerBound)..<($0.range.upperBound - range.lowerBound),
                            bytes: $0.bytes)
                    }
                    return ByteEdit.apply(shifted, to: object)
                }.enumerated().map { i, copy in i == 0 ? copy : Self.markedInserted(copy) }
                var bytes: [UInt8] = []
                for (i, copy) in copies.enumerated() {
                    if i > 0 { bytes += separator }
                    bytes += copy
                }
                edits.append(ByteEdit(range: range, bytes: bytes))
                expanded.insert(entry)
            }
            // The inline frames an earlier symbolication inserted for a frame written afresh go,
            // each with the separator before it.
            for (entry, previous, frame) in trace.inserted where expanded.contains(frame) {
                edits.append(
                    ByteEdit(
                        range: tape.entries[previous].range.upperBound..<tape.entries[entry].range.upperBound, bytes: []
                    ))
            }
        }
        return ByteEdit.apply(edits, to: original)
    }

    /// `object` (a frame object's bytes) with `insertedKey` first, laid out as its first member.
    static func markedInserted(_ object: [UInt8]) -> [UInt8] {
        guard let open = object.firstIndex(of: UInt8(ascii: "{")) else { return object }
        var first = open + 1
        while first < object.count, [0x20, 0x09, 0x0A, 0x0D].contains(object[first]) { first += 1 }
        let space = Array(object[(open + 1)..<first])
        return Array(object[...open]) + space + Array("\"\(insertedKey)\": true,".utf8)
            + (space.isEmpty ? Array(" ".utf8) : space) + Array(object[first...])
    }

    static func renderText(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        var lines: [String] = []
        for field in report.fields {
            lines.append(field.key + ":" + String(repeating: " ", count: max(1, 20 - field.key.count)) + field.value)
        }
        if let reason = report.applicationSpecificInformation {
            lines += ["", "Application Specific Information:", reason]
        }
        for (b, backtrace) in report.backtraces.enumerated() {
            lines.append("")
            lines.append("Thread \(backtrace.number ?? b) name:  \(backtrace.name ?? "")")
            lines.append("Thread \(backtrace.number ?? b)" + (backtrace.crashed ? " Crashed:" : ":"))
            for (f, frame) in backtrace.frames.enumerated() {
                let image = report.image(for: frame)?.name ?? frame.imageName ?? "???"
                guard let result = results[FrameID(backtrace: b, frame: f)], result.status == .symbolicated,
                    !result.frames.isEmpty
                else {
                    let column = ReportWriter.unsymbolicatedColumn(frame, in: report)
                    lines.append(
                        ReportWriter.frameLine(
                            number: frame.number, image: image, addressText: frame.addressText ?? "???", column: column)
                    )
                    continue
                }
                for level in result.frames {
                    lines.append(
                        ReportWriter.frameLine(
                            number: frame.number, image: image, address: frame.address,
                            column: ReportWriter.symbolColumn(level)))
                }
            }
        }
        lines += ["", "Binary Images:"]
        for image in report.images {
            let end = image.size.map { " - " + ASCII.hex(image.loadAddress &+ $0 &- 1) } ?? ""
            let uuid = image.uuid.map { " <\($0.compactString)>" } ?? ""
            lines.append(
                ASCII.hex(image.loadAddress) + end + " " + image.name + " " + (image.arch?.rawValue ?? "") + uuid + " "
                    + (image.path ?? ""))
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }
}
