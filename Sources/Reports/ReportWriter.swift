// ReportWriter: writes a report back with its symbolicated frames rewritten in place. Text
// reports keep every byte but the symbol columns of rewritten frames (plus one line per inline
// level, in place of those an earlier run wrote); `.ips` reports gain keys and inline frame
// objects (IPSWriter), MetricKit documents keys (MetricKitWriter). With no
// symbolicated results the output is the original document, byte for byte. A malformed frame
// (a line or object the parser could not read) is never rewritten: it stays as the report has it.

import SymbolicateModel

/// One replacement of `range` of the original document (an empty range inserts).
struct ByteEdit {
    var range: Range<Int>
    var bytes: [UInt8]
    /// Where the new bytes stand in the pool the writer keeps for all its edits (`apply`'s
    /// `pool`), when they are there rather than in `bytes`: a frame's column is not an array
    /// of its own.
    var pooled: Range<Int>? = nil

    /// The new bytes, from `bytes` or from `pool`.
    func replacement(_ pool: [UInt8]) -> ArraySlice<UInt8> { pooled.map { pool[$0] } ?? bytes[...] }

    /// Applies non-overlapping edits to `original` in one pass; `pool` holds the bytes of the
    /// pooled ones.
    static func apply(_ edits: [ByteEdit], to original: [UInt8], pool: [UInt8] = []) -> [UInt8] {
        guard !edits.isEmpty else { return original }
        // By start; at one start, insertions first; else in the order given. Writers mostly
        // give their edits in that order already, and then they are not sorted again.
        func precedes(_ a: ByteEdit, _ b: ByteEdit) -> Bool {
            if a.range.lowerBound != b.range.lowerBound { return a.range.lowerBound < b.range.lowerBound }
            return a.range.isEmpty && !b.range.isEmpty
        }
        let inOrder = zip(edits, edits.dropFirst()).allSatisfy { !precedes($1, $0) }
        let sorted =
            inOrder
            ? edits
            : edits.enumerated().sorted { a, b in
                precedes(a.element, b.element) || (!precedes(b.element, a.element) && a.offset < b.offset)
            }.map(\.element)
        var out: [UInt8] = []
        out.reserveCapacity(original.count + edits.reduce(0) { $0 + ($1.pooled?.count ?? $1.bytes.count) })
        var cursor = 0
        for edit in sorted {
            let lo = min(max(edit.range.lowerBound, cursor), original.count)
            let hi = min(max(edit.range.upperBound, lo), original.count)
            out.append(contentsOf: original[cursor..<lo])
            out.append(contentsOf: edit.replacement(pool))
            cursor = hi
        }
        out.append(contentsOf: original[cursor...])
        return out
    }
}

public enum ReportWriter {
    /// The report in its own format with the symbolicated frames of `results` rewritten.
    public static func write(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        switch report.format {
        case .text, .jsonHeaderText, .microstackshot, .sample:
            // The text writer asks each frame's result whether it rewrites the frame itself.
            return writeText(report, results: results)
        default: break
        }
        let useful = rewritable(report, results)
        if report.format == .plcrash { return PLCrashTextRenderer.render(report, results: useful) }
        guard !useful.isEmpty else { return report.original }
        switch report.format {
        case .ips: return IPSWriter.write(report, results: useful)
        case .metricKit: return MetricKitWriter.write(report, results: useful)
        case .kscrash: return KSCrashWriter.write(report, results: useful)
        case .sentryEvent: return SentryEventWriter.write(report, results: useful)
        case .plcrash: return PLCrashTextRenderer.render(report, results: useful)
        case .text, .jsonHeaderText, .microstackshot, .sample: return writeText(report, results: useful)
        case .swiftBacktrace, .swiftBacktraceJSON: return SwiftBacktraceWriter.write(report, results: useful)
        }
    }

