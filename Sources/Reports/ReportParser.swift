// ReportParser: the one entry point that turns bytes into a CrashReport. It finds where the
// report starts (skipping blank lines and chat noise), decides between the `.ips` JSON form,
// the JSON-header + text form and plain text, and refuses everything else with an error that
// names what the input looks like. It never traps: every failure is a thrown SymbolicateError.

import SymbolicateModel

public enum ReportParser {
    /// Lines searched for a one-line JSON header when noise precedes it.
    static let headerSearchLines = 40
    /// Bytes a JSON header spread over several lines may take (Apple's are about 1 KB): what is
    /// longer is no header, however it starts, and is not parsed further.
    static let maxHeaderBytes = 64 << 10

    public static func parse(_ bytes: [UInt8]) throws -> CrashReport {
        // A report wrapped by a mail client or a chat is read (and written) with its cut frame
        // and image lines joined again (LineWrap).
        // Joining lines adds no binary content, so what passes the binary check here passes it
        // after the unwrapping too.
        let isText = FormatSniffer.binaryRefusal(bytes) == nil
        let unwrapped = isText ? LineWrap.unwrap(bytes) : .init(bytes: bytes)
        var report = try parseUnwrapped(unwrapped.bytes, isText: isText, lines: unwrapped.lines)
        report.notes += unwrapped.notes
        return report
    }

    /// `lines`: the lines of `bytes`, when the unwrapping found them.
    private static func parseUnwrapped(_ bytes: [UInt8], isText: Bool, lines known: [TextLine]?) throws
        -> CrashReport
    {
        guard !bytes.isEmpty else { throw SymbolicateError(.badInput, "empty input: no crash report") }
        if PLCrashParser.isPLCrash(bytes) { return try PLCrashParser.parse(bytes) }
        if !isText, let refusal = FormatSniffer.binaryRefusal(bytes) { throw refusal }
        let lines = known ?? ByteText.lines(bytes)
        guard let firstIndex = lines.firstIndex(where: { !ByteText.isBlank(bytes, $0.range) }) else {
            throw SymbolicateError(.badInput, "empty input: only whitespace")
        }
        if let found = jsonHeader(bytes, lines: lines, firstIndex: firstIndex) {
            return try parseWithHeader(
                bytes, header: found.header, headerRange: found.range, bodyStart: found.bodyStart)
        }
        let first = ByteText.trim(bytes, lines[firstIndex].range)
        if opensJSON(bytes, first) {
            if SwiftBacktraceJSONParser.isSwiftBacktrace(bytes, from: first.lowerBound) {
                return try SwiftBacktraceJSONParser.parse(bytes, from: first.lowerBound)
            }
            if MetricKitParser.mayBeMetricKit(bytes) {
                do {
                    if let report = try MetricKitParser.parse(bytes, from: first.lowerBound) { return report }
                } catch let error as SymbolicateError {
                    throw SymbolicateError(.badInput, "malformed MetricKit payload: \(error.message)")
                }
            }
            if KSCrashParser.mayBeKSCrash(bytes) {
                do {
                    if let report = try KSCrashParser.parse(bytes, from: first.lowerBound) { return report }
                } catch let error as SymbolicateError {
                    throw SymbolicateError(.badInput, "malformed KSCrash report: \(error.message)")
                }
            }
            if SentryEventParser.mayBeSentryEvent(bytes) {
                do {
                    if let report = try SentryEventParser.parse(bytes, from: first.lowerBound) { return report }
                } catch let error as SymbolicateError {
                    throw SymbolicateError(.badInput, "malformed Sentry event: \(error.message)")
                }
            }
            throw FormatSniffer.jsonRefusal(bytes, from: first.lowerBound)
        }
        // The text sniffers' questions, answered in one pass over the lines.
        let openings = FormatSniffer.LineOpenings(bytes, lines: lines)
        if MicrostackshotParser.isMicrostackshot(bytes, openings) {
            return try MicrostackshotParser.parse(bytes, from: 0, format: .microstackshot, jsonHeader: nil)
        }
        if SwiftBacktraceParser.isSwiftBacktrace(openings) { return try SwiftBacktraceParser.parse(bytes) }
        if SampleParser.isSample(openings) { return try SampleParser.parse(bytes) }
        if let refusal = FormatSniffer.textRefusal(bytes) { throw refusal }
        return try TextReportParser.parse(bytes, from: 0, format: .text, jsonHeader: nil, lines: lines)
    }

    /// True when the line `range` (trimmed) opens a JSON document: `{` before a key or `}`, `[`
    /// before a value. A wiki or forum tag around a pasted report (`{code}`, `{noformat}`,
    /// `{code:java}`, `[code]`) opens none: it is noise before a text report.
    static func opensJSON(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        guard let open = range.first.map({ bytes[$0] }), open == UInt8(ascii: "{") || open == UInt8(ascii: "[") else {
            return false
        }
        var i = range.lowerBound + 1
        while i < range.upperBound, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
        guard i < range.upperBound else { return true }
        let next = bytes[i]
        if open == UInt8(ascii: "{") { return next == UInt8(ascii: "\"") || next == UInt8(ascii: "}") }
        return "{[]\"-0123456789".utf8.contains(next)
    }

