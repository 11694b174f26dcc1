// IPSTextRenderer: translates an `.ips` report into the text layout Xcode and Console show for
// it (Report Version 104): the header block, exception (type, subtype, codes, VM Region Info)
// and termination, Kernel Triage, Application Specific Information and its backtraces, the
// Last Exception Backtrace, every thread with its frames (symbolicated ones from the results),
// the ARM64 thread state of the crashed thread, and Binary Images in the iOS form. The layout
// follows Apple's own conversions. macOS reports are rendered in macOS's own layout instead
// (IPSTextRenderer+macOS.swift).

import SymbolicateModel

enum IPSTextRenderer {
    static func render(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        var body: JSONNode? = nil
        if let start = ReportParser.ipsBodyStart(report.original) {
            body = try? IPSReportParser.parseBody(report.original, bodyStart: start)
        }
        if let body, isMacOS(body) { return renderMacOS(report, body: body, results: results) }
        var out: [String] = [""]
        header(body, report, into: &out)
        backtraces(report, body, results, into: &out) { backtrace, b in
            let n = backtrace.number ?? b
            var label: [String] = []
            if let queue = backtrace.queue {
                label.append("Thread \(n) name:   Dispatch queue: \(queue)")
            } else if let name = backtrace.name {
                label.append("Thread \(n) name:  \(name)")
            }
            label.append(backtrace.crashed ? "Thread \(n) Crashed:" : "Thread \(n):")
            return label
        }
        out.append("")
        if let body { threadState(body, into: &out) }
        out.append("Binary Images:")
        for image in report.images { out.append(imageLine(image)) }
        out.append("")
        out.append("EOF")
        out.append("")
        out.append("")
        return joined(out)
    }

    /// The rendering's lines, one per element, joined by LF. A value the `.ips` holds as one
    /// string (a capture time, a thread or queue name, an image path) is one line of the text: a
    /// line break inside it becomes a space, so that it cannot start a line of its own (which
    /// could make the rendering read as another kind of report). Blocks of text are added with
    /// `blockLines`.
    static func joined(_ lines: [String]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
        for (n, line) in lines.enumerated() {
            if n > 0 { out.append(UInt8(ascii: "\n")) }
            var previous: UInt8 = 0
            for byte in line.utf8 {
                switch byte {
                case UInt8(ascii: "\n") where previous == UInt8(ascii: "\r"): break  // CRLF: the CR's space
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"): out.append(UInt8(ascii: " "))
                default: out.append(byte)
                }
                previous = byte
            }
        }
        return out
    }

