// IPSWriter: adds symbols to an `.ips` report the way Xcode does, without re-serialising it.
// A symbolicated frame object gains (or has replaced) `symbol`, `symbolLocation`,
// `sourceFile` and `sourceLine`, written in the object's own separator style after its last
// key, and loses a `sourceFile` or `sourceLine` an earlier run wrote that this run has none
// for; each inline level becomes an extra frame object with `"inline":true` placed before its
// caller in the same array, in place of the inline objects an earlier run put there (so a report
// symbolicated again, when another dSYM has arrived, keeps one set). The frame lines of an
// `asiBacktraces` string are rewritten as a text report's are, inline lines replaced alike.
// Every other byte of the document stays as it was.

import SymbolicateModel

enum IPSWriter {
    static func write(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        let original = report.original
        guard let bodyStart = ReportParser.ipsBodyStart(original),
            let body = try? IPSReportParser.parseBody(original, bodyStart: bodyStart)
        else { return original }
        var edits: [ByteEdit] = []
        for (b, list) in IPSReportParser.frameLists(body).enumerated() {
            let arraySeparator =
                list.objects.count >= 2
                ? Array(original[list.objects[0].range.upperBound..<list.objects[1].range.lowerBound])
                : Array(",".utf8)
            for (f, node) in list.frames.enumerated() {
                guard let result = results[FrameID(backtrace: b, frame: f)], let outer = result.frames.last else {
                    continue
                }
                let style = Style(node, in: original)
                edits += keyEdits(node, outer, style: style, original: original)
                var inserted: [UInt8] = []
                for level in result.frames.dropLast() {
                    inserted += inlineObject(node, level, style: style, original: original) + arraySeparator
                }
                let replaced = list.inlineBefore[f].first?.range.lowerBound ?? node.range.lowerBound
                if !inserted.isEmpty || replaced < node.range.lowerBound {
                    edits.append(ByteEdit(range: replaced..<node.range.lowerBound, bytes: inserted))
                }
            }
        }
        // asiBacktraces: frame lines inside JSON strings; the string is rewritten as text.
        var b = IPSReportParser.frameLists(body).count
        for node in body["asiBacktraces"]?.elements ?? [] {
            guard let text = node.string else { continue }
            if let rewritten = rewriteTextBacktrace(text, backtrace: b, results: results) {
                edits.append(ByteEdit(range: node.range, bytes: Array(JSONWriter.quote(rewritten).utf8)))
            }
            b += 1
        }
        return ByteEdit.apply(edits, to: original)
    }

    /// The frame lines of an `asiBacktraces` string with its symbolicated frames rewritten (the
    /// inline lines an earlier run wrote for a frame replaced by this run's), or nil when none
    /// of them is.
    static func rewriteTextBacktrace(_ text: String, backtrace b: Int, results: [FrameID: FrameResult]) -> String? {
        let bytes = Array(text.utf8)
        var edits: [ByteEdit] = []
        for (f, frame) in FrameLine.backtrace(bytes).enumerated() {
            if let result = results[FrameID(backtrace: b, frame: f)], let column = frame.symbolColumn {
                edits += ReportWriter.frameEdits(
                    bytes, column: column, result: result, ending: ByteText.lineEnding(bytes),
                    replacingLevels: frame.levelLines)
            }
        }
        guard !edits.isEmpty else { return nil }
        return String(decoding: ByteEdit.apply(edits, to: bytes), as: UTF8.self)
    }

    /// The separators an object uses: between key and value, and between members.
    struct Style {
        var keyValue: [UInt8] = Array(":".utf8)
        var member: [UInt8] = Array(",".utf8)

        init(_ node: JSONNode, in bytes: [UInt8]) {
            let members = node.members
            if let first = members.first, first.keyRange.upperBound <= first.value.range.lowerBound {
                keyValue = Array(bytes[first.keyRange.upperBound..<first.value.range.lowerBound])
            }
            if members.count >= 2, members[0].value.range.upperBound <= members[1].keyRange.lowerBound {
                member = Array(bytes[members[0].value.range.upperBound..<members[1].keyRange.lowerBound])
            }
        }

        func pair(_ key: String, _ value: String) -> [UInt8] {
            Array(JSONWriter.quote(key).utf8) + keyValue + Array(value.utf8)
        }
    }

    /// The edits that give frame object `node` the keys of `level`, the outermost function found
    /// for it, by the rule every JSON writer follows (`FrameKeys.edits`): each key's value
    /// replaced where the object has the key, else the pair added after its last member, and the
    /// `sourceFile` and `sourceLine` that `level` has none for removed.
    static func keyEdits(_ node: JSONNode, _ level: SymbolicatedFrame, style: Style, original: [UInt8]) -> [ByteEdit] {
        let pairs = FrameKeys.ips.values(level)
        return FrameKeys.edits(
            node.members.map { FrameKeys.Member(key: $0.key, keyRange: $0.keyRange, value: $0.value.range) },
            objectStart: node.range.lowerBound, pairs: pairs, stale: FrameKeys.ips.stale(pairs),
            keyValue: style.keyValue, separator: style.member)
    }

    /// An inline frame object modelled on its caller: same imageOffset and imageIndex.
    static func inlineObject(_ node: JSONNode, _ level: SymbolicatedFrame, style: Style, original: [UInt8]) -> [UInt8] {
        var parts: [[UInt8]] = []
        if let offset = node.members.first(where: { $0.key == "imageOffset" }) {
            parts.append(style.pair("imageOffset", String(decoding: original[offset.value.range], as: UTF8.self)))
        }
        let keys = FrameKeys.ips
        for (key, value) in keys.values(level) where key == keys.symbol {
            parts.append(style.pair(key, value))
        }
        parts.append(style.pair("inline", "true"))
        if let index = node.members.first(where: { $0.key == "imageIndex" }) {
            parts.append(style.pair("imageIndex", String(decoding: original[index.value.range], as: UTF8.self)))
        }
        for (key, value) in keys.values(level) where key == keys.file || key == keys.line {
            parts.append(style.pair(key, value))
        }
        var out: [UInt8] = Array("{".utf8)
        for (i, p) in parts.enumerated() {
            if i > 0 { out += style.member }
            out += p
        }
        return out + Array("}".utf8)
    }
}
