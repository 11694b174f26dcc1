// TextReportParser: Apple's text crash report (Report Version 104, 105, 106, 12 and the
// KSCrash / PLCrashReporter renderings of it), with or without a one-line JSON header. One
// pass over the lines with a small state machine: header `Key: value` lines, Application
// Specific Information, thread sections, Last Exception Backtrace (frame lines or the
// parenthesized address list), Application Specific Backtraces, and Binary Images. Inside a
// backtrace, a line that opens with a frame number but does not parse is kept as a malformed
// frame (FrameLine.read); only a line without a frame number ends the backtrace.

import SymbolicateModel

enum TextReportParser {
    /// Header keys that mark the start of a report when noise precedes it.
    static let startKeys: Set<String> = [
        "Incident Identifier", "CrashReporter Key", "Hardware Model", "Process", "Path", "Identifier", "Version",
        "Code Type", "Date/Time", "OS Version", "Report Version", "Exception Type", "Crashed Thread",
        "Triggered by Thread", "Anonymous UUID",
    ]
    /// Keys only an Apple crash report has (one of them, or a thread / Binary Images line, must appear).
    static let markerKeys: Set<String> = [
        "Incident Identifier", "CrashReporter Key", "Hardware Model", "Code Type", "Report Version", "Exception Type",
        "Crashed Thread", "Triggered by Thread",
    ]

    private enum Section { case none, frames, images, info, parenthesized }

    enum ThreadHeader {
        case thread(number: Int, crashed: Bool, name: String?, queue: String?)
        case name(number: Int, text: String)
        case other
    }

    /// Classifies a line starting with `Thread ` (nil when it does not).
    static func threadHeader(_ text: String) -> ThreadHeader? {
        guard text.hasPrefix("Thread ") else { return nil }
        var rest = text.dropFirst(7)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count < 8, let number = Int(digits) else { return nil }
        rest = rest.dropFirst(digits.count)
        if rest.hasPrefix(" name:") {
            return .name(number: number, text: rest.dropFirst(6).trimmingCharacters(in: " \t"))
        }
        var crashed = false
        if rest.hasPrefix(" Crashed") {
            crashed = true
            rest = rest.dropFirst(8)
        }
        guard rest.hasPrefix(":") else { return .other }
        rest = rest.dropFirst()
        if rest.hasPrefix(":") { rest = rest.dropFirst() }
        let tail = rest.trimmingCharacters(in: " \t")
        if tail.hasPrefix("Dispatch queue:") {
            return .thread(
                number: number, crashed: crashed, name: nil,
                queue: tail.dropFirst(15).trimmingCharacters(in: " \t"))
        }
        return .thread(number: number, crashed: crashed, name: tail.isEmpty ? nil : tail, queue: nil)
    }

    /// `threadHeader` of the text `range` holds (trimmed), read as bytes; text that is not
    /// ASCII (a no-break space, a name in another script) is read as a String.
    static func threadHeader(_ bytes: [UInt8], _ range: Range<Int>) -> ThreadHeader? {
        let end = range.upperBound
        guard ByteText.hasPrefix(bytes, at: range.lowerBound, "Thread ", end: end) else { return nil }
        guard ByteText.isASCII(bytes, range) else { return threadHeader(ByteText.string(bytes, range)) }
        var i = range.lowerBound + 7
        let digits = i
        while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        guard i > digits, i - digits < 8, let value = ByteText.decimal(bytes, digits..<i) else { return nil }
        let number = Int(value)
        /// The text from `start` on without the blanks and tabs around it.
        func rest(_ start: Int) -> Range<Int> {
            var (lo, hi) = (start, end)
            while lo < hi, bytes[lo] == 0x20 || bytes[lo] == 0x09 { lo += 1 }
            while hi > lo, bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09 { hi -= 1 }
            return lo..<hi
        }
        if ByteText.hasPrefix(bytes, at: i, " name:", end: end) {
            return .name(number: number, text: ByteText.string(bytes, rest(i + 6)))
        }
        var crashed = false
        if ByteText.hasPrefix(bytes, at: i, " Crashed", end: end) {
            crashed = true
            i += 8
        }
        guard i < end, bytes[i] == UInt8(ascii: ":") else { return .other }
        i += 1
        if i < end, bytes[i] == UInt8(ascii: ":") { i += 1 }
        let tail = rest(i)
        if ByteText.hasPrefix(bytes, at: tail.lowerBound, "Dispatch queue:", end: end) {
            return .thread(
                number: number, crashed: crashed, name: nil, queue: ByteText.string(bytes, rest(tail.lowerBound + 15)))
        }
        return .thread(
            number: number, crashed: crashed, name: tail.isEmpty ? nil : ByteText.string(bytes, tail), queue: nil)
    }