    /// A block of text (Application Specific Information, Kernel Triage, termination details, VM
    /// Region Info and Summary) as its lines, split at LF, CRLF or CR: n line breaks make n + 1
    /// lines, so that a block with LF breaks joins back to the same text.
    static func blockLines(_ text: String) -> [String] {
        let bytes = Array(text.utf8)
        var lines: [String] = []
        var start = 0
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "\n") || bytes[i] == UInt8(ascii: "\r") else {
                i += 1
                continue
            }
            lines.append(String(decoding: bytes[start..<i], as: UTF8.self))
            let crlf = bytes[i] == UInt8(ascii: "\r") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\n")
            i += crlf ? 2 : 1
            start = i
        }
        lines.append(String(decoding: bytes[start...], as: UTF8.self))
        return lines
    }

    /// The Application Specific Backtraces, the Last Exception Backtrace, then every thread
    /// under the lines `threadLabel` gives it (the layouts differ there), each backtrace's frames
    /// followed by a blank line.
    static func backtraces(
        _ report: CrashReport, _ body: JSONNode?, _ results: [FrameID: FrameResult], into out: inout [String],
        threadLabel: (Backtrace, Int) -> [String]
    ) {
        applicationSpecificBacktraces(report, body, results, into: &out)
        for (b, backtrace) in report.backtraces.enumerated() where backtrace.kind == .lastException {
            out.append("Last Exception Backtrace:")
            out += ReportWriter.frameLines(report, backtrace: b, results: results)
            out.append("")
        }
        for (b, backtrace) in report.backtraces.enumerated() where backtrace.kind == .thread {
            out += threadLabel(backtrace, b)
            out += ReportWriter.frameLines(report, backtrace: b, results: results)
            out.append("")
        }
    }

    /// `Application Specific Backtrace N:` for each `asiBacktraces` string, numbered from 0 as
    /// Apple's conversions number them, each after a blank line (the second one below the
    /// Application Specific Information) and followed by one, with one more after the last. The
    /// string's lines are kept as they are, except the frames symbolicated here, which are
    /// rewritten as the `.ips` writer rewrites them inside the string.
    static func applicationSpecificBacktraces(
        _ report: CrashReport, _ body: JSONNode?, _ results: [FrameID: FrameResult], into out: inout [String]
    ) {
        // The parser makes one backtrace of each string, in order, after the others.
        let texts = body?["asiBacktraces"]?.elements.compactMap(\.string) ?? []
        let indices = report.backtraces.indices.filter { report.backtraces[$0].kind == .applicationSpecific }
        for (n, (text, b)) in zip(texts, indices).enumerated() {
            out.append("")
            out.append("Application Specific Backtrace \(n):")
            out += blockLines(IPSWriter.rewriteTextBacktrace(text, backtrace: b, results: results) ?? text)
            out.append("")
        }
        if !texts.isEmpty { out.append("") }
    }

    static func pad(_ key: String, _ width: Int) -> String {
        key.count >= width ? key + " " : key + String(repeating: " ", count: width - key.count)
    }

    private static func header(_ body: JSONNode?, _ report: CrashReport, into out: inout [String]) {
        guard let body else { return }
        func s(_ key: String) -> String? { body[key]?.scalarText }
        func line(_ key: String, _ value: String?) {
            if let value { out.append(pad(key + ":", 21) + value) }
        }
        let bundle = body["bundleInfo"]
        line("Incident Identifier", s("incident"))
        line("CrashReporter Key", s("crashReporterKey"))
        line("Hardware Model", s("modelCode"))
        line("Process", s("procName").map { "\($0) [\(s("pid") ?? "?")]" })
        line("Path", s("procPath"))
        line("Identifier", bundle?["CFBundleIdentifier"]?.string ?? s("procName"))
        if let short = bundle?["CFBundleShortVersionString"]?.string {
            line("Version", short + (bundle?["CFBundleVersion"]?.string.map { " (\($0))" } ?? ""))
        }
        let translated = body["translated"]?.bool ?? false
        line("Code Type", s("cpuType").map { $0 + (translated ? " (Translated)" : " (Native)") })
        line("Role", s("procRole"))
        line("Parent Process", s("parentProc").map { "\($0) [\(s("parentPid") ?? "?")]" })
        line("Coalition", s("coalitionName").map { "\($0) [\(s("coalitionID") ?? "?")]" })
        out.append("")
        line("Date/Time", s("captureTime"))
        line("Launch Time", s("procLaunch"))
        if let os = body["osVersion"], let train = os["train"]?.string {
            let build = os["build"]?.string ?? ""
            line("OS Version", build.isEmpty ? train : "\(train) (\(build))")
            if let release = os["releaseType"]?.string, !release.isEmpty { line("Release Type", release) }
        }
        line("Baseband Version", s("basebandVersion"))
        line("Report Version", "104")
        out.append("")
        if let exception = body["exception"] {
            let type = exception["type"]?.string ?? "?"
            out.append("Exception Type:  " + type + (exception["signal"]?.string.map { " (\($0))" } ?? ""))
            if let subtype = exception["subtype"]?.string, !subtype.isEmpty {
                out.append("Exception Subtype: " + subtype)
            }
            if let codes = exception["codes"]?.string { out.append("Exception Codes: " + codes) }
            // The region block follows the codes directly, with no blank line, in this layout.
            if let region = vmRegionInfo(body) { out += blockLines("VM Region Info: " + region) }
            if body["isCorpse"]?.bool == true { out.append("Exception Note:  EXC_CORPSE_NOTIFY") }
        }
        if let t = body["termination"] {
            var reason =
                "Termination Reason: " + (t["namespace"]?.scalarText ?? "") + " " + (t["code"]?.scalarText ?? "")
            reason += " " + (t["indicator"]?.string ?? "")
            out.append(reason)
            for detail in t["details"]?.elements.compactMap(\.string) ?? [] { out += blockLines(detail) }
            if let proc = t["byProc"]?.string {
                out.append("Terminating Process: \(proc) [\(t["byPid"]?.scalarText ?? "?")]")
            }
        }
        out.append("")
        if let faulting = s("faultingThread") {
            out.append("Triggered by Thread:  " + faulting)
            out.append("")
        }
        triageAndApplicationInformation(body, report, into: &out)
    }

    /// `Kernel Triage:` and `Application Specific Information:`, each a title, its text and a
    /// blank line, where the report has them; the last of the header in both layouts.
    static func triageAndApplicationInformation(_ body: JSONNode, _ report: CrashReport, into out: inout [String]) {
        if let triage = body["ktriageinfo"]?.scalarText {
            out.append("Kernel Triage:")
            out += blockLines(triage)
            out.append("")
        }
        if let asi = report.applicationSpecificInformation {
            out.append("Application Specific Information:")
            out += blockLines(asi)
            out.append("")
        }
    }

    /// The `vmRegionInfo` text (some reports spell the key in lowercase).
    static func vmRegionInfo(_ body: JSONNode) -> String? {
        body["vmRegionInfo"]?.string ?? body["vmregioninfo"]?.string
    }

    /// `0xLO - 0xHI Name arch  <uuid> /path`, the iOS Binary Images line.
    static func imageLine(_ image: BinaryImage) -> String {
        let uuid =
            image.uuid.map { $0.bytes.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined() }
            ?? String(repeating: "0", count: 32)
        return addressRange(image) + " " + image.name + " "
            + (image.arch?.rawValue ?? "unknown-arch")
            + "  <" + uuid + "> " + (image.path ?? "???")
    }

    /// `   0xLO -    0xHI`: the image's first and last byte, each right-aligned in 18 columns, as
    /// both Binary Images layouts start a line.
    static func addressRange(_ image: BinaryImage) -> String {
        func right(_ v: UInt64) -> String {
            let h = ASCII.hex(v)
            return String(repeating: " ", count: max(0, 18 - h.count)) + h
        }
        return right(image.loadAddress) + " - " + right(image.loadAddress &+ (image.size ?? 1) &- 1)
    }

    static func hex(_ v: UInt64, _ digits: Int) -> String {
        let h = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, digits - h.count)) + h
    }

    /// The register block of the crashed thread (ARM64 and x86-64); other flavors are left out.
    static func threadState(_ body: JSONNode, into out: inout [String], macOS: Bool = false) {
        let threads = body["threads"]?.elements ?? []
        guard let index = threads.firstIndex(where: { $0["triggered"]?.bool == true }) ?? body["faultingThread"]?.int,
            threads.indices.contains(index), let state = threads[index]["threadState"]
        else { return }
        switch state["flavor"]?.string {
        case "ARM_THREAD_STATE64": armState(state, thread: index, into: &out)
        case "x86_THREAD_STATE": x86State(state, thread: index, into: &out, macOS: macOS)
        default: return
        }
    }

    private static func x86State(_ state: JSONNode, thread index: Int, into out: inout [String], macOS: Bool) {
        func value(_ name: String) -> UInt64 { state[name]?["value"]?.uint64 ?? 0 }
        out.append("Thread \(index) crashed with X86 Thread State (64-bit):")
        let rows: [[(String, String)]] = [
            ["rax", "rbx", "rcx", "rdx"], ["rdi", "rsi", "rbp", "rsp"], ["r8", "r9", "r10", "r11"],
            ["r12", "r13", "r14", "r15"],
            ["rip", "rflags", "cr2"],
        ].map { row in row.map { ($0 == "rflags" ? "rfl" : $0, hex(value($0), 16)) } }
        for row in rows {
            out.append(row.map { String(repeating: " ", count: max(0, 5 - $0.0.count)) + $0.0 + ": " + $0.1 }.joined())
        }
        out.append("  ")
        out.append("Logical CPU:     \(value("cpu"))")
        let meaning = macOS ? pageFaultMeaning(trap: value("trap"), error: value("err")) : ""
        out.append("Error Code:      \(hex(value("err"), 8)) " + meaning)
        out.append("Trap Number:     \(value("trap"))")
        out.append("")
    }

    /// What a page fault's error code says (trap 14; the x86 page-fault error code bits P, W,
    /// U, I/D), as macOS prints it: `(no mapping for user data write)`.
    static func pageFaultMeaning(trap: UInt64, error: UInt64) -> String {
        guard trap == 14 else { return "" }
        let cause = error & 0x1 != 0 ? "protection violation" : "no mapping"
        let mode = error & 0x4 != 0 ? "user" : "kernel"
        let access = error & 0x10 != 0 ? "instruction fetch" : (error & 0x2 != 0 ? "data write" : "data read")
        return "(\(cause) for \(mode) \(access))"
    }

    private static func armState(_ state: JSONNode, thread index: Int, into out: inout [String]) {
        var entries: [(String, String)] = []
        for (i, x) in (state["x"]?.elements ?? []).enumerated() {
            entries.append(("x\(i)", hex(x["value"]?.uint64 ?? 0, 16)))
        }
        out.append("Thread \(index) crashed with ARM Thread State (64-bit):")
        var rows: [[(String, String)]] = stride(from: 0, to: entries.count, by: 4).map {
            Array(entries[$0..<min($0 + 4, entries.count)])
        }
        var tail = rows.popLast() ?? []
        for name in ["fp", "lr"] { tail.append((name, hex(state[name]?["value"]?.uint64 ?? 0, 16))) }
        rows.append(tail)
        rows.append([
            ("sp", hex(state["sp"]?["value"]?.uint64 ?? 0, 16)), ("pc", hex(state["pc"]?["value"]?.uint64 ?? 0, 16)),
            ("cpsr", hex(state["cpsr"]?["value"]?.uint64 ?? 0, 8)),
        ])
        var last: [(String, String)] = [("far", hex(state["far"]?["value"]?.uint64 ?? 0, 16))]
        var esr = hex(state["esr"]?["value"]?.uint64 ?? 0, 8)
        if let d = state["esr"]?["description"]?.string { esr += " " + d }
        last.append(("esr", esr))
        rows.append(last)
        for row in rows {
            var line = " "
            for (name, value) in row {
                line += String(repeating: " ", count: max(0, 5 - name.count)) + name + ": " + value
            }
            out.append(line)
        }
        out.append("")
    }
}