    /// The report in Apple's text layout: `.ips` and MetricKit are translated, text is written as
    /// `write` does.
    public static func renderText(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        switch report.format {
        case .ips:
            return IPSTextRenderer.render(report, results: rewritable(report, results))
        case .metricKit: return MetricKitWriter.renderText(report, results: results)
        case .kscrash: return KSCrashTextRenderer.render(report, results: rewritable(report, results))
        case .sentryEvent: return SentryEventWriter.renderText(report, results: rewritable(report, results))
        case .plcrash: return PLCrashTextRenderer.render(report, results: rewritable(report, results))
        case .text, .jsonHeaderText, .microstackshot, .sample, .swiftBacktrace, .swiftBacktraceJSON:
            return write(report, results: results)
        }
    }

    /// The results that rewrite a frame: symbolicated ones, of frames that are not malformed.
    static func rewritable(_ report: CrashReport, _ results: [FrameID: FrameResult]) -> [FrameID: FrameResult] {
        results.filter { id, result in
            guard report.backtraces.indices.contains(id.backtrace),
                report.backtraces[id.backtrace].frames.indices.contains(id.frame)
            else { return false }
            return rewrites(result, report.backtraces[id.backtrace].frames[id.frame])
        }
    }

    /// True when `result` rewrites `frame`: symbolicated, with levels, and the frame not malformed.
    static func rewrites(_ result: FrameResult, _ frame: Frame) -> Bool {
        result.status == .symbolicated && !result.frames.isEmpty && !frame.isMalformed
    }

    /// `SYMBOL + OFFSET (File.swift:LINE)`, the symbol column of a symbolicated frame line. Line 0
    /// (code no source line owns) is printed as Apple's tools print it: `(<compiler-generated>:0)`.
    public static func symbolColumn(_ f: SymbolicatedFrame) -> String {
        var bytes: [UInt8] = []
        appendSymbolColumn(f, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `symbolColumn`'s bytes, appended to `out`: how a text report's frames are rewritten, every
    /// frame of every report, without making a string on the way.
    static func appendSymbolColumn(_ f: SymbolicatedFrame, to out: inout [UInt8]) {
        var symbol = f.symbol
        var file = f.file
        // Room for the column, growing as an array grows (a pool of columns calls this often).
        let needed = symbol.utf8.count + (file?.utf8.count ?? 0) + 32
        if out.capacity - out.count < needed { out.reserveCapacity(max(out.count + needed, out.capacity * 2)) }
        symbol.withUTF8 { out.append(contentsOf: $0) }
        if let offset = f.symbolOffset {
            out.append(0x20)
            out.append(UInt8(ascii: "+"))
            out.append(0x20)
            ASCII.appendDecimal(offset, to: &out)
        }
        guard file != nil else { return }
        out.append(0x20)
        out.append(UInt8(ascii: "("))
        // The last path component (PathParts.name with backslashes), as Apple's reports print it.
        file!.withUTF8 { path in
            var start = path.count
            while start > 0, path[start - 1] != UInt8(ascii: "/"), path[start - 1] != UInt8(ascii: "\\") { start -= 1 }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: path[start...]))
        }
        if let line = f.line {
            out.append(UInt8(ascii: ":"))
            if line < 0 { out.append(UInt8(ascii: "-")) }
            ASCII.appendDecimal(UInt64(line.magnitude), to: &out)
        }
        out.append(UInt8(ascii: ")"))
    }

    /// A `sample` call-graph node as `sample` prints one it has symbols for, from the symbol on:
    /// `SYMBOL  (in IMAGE) + OFFSET  [0xADDRESS]  File.swift:LINE` (an inlined level has no offset).
    static func sampleNode(_ f: SymbolicatedFrame, image: String, address: UInt64) -> String {
        var s = f.symbol + "  (in " + image + ")"
        if let offset = f.symbolOffset { s += " + \(offset)" }
        s += "  [" + ASCII.hex(address) + "]"
        if let file = f.fileName { s += "  " + file + (f.line.map { ":\($0)" } ?? "") }
        return s
    }

    /// A frame line in the layout Apple's tools print: number, image, address, symbol column.
    static func frameLine(number: Int, image: String, address: UInt64, column: String) -> String {
        frameLine(number: number, image: image, addressText: ASCII.hex(address), column: column)
    }

