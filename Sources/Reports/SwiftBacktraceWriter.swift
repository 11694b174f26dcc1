// SwiftBacktraceWriter: a symbolicated Swift runtime crash report in its own form, every other
// byte kept. Text: a frame line gets ` SYMBOL + OFF in IMAGE at FILE:LINE` after its address, as
// the runtime's `symbolicate=full` writes it (the store keeps no column; line 0, code no line
// owns, is left out as the runtime leaves it out), and each inlined
// function a line of its own before it, `N [inlined] 0xADDR SYMBOL in IMAGE at FILE:LINE`. JSON:
// a frame object gets the runtime's own keys, `symbol` (mangled), `offset`, `description`,
// `image` and `sourceLocation` {`file`, `line`}, and each inlined function an object of its own
// before it with `inlined: true`. As the runtime does, a return address's offset is counted from
// the call it returns from (address - 1). Levels an earlier run wrote (`Frame.levelLines`) are replaced.

import SymbolicateModel

enum SwiftBacktraceWriter {
    static func write(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        var edits: [ByteEdit] = []
        for (b, backtrace) in report.backtraces.enumerated() {
            for (f, frame) in backtrace.frames.enumerated() {
                guard let result = results[FrameID(backtrace: b, frame: f)], let last = result.frames.last,
                    let column = frame.symbolColumn, column.upperBound <= report.original.count
                else { continue }
                let image = report.image(for: frame)?.name ?? frame.imageName ?? "???"
                let inline = Array(result.frames.dropLast())
                // The runtime measures a return address's offset from the call (address - 1).
                var outer = last
                if frame.isReturnAddress, let offset = outer.symbolOffset, offset > 0 {
                    outer.symbolOffset = offset - 1
                }
                if report.format == .swiftBacktraceJSON {
                    edits += jsonEdits(report.original, frame, column, outer, inline: inline, image: image)
                } else {
                    edits += textEdits(report, frame, column, outer, inline: inline, image: image)
                }
            }
        }
        return ByteEdit.apply(edits, to: report.original)
    }

    /// `SYMBOL + OFF in IMAGE at FILE:LINE`, without the parts that are not known.
    static func describe(_ level: SymbolicatedFrame, image: String) -> String {
        var s = level.symbol
        if let offset = level.symbolOffset { s += " + \(offset)" }
        s += " in " + image
        if let file = level.file { s += " at " + file + (level.line.flatMap { $0 > 0 ? ":\($0)" : nil } ?? "") }
        return s
    }

    static func textEdits(
        _ report: CrashReport, _ frame: Frame, _ column: Range<Int>, _ outer: SymbolicatedFrame,
        inline: [SymbolicatedFrame], image: String
    ) -> [ByteEdit] {
        let original = report.original
        let ending = ByteText.lineEnding(original)
        let lineStart = ByteText.lineStart(original, at: column.lowerBound)
        var edits = [ByteEdit(range: column, bytes: Array((" " + describe(outer, image: image)).utf8))]
        // The inline lines keep the frame line's indentation and number.
        let margin = lineStart + ByteText.marginWidth(original, lineStart..<column.lowerBound)
        var indent = margin
        while indent < column.lowerBound, original[indent] == 0x20 || original[indent] == 0x09 { indent += 1 }
        // The address as the line spells it (the column starts right after it).
        var addressStart = column.lowerBound
        while addressStart > indent, original[addressStart - 1] != 0x20, original[addressStart - 1] != 0x09 {
            addressStart -= 1
        }
        let address = Array(original[addressStart..<column.lowerBound])
        var inserted: [UInt8] = []
        for level in inline {
            inserted += Array(original[lineStart..<indent])
            inserted += Array("\(frame.number) [inlined] ".utf8) + address + [0x20]
            inserted += Array(describe(level, image: image).utf8) + ending
        }
        let from = min(frame.levelLines?.lowerBound ?? lineStart, lineStart)
        if !inserted.isEmpty || from < lineStart { edits.append(ByteEdit(range: from..<lineStart, bytes: inserted)) }
        return edits
    }

    /// The runtime's keys for one level, values as JSON text.
    static func pairs(_ level: SymbolicatedFrame, image: String) -> [(String, String)] {
        var pairs: [(String, String)] = [("symbol", JSONWriter.quote(level.rawSymbol ?? level.symbol))]
        if let offset = level.symbolOffset { pairs.append(("offset", String(offset))) }
        pairs.append(
            ("description", JSONWriter.quote(level.symbol + (level.symbolOffset.map { " + \($0)" } ?? ""))))
        pairs.append(("image", JSONWriter.quote(image)))
        if let file = level.file {
            var location = "{ \"file\": " + JSONWriter.quote(file)
            if let line = level.line { location += ", \"line\": \(line)" }
            pairs.append(("sourceLocation", location + " }"))
        }
        return pairs
    }

    static func jsonEdits(
        _ original: [UInt8], _ frame: Frame, _ object: Range<Int>, _ outer: SymbolicatedFrame,
        inline: [SymbolicatedFrame], image: String
    ) -> [ByteEdit] {
        guard let node = try? SwiftBacktraceJSONParser.document(original, from: object.lowerBound).node,
            node.isObject
        else { return [] }
        let members = node.members.map {
            FrameKeys.Member(key: $0.key, keyRange: $0.keyRange, value: $0.value.range)
        }
        let written = pairs(outer, image: image)
        let stale = Set(["sourceLocation", "offset"]).subtracting(written.map(\.0))
        var edits = FrameKeys.edits(
            members, objectStart: object.lowerBound, pairs: written, stale: stale, keyValue: Array(": ".utf8),
            separator: Array(", ".utf8))
        let kind = node["kind"]?.string ?? "returnAddress"
        var inserted = ""
        for level in inline {
            let head: [(String, String)] = [
                ("kind", JSONWriter.quote(kind)), ("address", JSONWriter.quote(node["address"]?.string ?? "")),
                ("inlined", "true"),
            ]
            inserted +=
                "{ "
                + (head + pairs(level, image: image)).map { JSONWriter.quote($0.0) + ": " + $0.1 }
                .joined(separator: ", ") + " }, "
        }
        let from = frame.levelLines?.lowerBound ?? object.lowerBound
        if !inserted.isEmpty || from < object.lowerBound {
            edits.append(ByteEdit(range: from..<object.lowerBound, bytes: Array(inserted.utf8)))
        }
        return edits
    }
}