    /// `Key: value` at the start of a line; nil for anything else.
    /// Fields whose value may go on over the following lines, up to a blank line or the next
    /// field, as the `.ips` renderer writes them.
    static let blockKeys: Set<String> = ["Termination Reason", "Kernel Triage", "VM Region Info"]

    /// The lengths of `blockKeys`, in bytes.
    static let blockKeyLengths = blockKeys.map(\.utf8.count)

    /// `blockKeys.contains(key)`, hashing only a key of one of their lengths.
    static func isBlockKey(_ key: String) -> Bool {
        blockKeyLengths.contains(key.utf8.count) && blockKeys.contains(key)
    }

    static func headerField(_ bytes: [UInt8], _ line: Range<Int>) -> HeaderField? {
        guard let first = line.first, first < bytes.count, ByteText.spaceWidth(bytes, first, line.upperBound) == 0
        else { return nil }
        let limit = min(line.upperBound, line.lowerBound + 64)
        var i = line.lowerBound
        while i < limit, bytes[i] != UInt8(ascii: ":") {
            let b = bytes[i]
            let ok =
                (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                || b == 0x20 || b == UInt8(ascii: "/") || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
                || b == UInt8(ascii: "(") || b == UInt8(ascii: ")") || b == UInt8(ascii: ".")
                || (b == 0xC2 && i + 1 < limit && bytes[i + 1] == 0xA0)
                || (b == 0xA0 && i > line.lowerBound && bytes[i - 1] == 0xC2)
            guard ok else { return nil }
            i += 1
        }
        guard i < limit, i > line.lowerBound else { return nil }
        let b0 = bytes[line.lowerBound]
        guard (b0 >= 0x41 && b0 <= 0x5A) || (b0 >= 0x61 && b0 <= 0x7A) else { return nil }
        guard i + 1 == line.upperBound || ByteText.spaceWidth(bytes, i + 1, line.upperBound) > 0 else { return nil }
        // The key without the blanks before its colon (a no-break space reads as one); it
        // starts with a letter.
        var keyEnd = i
        while keyEnd > line.lowerBound {
            if bytes[keyEnd - 1] == 0x20 {
                keyEnd -= 1
            } else if bytes[keyEnd - 1] == 0xA0, keyEnd - 2 >= line.lowerBound, bytes[keyEnd - 2] == 0xC2 {
                keyEnd -= 2
            } else {
                break
            }
        }
        let key = ByteText.string(bytes, line.lowerBound..<keyEnd)
        let value = ByteText.string(bytes, ByteText.trim(bytes, (i + 1)..<line.upperBound))
        return HeaderField(key: key, value: value)
    }

    /// The index of the first line that starts the report (skipping leading noise), or nil
    /// when no line looks like an Apple crash report.
    static func reportStart(_ bytes: [UInt8], _ lines: [TextLine]) -> Int? {
        var start: Int? = nil
        var hasMarker = false
        for (i, line) in lines.enumerated() {
            let text = ByteText.trim(bytes, line.range)
            var isStart = false
            if threadHeader(bytes, text) != nil || isBinaryImagesHeader(bytes, text)
                || ByteText.hasPrefix(bytes, at: text.lowerBound, "Last Exception Backtrace:", end: text.upperBound)
            {
                isStart = true
                hasMarker = true
            } else if let field = headerField(bytes, line.range) {
                if startKeys.contains(field.key) { isStart = true }
                if markerKeys.contains(field.key) { hasMarker = true }
            }
            if isStart, start == nil { start = i }
            if hasMarker, start != nil { return start }
        }
        return nil
    }

    /// `Binary Images:`, and the sections jailbroken devices add: `Binary Images (dpkg):`,
    /// `Binary Images (Other):`.
    /// `isBinaryImagesHeader` of the text `range` holds (trimmed), read as bytes.
    static func isBinaryImagesHeader(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        guard ByteText.hasPrefix(bytes, at: range.lowerBound, "Binary Images", end: range.upperBound),
            range.count > 13, bytes[range.upperBound - 1] == UInt8(ascii: ":")
        else { return false }
        guard ByteText.isASCII(bytes, range) else { return isBinaryImagesHeader(ByteText.string(bytes, range)) }
        var (lo, hi) = (range.lowerBound + 13, range.upperBound - 1)
        while lo < hi, bytes[lo] == 0x20 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 0x20 { hi -= 1 }
        return lo == hi
            || (bytes[lo] == UInt8(ascii: "(") && bytes[hi - 1] == UInt8(ascii: ")") && hi - lo < 40)
    }

    static func isBinaryImagesHeader(_ text: String) -> Bool {
        guard text.hasPrefix("Binary Images"), text.hasSuffix(":") else { return false }
        let middle = text.dropFirst(13).dropLast().trimmingCharacters(in: " ")
        return middle.isEmpty || (middle.hasPrefix("(") && middle.hasSuffix(")") && middle.count < 40)
    }

    /// A report pasted with every line indented or quoted (`> `, in a mail, an issue, a chat):
    /// the margin its header lines share, removed from every line that has it. Line ranges
    /// still point into the original bytes, so the writer keeps the indentation.
    static func dedented(_ bytes: [UInt8], _ lines: [TextLine]) -> [TextLine] {
        func indentWidth(_ line: TextLine) -> Int { ByteText.marginWidth(bytes, line.range) }
        var indent: Int? = nil
        for line in lines {
            let width = indentWidth(line)
            let inner = (line.range.lowerBound + width)..<line.range.upperBound
            guard let field = headerField(bytes, inner), markerKeys.contains(field.key) else { continue }
            indent = min(indent ?? width, width)
            if indent == 0 { return lines }
        }
        guard let indent, indent > 0 else { return lines }
        return lines.map { line in
            let width = min(indentWidth(line), indent)
            return TextLine(range: (line.range.lowerBound + width)..<line.range.upperBound, end: line.end)
        }
    }

    /// `lines`: the document's lines from its start (`ByteText.lines(bytes)`), when the caller
    /// has them and `offset` is 0.
    static func parse(
        _ bytes: [UInt8], from offset: Int, format: ReportFormat, jsonHeader: String?, lines known: [TextLine]? = nil
    ) throws -> CrashReport {
        let lines = dedented(bytes, offset == 0 ? known ?? ByteText.lines(bytes) : ByteText.lines(bytes, from: offset))
        guard let start = reportStart(bytes, lines) else {
            throw SymbolicateError(
                .unsupported, "not an Apple crash report: no header fields, threads or Binary Images found")
        }
        var report = CrashReport(format: format, original: bytes, jsonHeader: jsonHeader)
        var threads: [Backtrace] = []
        var exceptions: [Backtrace] = []
        var others: [Backtrace] = []
        var current: Backtrace? = nil
        /// Where the line of the last frame read starts.
        var previousFrameLineStart: Int? = nil
        var currentKind: Backtrace.Kind = .thread
        var pendingNames: [Int: String] = [:]
        var names = FrameLine.Names()
        var section = Section.none
        var info: [String] = []
        var parenthesized: [UInt64] = []
        // The field whose value the next line may continue, and that line's index.
        var block: (field: Int, nextLine: Int)? = nil

        func finish() {
            guard let b = current else { return }
            switch b.kind {
            case .thread: threads.append(b)
            case .lastException: exceptions.append(b)
            case .applicationSpecific, .sampleTree: others.append(b)
            }
            current = nil
        }

        var i = start
        while i < lines.count {
            let line = lines[i]
            i += 1
            let trimmed = ByteText.trim(bytes, line.range)
            if section == .parenthesized {
                collectAddresses(bytes, trimmed, into: &parenthesized)
                if bytes[trimmed].contains(UInt8(ascii: ")")) || trimmed.isEmpty {
                    section = .none
                    finishParenthesized(&parenthesized, into: &current)
                    finish()
                }
                continue
            }
            if trimmed.isEmpty {
                if section == .frames { finish() }
                section = .none
                continue
            }
            // A numbered line that does not parse is kept as a malformed frame and the backtrace
            // goes on; any other line ends it (below).
            if section == .frames, case .some = current, let read = FrameLine.read(bytes, line.range, names: &names) {
                // Inline levels an earlier symbolication wrote become levels of their frame.
                current?.appendFolding(
                    consume read, lineStart: line.range.lowerBound, lastLineStart: previousFrameLineStart,
                    firstIsPC: currentKind == .thread)
                previousFrameLineStart = line.range.lowerBound
                continue
            }
            if section == .images, let image = BinaryImageLine.parse(bytes, line.range) {
                report.images.append(image)
                continue
            }
            // The section lines below start with T, L, A or B (`Thread 0:`, `Last Exception
            // Backtrace:`, `Application Specific ...`, `Binary Images:`); a header field's line
            // needs no string of the whole line.
            let lead = bytes[trimmed.lowerBound]
            let opensSection =
                lead == UInt8(ascii: "T") || lead == UInt8(ascii: "L") || lead == UInt8(ascii: "A")
                || lead == UInt8(ascii: "B")
            if opensSection, let header = threadHeader(bytes, trimmed) {
                finish()
                switch header {
                case .name(let number, let name):
                    pendingNames[number] = name
                    section = .none
                case .thread(let number, let crashed, let name, let queue):
                    var b = Backtrace(kind: .thread, number: number, name: name, queue: queue, crashed: crashed)
                    if let pending = pendingNames.removeValue(forKey: number) {
                        if pending.hasPrefix("Dispatch queue:") {
                            b.queue = b.queue ?? pending.dropFirst(15).trimmingCharacters(in: " \t")
                        } else {
                            b.name = b.name ?? pending
                        }
                    }
                    b.frames.reserveCapacity(sectionLength(bytes, lines, from: i))
                    current = b
                    currentKind = .thread
                    section = .frames
                case .other:
                    section = .none
                }
                continue
            }
            if opensSection,
                ByteText.hasPrefix(bytes, at: trimmed.lowerBound, "Last Exception Backtrace:", end: trimmed.upperBound)
                    || ByteText.hasPrefix(
                        bytes, at: trimmed.lowerBound, "Application Specific Backtrace", end: trimmed.upperBound)
            {
                let text = ByteText.string(bytes, trimmed)
                finish()
                currentKind = text.hasPrefix("Last") ? .lastException : .applicationSpecific
                let number =
                    currentKind == .applicationSpecific
                    ? Int(text.dropFirst(31).prefix { $0.isNumber }) : nil
                current = Backtrace(kind: currentKind, number: number)
                let after =
                    text.split(separator: ":", maxSplits: 1).dropFirst().first?.trimmingCharacters(in: " \t") ?? ""
                if after.hasPrefix("(") {
                    collectAddresses(bytes, trimmed, into: &parenthesized)
                    if after.contains(")") {
                        finishParenthesized(&parenthesized, into: &current)
                        finish()
                        section = .none
                    } else {
                        section = .parenthesized
                    }
                } else if let next = nextNonBlank(bytes, lines, from: i),
                    bytes[ByteText.trim(bytes, lines[next].range).lowerBound] == UInt8(ascii: "(")
                {
                    // The list opens on the next non-blank line, blank lines before it skipped, as
                    // parenthesizedBacktraceRange opens it.
                    i = next
                    section = .parenthesized
                } else {
                    current?.frames.reserveCapacity(sectionLength(bytes, lines, from: i))
                    section = .frames
                }
                continue
            }
            if opensSection, isBinaryImagesHeader(bytes, trimmed) {
                finish()
                section = .images
                continue
            }
            if opensSection,
                ByteText.hasPrefix(
                    bytes, at: trimmed.lowerBound, "Application Specific Information:", end: trimmed.upperBound)
            {
                let text = ByteText.string(bytes, trimmed)
                finish()
                section = .info
                let rest = text.dropFirst(33).trimmingCharacters(in: " \t")
                if !info.isEmpty { info.append("") }
                if !rest.isEmpty { info.append(rest) }
                continue
            }
            if section == .info {
                info.append(ByteText.string(bytes, line.range))
                continue
            }
            if section == .frames { finish() }
            if section != .images { section = .none }
            if let field = headerField(bytes, line.range) {
                report.fields.append(field)
                block = Self.isBlockKey(field.key) ? (report.fields.count - 1, i) : nil
            } else if let open = block, open.nextLine == i - 1, section == .none {
                let text = ByteText.string(bytes, trimmed)
                let value = report.fields[open.field].value
                report.fields[open.field].value = value.isEmpty ? text : value + "\n" + text
                block = (open.field, i)
            }
        }
        if section == .parenthesized { finishParenthesized(&parenthesized, into: &current) }
        finish()

        while let last = info.last, last.isEmpty { info.removeLast() }
        if !info.isEmpty { report.applicationSpecificInformation = info.joined(separator: "\n") }
        report.backtraces = threads + exceptions + others
        // The parts let go of their backtraces' frames, so that the resolver below fills them
        // in place instead of copying each backtrace's frames first.
        (threads, exceptions, others) = ([], [], [])
        var resolver = ImageResolver(report.images)
        if resolver.nameAsFramesDo(&report.images, backtraces: report.backtraces) {
            resolver = ImageResolver(report.images)
        }
        resolver.resolve(&report.backtraces)
        if let codeType = report.field("Code Type") { report.arch = Arch(codeType: codeType) }
        return report
    }

    /// How many lines from `from` on come before the next blank one (at most 512): the frames
    /// a backtrace's array is sized for at once instead of growing line by line.
    private static func sectionLength(_ bytes: [UInt8], _ lines: [TextLine], from: Int) -> Int {
        var k = from
        while k < lines.count, k - from < 512, !ByteText.isBlank(bytes, lines[k].range) { k += 1 }
        return k - from
    }

    /// The index of the first line from `from` on that is not blank.
    private static func nextNonBlank(_ bytes: [UInt8], _ lines: [TextLine], from: Int) -> Int? {
        var k = from
        while k < lines.count {
            if !ByteText.isBlank(bytes, lines[k].range) { return k }
            k += 1
        }
        return nil
    }

    /// Appends every `0x...` token of `range` (the parenthesized Last Exception Backtrace form).
    private static func collectAddresses(_ bytes: [UInt8], _ range: Range<Int>, into list: inout [UInt64]) {
        for token in ByteText.tokens(bytes, range) {
            var t = token
            while !t.isEmpty, bytes[t.lowerBound] == UInt8(ascii: "(") { t = (t.lowerBound + 1)..<t.upperBound }
            while !t.isEmpty, bytes[t.upperBound - 1] == UInt8(ascii: ")") { t = t.lowerBound..<(t.upperBound - 1) }
            if let a = ByteText.hexAddress(bytes, t) { list.append(a) }
        }
    }

    private static func finishParenthesized(_ list: inout [UInt64], into current: inout Backtrace?) {
        for (n, address) in list.enumerated() {
            current?.frames.append(Frame(number: n, address: address, isReturnAddress: true))
        }
        list.removeAll()
    }

    /// The byte range of a parenthesized Last Exception Backtrace list, `(` through `)`: the
    /// `occurrence`-th (from 0) of the lists that hold at least one address, which is the order of
    /// the non-empty parenthesized backtraces `parse` returns. A list opens and ends where `parse`
    /// opens and ends it: right after the header or on the next non-blank line, and at its `)`,
    /// before a blank line, or at the end of the document.
    static func parenthesizedBacktraceRange(_ bytes: [UInt8], occurrence: Int = 0) -> Range<Int>? {
        let lines = dedented(bytes, ByteText.lines(bytes))
        var found = 0
        var k = 0
        while k < lines.count {
            let t = ByteText.trim(bytes, lines[k].range)
            k += 1
            guard ByteText.hasPrefix(bytes, at: t.lowerBound, "Last Exception Backtrace:", end: t.upperBound) else {
                continue
            }
            var first = k - 1
            var open = ByteText.trim(bytes, (t.lowerBound + 25)..<t.upperBound)
            if open.isEmpty || bytes[open.lowerBound] != UInt8(ascii: "(") {
                while first + 1 < lines.count, ByteText.isBlank(bytes, lines[first + 1].range) { first += 1 }
                first += 1
                guard first < lines.count else { return nil }
                open = ByteText.trim(bytes, lines[first].range)
                guard bytes[open.lowerBound] == UInt8(ascii: "(") else { continue }
            }
            var addresses: [UInt64] = []
            var end = open.lowerBound
            var j = first
            scan: while j < lines.count {
                let r = j == first ? open : ByteText.trim(bytes, lines[j].range)
                j += 1
                if r.isEmpty { break }
                collectAddresses(bytes, r, into: &addresses)
                end = r.upperBound
                for p in r where bytes[p] == UInt8(ascii: ")") {
                    end = p + 1
                    break scan
                }
            }
            k = j
            guard !addresses.isEmpty else { continue }
            if found == occurrence { return open.lowerBound..<end }
            found += 1
        }
        return nil
    }
}