    /// The same with the address column as text (`???` for a malformed frame, which has none).
    static func frameLine(number: Int, image: String, addressText hex: String, column: String) -> String {
        var s = String(number)
        s += String(repeating: " ", count: max(1, 4 - s.count))
        s += image
        if image.count < 30 { s += String(repeating: " ", count: 30 - image.count) }
        s += "\t" + String(repeating: " ", count: max(0, 18 - hex.count)) + hex + " " + column
        return s
    }

    /// The symbol column of an unsymbolicated frame: `0xBASE + OFFSET`, or the address alone.
    static func unsymbolicatedColumn(_ frame: Frame, in report: CrashReport) -> String {
        guard let image = report.image(for: frame), frame.address >= image.loadAddress else {
            return ASCII.hex(frame.address)
        }
        return ASCII.hex(image.loadAddress) + " + \(frame.address - image.loadAddress)"
    }

    /// Backtrace `b` as frame lines of their own (an .ips rendered as text, a parenthesized Last
    /// Exception Backtrace opened up): a symbolicated frame as its levels, any other with the
    /// symbol the report gave it, else as image + offset; a malformed frame with `???` for the
    /// address and for a symbol the report does not give. Both kinds of backtrace number their
    /// frames from 0 in order, so `Frame.number` is the line's number.
    static func frameLines(_ report: CrashReport, backtrace b: Int, results: [FrameID: FrameResult]) -> [String] {
        var lines: [String] = []
        for (f, frame) in report.backtraces[b].frames.enumerated() {
            let image = report.image(for: frame)?.name ?? frame.imageName ?? "???"
            if let result = results[FrameID(backtrace: b, frame: f)] {
                for level in result.frames {
                    lines.append(
                        frameLine(
                            number: frame.number, image: image, address: frame.address, column: symbolColumn(level)))
                }
                continue
            }
            var column: String
            if frame.isMalformed, frame.symbol == nil {
                column = "???"
            } else if let symbol = frame.symbol {
                column = symbol + (frame.symbolOffset.map { " + \($0)" } ?? "")
                if let file = frame.sourceFile {
                    column += frame.sourceLine.map { " (\(file):\($0))" } ?? " (\(file))"
                }
            } else {
                column = unsymbolicatedColumn(frame, in: report)
            }
            lines.append(
                frameLine(number: frame.number, image: image, addressText: frame.addressText ?? "???", column: column))
        }
        return lines
    }

    /// A text report with the frames `results` rewrite (`rewrites`) rewritten: each frame's
    /// result is asked as its line is written; a parenthesized backtrace and `sample`'s summary
    /// get the rewritable results (`rewritable`), made only when the report has them.
    static func writeText(_ report: CrashReport, results all: [FrameID: FrameResult]) -> [UInt8] {
        var useful: [FrameID: FrameResult]? = nil
        func rewritableResults() -> [FrameID: FrameResult] {
            if let useful { return useful }
            let made = rewritable(report, all)
            useful = made
            return made
        }
        let original = report.original
        let ending = ByteText.lineEnding(original)
        var edits: [ByteEdit] = []
        let frames = report.backtraces.reduce(0) { $0 + $1.frames.count }
        edits.reserveCapacity(frames)
        var pool: [UInt8] = []
        pool.reserveCapacity(frames * 96)
        // The parenthesized backtraces (a Last Exception Backtrace as a list of addresses), numbered
        // in report order as `parenthesizedBacktraceRange` counts them.
        var occurrences: [Int: Int] = [:]
        for (b, backtrace) in report.backtraces.enumerated()
        where backtrace.kind == .lastException && !backtrace.frames.isEmpty
            && backtrace.frames.allSatisfy({ $0.symbolColumn == nil && !$0.isMalformed })
        {
            occurrences[b] = occurrences.count
        }
        // Backtraces in the order their lines stand in the document (a Last Exception Backtrace
        // before the threads), so that the edits come in order and need no sorting.
        let order = report.backtraces.indices.sorted { a, b in
            let (x, y) = (firstColumn(report.backtraces[a]), firstColumn(report.backtraces[b]))
            return x != y ? x < y : a < b
        }
        for b in order {
            let backtrace = report.backtraces[b]
            if let occurrence = occurrences[b] {
                if let edit = parenthesizedEdit(
                    report, backtrace: b, occurrence: occurrence, results: rewritableResults(), ending: ending)
                {
                    edits.append(edit)
                }
                continue
            }
            // Frames are read in place, not copied one by one.
            backtrace.frames.withUnsafeBufferPointer { frames in
                for f in frames.indices {
                    guard let result = all[FrameID(backtrace: b, frame: f)], rewrites(result, frames[f]),
                        let column = frames[f].symbolColumn
                    else {
                        continue
                    }
                    if report.format == .sample {
                        let frame = frames[f]
                        let image = frame.imageName ?? report.image(for: frame)?.name ?? "???"
                        appendFrameEdits(
                            original, column: column, result: result, ending: ending, inTree: true,
                            replacingLevels: frame.levelLines,
                            render: { sampleNode($0, image: image, address: frame.address) }, to: &edits,
                            pool: &pool)
                    } else {
                        appendFrameEdits(
                            original, column: column, result: result, ending: ending,
                            inTree: backtrace.kind == .sampleTree, replacingLevels: frames[f].levelLines, to: &edits,
                            pool: &pool)
                    }
                }
            }
        }
        if report.format == .sample { edits += topOfStackEdits(report, results: rewritableResults()) }
        return ByteEdit.apply(edits, to: original, pool: pool)
    }