    /// The JSON header (`{"bug_type":"309",...}`, on one line as Apple writes it, or spread over
    /// several by a pretty-printer), possibly after a few noise lines: the header, its byte range,
    /// and where what follows it starts.
    static func jsonHeader(
        _ bytes: [UInt8], lines: [TextLine], firstIndex: Int
    ) -> (header: JSONNode, range: Range<Int>, bodyStart: Int)? {
        for line in lines.dropFirst(firstIndex).prefix(headerSearchLines) {
            let t = ByteText.trim(bytes, line.range)
            // A header comes before the text: once the text has started, a JSON line is part
            // of it (macOS's "Translated Report" ends with the full .ips after its text).
            if let field = TextReportParser.headerField(bytes, line.range),
                TextReportParser.startKeys.contains(field.key)
            {
                return nil
            }
            guard !t.isEmpty, bytes[t.lowerBound] == UInt8(ascii: "{") else { continue }
            if let (header, after) = try? JSONScanner.parse(bytes, from: t.lowerBound, to: line.range.upperBound),
                header.isObject, header["bug_type"] != nil, after <= line.range.upperBound
            {
                return (header, t.lowerBound..<after, line.end)
            }
            // The header pretty-printed over several lines, as `jq . x.ips` prints it: the object
            // that opens alone on this line, when it is a header and something follows it.
            let limit = min(bytes.count, t.lowerBound + maxHeaderBytes)
            if t.count == 1, let (header, after) = try? JSONScanner.parse(bytes, from: t.lowerBound, to: limit),
                header.isObject, header["bug_type"] != nil, ByteText.skipBlank(bytes, from: after) < bytes.count
            {
                return (header, t.lowerBound..<after, after)
            }
        }
        return nil
    }

    /// Where the `.ips` body starts in a report's bytes (its first `{`), for the writers and for
    /// readers of fields the parsed report does not keep; nil for any other form.
    public static func ipsBodyStart(_ bytes: [UInt8]) -> Int? {
        let lines = ByteText.lines(bytes)
        guard let firstIndex = lines.firstIndex(where: { !ByteText.isBlank(bytes, $0.range) }),
            let found = jsonHeader(bytes, lines: lines, firstIndex: firstIndex)
        else { return nil }
        let k = ByteText.skipBlank(bytes, from: found.bodyStart)
        return k < bytes.count && bytes[k] == UInt8(ascii: "{") ? k : nil
    }

    /// True when bytes that failed to parse still carry a marker only crash reports carry in
    /// their first 64 KiB (`Incident Identifier:`, `"bug_type"`, `Thread 0 Crashed`, ...): a
    /// damaged report rather than some other file. A batch run counts the first as unparsable,
    /// with the parser's reason, and skips the second.
    /// What a jetsam event report (bug_type 298) is told, whichever way it arrives: one reason.
    public static let jetsamRefusal =
        "not a crash report: a jetsam event (bug_type 298) records memory use, not backtraces; nothing to symbolicate"

    public static func looksLikeReport(_ bytes: [UInt8]) -> Bool {
        // A text key counts at the start of a line (after a margin), as reports write them, not
        // anywhere: a table or a note that quotes a report's keys is no report.
        let head = Array(bytes.prefix(FormatSniffer.window))
        return FormatSniffer.reportMarkers.contains { marker in
            marker.hasPrefix("\"")
                ? FormatSniffer.contains(head, marker) : FormatSniffer.hasLine(head, startingWith: marker)
        }
    }

    private static func parseWithHeader(
        _ bytes: [UInt8], header: JSONNode, headerRange: Range<Int>, bodyStart: Int
    ) throws -> CrashReport {
        let headerText = ByteText.string(bytes, headerRange)
        let bugType = header["bug_type"]?.scalarText ?? ""
        let k = ByteText.skipBlank(bytes, from: bodyStart)
        if bugType == "210" || bugType == "110" {
            throw FormatSniffer.refusal("a kernel panic (bug_type \(bugType))")
        }
        if bugType == "298" {
            throw SymbolicateError(.unsupported, Self.jetsamRefusal)
        }
        if k < bytes.count, bytes[k] == UInt8(ascii: "{") {
            guard bugType == "309" || bugType == "109" || FormatSniffer.contains(bytes, "\"usedImages\"", limit: .max)
            else {
                throw SymbolicateError(
                    .unsupported, "not an Apple crash report: bug_type \(bugType) is not a crash (expected 309)")
            }
            return try IPSReportParser.parse(bytes, header: headerText, bodyStart: k)
        }
        guard k < bytes.count else {
            throw SymbolicateError(
                .badInput, "truncated report: a JSON header (bug_type \(bugType)) with nothing after it")
        }
        if MicrostackshotParser.isMicrostackshot(bytes, from: bodyStart) {
            return try MicrostackshotParser.parse(
                bytes, from: bodyStart, format: .microstackshot, jsonHeader: headerText)
        }
        if let refusal = FormatSniffer.textRefusal(bytes) { throw refusal }
        return try TextReportParser.parse(bytes, from: bodyStart, format: .jsonHeaderText, jsonHeader: headerText)
    }
}
