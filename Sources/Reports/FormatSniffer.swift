// FormatSniffer: names what a document is when it is not an Apple crash report, so users get
// "not an Apple crash report: looks like an Android tombstone" instead of a parse failure.
// It recognises MetricKit payloads, KSCrash and Sentry JSON, Android tombstones, kernel
// panics, Umeng reports and spindump text.

import SymbolicateModel

enum FormatSniffer {
    /// How much of a document the text sniffers look at.
    static let window = 64 * 1024

    /// Words only crash reports carry, anywhere in the text (see ReportParser.looksLikeReport).
    static let reportMarkers = [
        "Incident Identifier:", "Exception Type:", "Binary Images:", "\"bug_type\"", "Crashed Thread:",
        "Triggered by Thread:", "Hardware Model:", "Code Type:", "Thread 0 Crashed",
        SwiftBacktraceParser.crashLine, "\"kind\": \"crashReport\"",
    ]

    /// Which of the line openings the text sniffers ask about (`MicrostackshotParser`,
    /// `SwiftBacktraceParser`, `SampleParser`) open a line of a document: found in one pass
    /// over its lines (`linePrefixes`), where each sniffer's own question would be a pass.
    struct LineOpenings {
        static let asked: [String] =
            MicrostackshotParser.openings + [SwiftBacktraceParser.crashLine] + SampleParser.openings
        private let found: Set<String>

        /// `lines`: the document's lines, when the caller has them (see `linePrefixes`).
        init(_ bytes: [UInt8], lines: [TextLine]? = nil) {
            found = FormatSniffer.linePrefixes(bytes, lines: lines, among: Self.asked)
        }

        /// True when a line opens with `opening`, which must be one of `asked`.
        func contains(_ opening: String) -> Bool {
            assert(Self.asked.contains(opening), "\(opening) is not among the openings asked about")
            return found.contains(opening)
        }
    }

    static func refusal(_ what: String) -> SymbolicateError {
        SymbolicateError(.unsupported, "not an Apple crash report: looks like \(what)")
    }

    /// True when `needle` occurs in the first `limit` bytes.
    static func contains(_ bytes: [UInt8], _ needle: String, limit: Int = window) -> Bool {
        ByteText.firstRange(of: needle, in: bytes, 0..<min(bytes.count, limit)) != nil
    }

    /// True when a line of the document starts with `prefix`, after any indentation (what
    /// ByteText.spaceWidth counts: spaces, tabs, non-breaking spaces; on the first line, a byte
    /// order mark too), and, with `containing`, holds those words too (`Data Source:` with
    /// `Microstackshots`). A symbol column never starts a line, so symbolicating a report cannot
    /// add or take away such a line.
    static func hasLine(_ bytes: [UInt8], startingWith prefix: String, containing words: String? = nil) -> Bool {
        hasLine(bytes, startingWith: prefix, allContaining: words)
    }

    /// Which of `prefixes` open a line of `bytes` (after blanks and a margin, as `hasLine` reads
    /// lines): one pass over the text for questions that are asked together, where each would be
    /// a pass of its own when the answer is no (the usual answer for a crash report).
    /// `lines`: the document's lines (`ByteText.lines`) when the caller has them: they start
    /// where `forEachLineText`'s do (but for the empty ones between a CR and its LF), so the
    /// answer is the same without finding the line breaks again.
    static func linePrefixes(_ bytes: [UInt8], lines: [TextLine]? = nil, among prefixes: [String]) -> Set<String> {
        let wanted = prefixes.map { Array($0.utf8) }
        var found = [Bool](repeating: false, count: wanted.count)
        var left = wanted.count
        // The bytes a prefix starts with: a line starting with another (a frame line's digit)
        // is passed at once.
        var opens = [Bool](repeating: false, count: 256)
        for p in wanted { if let b = p.first { opens[Int(b)] = true } }
        // Whether to go on after the line whose text starts at `i`.
        func check(_ i: Int) -> Bool {
            guard i < bytes.count else { return left > 0 }
            guard opens[Int(bytes[i])] else { return true }
            for k in wanted.indices where !found[k] && wanted[k].first == bytes[i] {
                let p = wanted[k]
                if i + p.count <= bytes.count, bytes[i..<i + p.count].elementsEqual(p) {
                    found[k] = true
                    left -= 1
                }
            }
            return left > 0
        }
        if let lines {
            bytes.withUnsafeBufferPointer { buffer in
                for line in lines {
                    let end = min(line.range.upperBound, buffer.count)
                    var i = line.range.lowerBound
                    while case let width = ByteText.spaceWidth(buffer, i, end), width > 0 { i += width }
                    i += ByteText.marginWidth(bytes, i..<end)
                    guard check(i) else { return }
                }
            }
        } else {
            forEachLineText(bytes) { i, _ in check(i) }
        }
        return Set(prefixes.indices.filter { found[$0] }.map { prefixes[$0] })
    }