    /// Where a backtrace's first frame line's symbol column starts (Int.max when it has none).
    private static func firstColumn(_ backtrace: Backtrace) -> Int {
        backtrace.frames.first?.symbolColumn?.lowerBound ?? .max
    }

    /// `sample`'s `Sort by top of stack` lines name each pc of the call graph again: one whose pc
    /// was symbolicated gets the innermost function there, `SYMBOL  (in IMAGE)`, as `sample` writes it.
    static func topOfStackEdits(_ report: CrashReport, results: [FrameID: FrameResult]) -> [ByteEdit] {
        var names: [UInt64: String] = [:]
        for (id, result) in results {
            let frame = report.backtraces[id.backtrace].frames[id.frame]
            if !frame.isReturnAddress, let innermost = result.frames.first { names[frame.address] = innermost.symbol }
        }
        return SampleParser.topOfStackLines(report.original).compactMap { line in
            names[line.address].map { ByteEdit(range: line.column, bytes: Array("\($0)  (in \(line.image))".utf8)) }
        }
    }

    /// The edits that rewrite one frame line: its symbol column gets the outermost level, and
    /// each inline level is a copy of the line's prefix with that level's column. In a backtrace
    /// (innermost first) the inline levels go before the line, innermost first. In a sample tree
    /// (`inTree`: callers first, as microstackshots print them) they go after it, outermost
    /// first, so the chain reads down from caller to callee like the tree around it, and each
    /// copy keeps the line's `(Image + offset) [address]` tail. Either way they take the place of
    /// `levels`, the level lines an earlier run wrote for the frame (`Frame.levelLines`).
    static func frameEdits(
        _ original: [UInt8], column: Range<Int>, result: FrameResult, ending: [UInt8], inTree: Bool = false,
        replacingLevels levels: Range<Int>? = nil, render: ((SymbolicatedFrame) -> String)? = nil
    ) -> [ByteEdit] {
        var edits: [ByteEdit] = []
        var pool: [UInt8] = []
        appendFrameEdits(
            original, column: column, result: result, ending: ending, inTree: inTree, replacingLevels: levels,
            render: render, to: &edits, pool: &pool)
        return edits.map { ByteEdit(range: $0.range, bytes: Array($0.replacement(pool))) }
    }

