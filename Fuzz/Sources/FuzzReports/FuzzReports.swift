// Fuzz target: the crash-report parsers (Apple text, JSON header + text, .ips) and the writer.
// Any input may be refused with an error; none may trap. For an input that parses, the writer's
// promises are checked: with no results it gives back the original bytes; with every frame
// symbolicated (inline levels and awkward names included) its output, and the text rendering
// of an .ips, parse again as a report of the same kind with the same backtraces (for input
// without control bytes, which is what reports are).

import FuzzSupport
import Reports
import SymbolicateModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReports(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let report = try? ReportParser.parse(bytes) else { return 0 }
    _ = ReportInspector.text(report)
    _ = ReportInspector.json(report)

    // Unchanged, unless it was read as line-wrapped: then as rejoined (and a note says so).
    Fuzz.invariant(
        ReportWriter.write(report, results: [:]) == (report.notes.isEmpty ? bytes : report.original),
        "writing with no results changed the bytes")

    let results = madeUpResults(report)
    let written = ReportWriter.write(report, results: results)
    // The parser refuses input with too many control bytes as binary, and the writer copies a
    // frame line's prefix for each inline level, so a report with control bytes in its frame
    // lines may legitimately become "binary" once symbolicated: parse again only plain text.
    guard !bytes.contains(where: { $0 < 0x09 || ($0 > 0x0D && $0 < 0x20 && $0 != 0x1B) }) else { return 0 }
    let again: CrashReport
    do {
        again = try ReportParser.parse(written)
    } catch {
        Fuzz.invariant(false, "the symbolicated \(report.format.rawValue) report does not parse again: \(error)")
        return 0
    }
    Fuzz.invariant(
        again.format == report.format, "the symbolicated report changed format: \(report.format) -> \(again.format)")
    Fuzz.invariant(
        again.backtraces.count == report.backtraces.count,
        "the symbolicated report has \(again.backtraces.count) backtraces, the original \(report.backtraces.count)")

    let rendered = ReportWriter.renderText(report, results: results)
    if report.format == .ips {
        Fuzz.invariant((try? ReportParser.parse(rendered)) != nil, "the text rendering of an .ips does not parse")
    }
    return 0
}

/// A result for every frame: odd frames get an inline level, names carry quotes, backslashes,
/// non-ASCII and format-looking text, so the writer's escaping and layout are exercised.
private func madeUpResults(_ report: CrashReport) -> [FrameID: FrameResult] {
    var results: [FrameID: FrameResult] = [:]
    for (b, backtrace) in report.backtraces.enumerated() {
        for f in backtrace.frames.indices {
            let outer = SymbolicatedFrame(
                symbol: "Caf\u{E9}.f\"\(f)\"(\\) + 0x1 (x.swift:2)", symbolOffset: UInt64(f),
                file: "/src/Dir \(b)/File.swift", line: f)
            var levels = [outer]
            if f % 2 == 1 {
                levels.insert(
                    SymbolicatedFrame(symbol: "closure #1 in g()", file: "/src/Inl.h", line: 7, isInline: true), at: 0)
            }
            results[FrameID(backtrace: b, frame: f)] = FrameResult(status: .symbolicated, frames: levels)
        }
    }
    return results
}