    private static func hasLine(_ bytes: [UInt8], startingWith prefix: String, allContaining words: String?) -> Bool {
        var found = false
        forEachLineText(bytes) { start, end in
            found =
                ByteText.hasPrefix(bytes, at: start, prefix)
                && (words.map({ contains(Array(bytes[start..<end]), $0, limit: .max) }) ?? true)
            return !found
        }
        return found
    }

    /// Calls `body` with where each line's text starts (after blanks and a margin; the line's end
    /// when it has none) and where the line ends, line after line, while it returns true.
    private static func forEachLineText(_ bytes: [UInt8], _ body: (_ start: Int, _ end: Int) -> Bool) {
        bytes.withUnsafeBufferPointer { buffer in
            var breaks = ByteText.LineBreaks(buffer)
            var i = ByteText.byteOrderMarkLength(bytes)
            while i < bytes.count {
                while case let width = ByteText.spaceWidth(buffer, i, buffer.count), width > 0 { i += width }
                i += ByteText.marginWidth(bytes, i..<bytes.count)
                let end = breaks.next(from: i)
                guard body(i, end) else { return }
                i = end + 1
            }
        }
    }

    /// Binary formats and binary garbage; nil when the bytes look like text.
    static func binaryRefusal(_ bytes: [UInt8]) -> SymbolicateError? {
        if let container = ContainerSniffer.refusal(bytes) { return container }
        if ByteText.hasPrefix(bytes, at: 0, "bplist") {
            return refusal("a binary property list")
        }
        let end = min(bytes.count, window)
        // Over the buffer, without a bounds check a byte: every parse looks at up to `window` bytes.
        // Eight bytes at a time past words without a byte below 0x20 (most of a text: its line
        // ends are the only such bytes), byte by byte in the others.
        let (nul, control) = bytes.withUnsafeBufferPointer { buffer -> (Int?, Int) in
            var control = 0
            var i = 0
            let raw = UnsafeRawBufferPointer(buffer)
            while i < end {
                if i + 8 <= end {
                    let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    // A byte below 0x20 sets its top bit here (the "has less than" test); no
                    // byte of 0x80 or more can, as `& ~word` clears those. The tests are exact
                    // for "some byte of the word", which is all they are asked.
                    func hasZeroByte(_ v: UInt64) -> Bool {
                        (v &- 0x0101_0101_0101_0101) & ~v & 0x8080_8080_8080_8080 != 0
                    }
                    if (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080 == 0 {
                        i += 8
                        continue
                    }
                    // Below 0x20 only tabs and line ends (0x09-0x0D, what every line has): no
                    // byte below 0x09, none of 0x0E, 0x0F or 0x10-0x1F.
                    if (word &- 0x0909_0909_0909_0909) & ~word & 0x8080_8080_8080_8080 == 0,
                        !hasZeroByte((word & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x1010_1010_1010_1010),
                        !hasZeroByte(word ^ 0x0E0E_0E0E_0E0E_0E0E), !hasZeroByte(word ^ 0x0F0F_0F0F_0F0F_0F0F)
                    {
                        i += 8
                        continue
                    }
                }
                let limit = min(i + 8, end)
                while i < limit {
                    let b = buffer[i]
                    if b < 0x20 {
                        if b == 0 { return (i, control) }
                        if b < 0x09 || (b > 0x0D && b != 0x1B) { control += 1 }
                    }
                    i += 1
                }
            }
            return (nil, control)
        }
        if let nul {
            return SymbolicateError(.badInput, "binary data, not a text crash report (NUL byte at offset \(nul))")
        }
        if control * 50 > end {
            return SymbolicateError(.badInput, "binary data, not a text crash report")
        }
        return nil
    }

    /// A JSON document that is not an `.ips`: names it from its keys.
    static func jsonRefusal(_ bytes: [UInt8], from start: Int) -> SymbolicateError {
        var node: JSONNode? = nil
        if let (n, _) = try? JSONScanner.parse(bytes, from: start) { node = n }
        if let first = node?.elements.first { node = first }
        var keys = Set<String>()
        if let node { keys = Set(node.members.map(\.key)) }
        func has(_ k: String) -> Bool {
            node != nil ? keys.contains(k) : contains(bytes, "\"\(k)\"")
        }
        if [
            "crashDiagnostics", "hangDiagnostics", "cpuExceptionDiagnostics", "diskWriteExceptionDiagnostics",
            "callStackTree", "callStacks", "callStackPerThread", "diagnosticMetaData", "timeStampBegin",
        ].contains(where: has) {
            return refusal("a MetricKit payload with no diagnostics or call stacks (a metric payload?)")
        }
        if has("report"), has("crash") || has("binary_images") || has("system") {
            return refusal("KSCrash JSON without a `report` object and a `crash` or `binary_images`")
        }
        if has("debug_meta") || has("event_id") || has("sdk") {
            return refusal("a Sentry event JSON")
        }
        if has("panicString") || has("macOSPanicString") {
            return refusal("a kernel panic")
        }
        if node == nil {
            return SymbolicateError(.badInput, "malformed or truncated JSON, and not an Apple crash report")
        }
        return refusal("a JSON document of an unknown kind")
    }

    /// Text formats that are not Apple crash reports; nil when none matches.
    static func textRefusal(_ bytes: [UInt8]) -> SymbolicateError? {
        let apple = ["Incident Identifier:", "Exception Type:", "Crashed Thread:", "Triggered by Thread:"]
        // Whole lines only: a key inside a frame's symbol column is gone once the frame is
        // rewritten, and a report must stay a report when it is symbolicated. (A report names
        // one of these in its first lines, so this pass ends there.)
        if apple.contains(where: { hasLine(bytes, startingWith: $0) }) { return nil }
        let lines = linePrefixes(
            bytes,
            among: [
                "Application received signal", "dSYM UUID:", "Slide Address:", "Num samples:", "Heaviest stack",
                "Spindump",
            ])
        if contains(bytes, "Build fingerprint:") || contains(bytes, "*** *** *** *** ***")
            || contains(bytes, "backtrace:\n    #00 pc")
            || (contains(bytes, "ABI: '") && contains(bytes, "signal "))
        {
            return refusal("an Android tombstone")
        }
        if contains(bytes, "panic(cpu ") || contains(bytes, "Panicked task ")
            || contains(bytes, "Kernel Extensions in backtrace:")
        {
            return refusal("a kernel panic")
        }
        if lines.contains("Application received signal")
            || (lines.contains("dSYM UUID:") && lines.contains("Slide Address:"))
        {
            return refusal("an Umeng crash report")
        }
        // Whole lines, as the Apple keys above: a header value that merely mentions them (a
        // rendered .ips whose capture time holds a spindump's text) does not make a spindump.
        if ["Num samples:", "Heaviest stack", "Spindump"].contains(where: lines.contains) {
            return refusal("a spindump")
        }
        return nil
    }
}