    /// `frameEdits`, appended to `edits`. A frame without inline levels, old or new, is one
    /// edit of its column, made without copying its line's prefix, its bytes appended to `pool`.
    static func appendFrameEdits(
        _ original: [UInt8], column: Range<Int>, result: FrameResult, ending: [UInt8], inTree: Bool = false,
        replacingLevels levels: Range<Int>? = nil, render: ((SymbolicatedFrame) -> String)? = nil,
        to edits: inout [ByteEdit], pool: inout [UInt8]
    ) {
        // The symbol column of a level (`symbolColumn` unless told otherwise), appended to `out`.
        func append(_ level: SymbolicatedFrame, to out: inout [UInt8]) {
            if let render { out.append(contentsOf: render(level).utf8) } else { appendSymbolColumn(level, to: &out) }
        }
        guard let outer = result.frames.last, column.upperBound <= original.count, column.lowerBound >= 0 else {
            return
        }
        // An empty column right after the address gets a blank before the symbol. (The line's
        // start is looked for only when the column is empty or lines are inserted.)
        let needsSpace =
            column.isEmpty && column.lowerBound > ByteText.lineStart(original, at: column.lowerBound)
            && !(original[column.lowerBound - 1] == 0x20 || original[column.lowerBound - 1] == 0x09)
        if result.frames.count == 1, levels == nil, !inTree {
            let start = pool.count
            if needsSpace { pool.append(0x20) }
            append(outer, to: &pool)
            edits.append(ByteEdit(range: column, bytes: [], pooled: start..<pool.count))
            return
        }
        var text: [UInt8] = needsSpace ? [0x20] : []
        append(outer, to: &text)
        let lineStart = ByteText.lineStart(original, at: column.lowerBound)
        // Inserted lines end as the frame's own line does (files with mixed endings exist).
        let ending = ByteText.lineEnding(original, ofLineAt: column.upperBound, fallback: ending)
        var prefix = Array(original[lineStart..<column.lowerBound])
        if needsSpace { prefix.append(0x20) }
        if inTree {
            var lineEnd = column.upperBound
            while lineEnd < original.count, original[lineEnd] != 0x0A, original[lineEnd] != 0x0D { lineEnd += 1 }
            let tail = original[column.upperBound..<lineEnd]
            var rewritten = text + tail
            for level in result.frames.dropLast().reversed() {
                rewritten += ending + prefix
                append(level, to: &rewritten)
                rewritten += tail
            }
            // The inline lines go after the frame's line, in place of those an earlier run wrote.
            let to = min(max(levels?.upperBound ?? lineEnd, lineEnd), original.count)
            edits.append(ByteEdit(range: column.lowerBound..<to, bytes: rewritten))
            return
        }
        var inserted: [UInt8] = []
        for level in result.frames.dropLast() {
            inserted += prefix
            append(level, to: &inserted)
            inserted += ending
        }
        // The inline lines go before the frame's line, in place of those an earlier run wrote:
        // whole lines, from the start of the first, where a pasted report's indentation is,
        // which the parser reads past.
        var from = min(levels?.lowerBound ?? lineStart, lineStart)
        if from < lineStart { from = ByteText.lineStart(original, at: from) }
        if !inserted.isEmpty || from < lineStart { edits.append(ByteEdit(range: from..<lineStart, bytes: inserted)) }
        edits.append(ByteEdit(range: column, bytes: text))
    }

    /// Turns a parenthesized Last Exception Backtrace (the `occurrence`-th in the document) into
    /// frame lines when any of its frames is symbolicated, as symbolicatecrash does.
    private static func parenthesizedEdit(
        _ report: CrashReport, backtrace b: Int, occurrence: Int, results: [FrameID: FrameResult], ending: [UInt8]
    ) -> ByteEdit? {
        let frames = report.backtraces[b].frames
        guard frames.indices.contains(where: { results[FrameID(backtrace: b, frame: $0)] != nil }),
            let range = TextReportParser.parenthesizedBacktraceRange(report.original, occurrence: occurrence)
        else { return nil }
        let original = report.original
        let lineStart = ByteText.lineStart(original, at: range.lowerBound)
        // The margin of the line the list starts on (a report pasted with every line indented
        // or quoted): each frame line gets it. When only the margin comes before the list, the
        // first frame line takes the list's place after it; else the frame lines start on a
        // line of their own.
        let indentEnd = lineStart + ByteText.marginWidth(original, lineStart..<range.lowerBound)
        let indent = Array(original[lineStart..<indentEnd])
        var bytes: [UInt8] = []
        for (n, line) in frameLines(report, backtrace: b, results: results).enumerated() {
            if n > 0 || indentEnd < range.lowerBound { bytes += ending + indent }
            bytes += Array(line.utf8)
        }
        return ByteEdit(range: range, bytes: bytes)
    }
}
