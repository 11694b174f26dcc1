// The text layout macOS itself writes for a crash (Report Version 12), for `.ips` reports from a
// Mac: its header (Responsible, User ID, Anonymous UUID, Time Awake Since Boot, Time Since Wake,
// System Integrity Protection, Crashed Thread), the exception with its subtype, Termination
// Reason, VM Region Info, the Application Specific Backtraces, threads labelled
// `Thread 0 Crashed::  Dispatch queue: ...`, the thread state, Binary Images as
// `name (version) <uuid> path`, and the External Modification and VM Region summaries.
// Modelled on Apple's text report of the same incident as its `.ips`.

import SymbolicateModel

extension IPSTextRenderer {
    /// True for reports from macOS (by the OS train, or the header's platform 1).
    static func isMacOS(_ body: JSONNode) -> Bool {
        let train = body["osVersion"]?["train"]?.string ?? ""
        return train.hasPrefix("macOS") || train.hasPrefix("Mac OS X")
    }

    static let macKeyWidth = 23

    static func renderMacOS(_ report: CrashReport, body: JSONNode, results: [FrameID: FrameResult]) -> [UInt8] {
        var out: [String] = [""]
        macHeader(body, report, into: &out)
        backtraces(report, body, results, into: &out) { backtrace, b in
            var label = "Thread \(backtrace.number ?? b)" + (backtrace.crashed ? " Crashed:" : ":")
            if backtrace.name != nil || backtrace.queue != nil {
                label +=
                    ":" + (backtrace.name.map { " \($0)" } ?? "")
                    + (backtrace.queue.map { "  Dispatch queue: \($0)" } ?? "")
            }
            return [label]
        }
        out.append("")
        threadState(body, into: &out, macOS: true)
        instructionStream(body, into: &out)
        out.append("Binary Images:")
        let nodes = body["usedImages"]?.elements ?? []
        for (i, image) in report.images.enumerated() {
            out.append(macImageLine(image, node: nodes.indices.contains(i) ? nodes[i] : nil))
        }
        out.append("")
        if let mods = body["extMods"] {
            out.append("External Modification Summary:")
            for (key, title) in [
                ("targeted", "Calls made by other processes targeting this process:"),
                ("caller", "Calls made by this process:"),
                ("system", "Calls made by all processes on this machine:"),
            ] {
                guard let counts = mods[key] else { continue }
                out.append("  " + title)
                for name in ["task_for_pid", "thread_create", "thread_set_state"] {
                    out.append("    \(name): \(counts[name]?.scalarText ?? "0")")
                }
            }
            out.append("")
        }
        if let summary = body["vmSummary"]?.string {
            out.append("VM Region Summary:")
            out += blockLines(summary)
        }
        out += ["", "", ""]
        return joined(out)
    }

    private static func macHeader(_ body: JSONNode, _ report: CrashReport, into out: inout [String]) {
        func s(_ key: String) -> String? { body[key]?.scalarText }
        func line(_ key: String, _ value: String?) {
            if let value { out.append(pad(key + ":", macKeyWidth) + value) }
        }
        let bundle = body["bundleInfo"]
        line("Process", s("procName").map { "\($0) [\(s("pid") ?? "?")]" })
        line("Path", s("procPath"))
        line("Identifier", bundle?["CFBundleIdentifier"]?.string ?? s("procName"))
        let short = bundle?["CFBundleShortVersionString"]?.string
        line("Version", short.map { $0 + (bundle?["CFBundleVersion"]?.string.map { " (\($0))" } ?? "") } ?? "???")
        let translated = body["translated"]?.bool ?? false
        line("Code Type", s("cpuType").map { $0 + (translated ? " (Translated)" : " (Native)") })
        line("Parent Process", s("parentProc").map { "\($0) [\(s("parentPid") ?? "?")]" })
        line("Responsible", s("responsibleProc").map { "\($0) [\(s("responsiblePid") ?? "?")]" })
        line("User ID", s("userID"))
        out.append("")
        line("Date/Time", s("captureTime"))
        if let os = body["osVersion"], let train = os["train"]?.string {
            let build = os["build"]?.string ?? ""
            line("OS Version", build.isEmpty ? train : "\(train) (\(build))")
        }
        line("Report Version", "12")
        line("Anonymous UUID", s("crashReporterKey"))
        out.append("")
        line("Sleep/Wake UUID", s("sleepWakeUUID"))
        out.append("")
        line("Time Awake Since Boot", s("uptime").map { "\($0) seconds" })
        line("Time Since Wake", s("wakeTime").map { "\($0) seconds" })
        out.append("")
        line("System Integrity Protection", s("sip"))
        out.append("")
        if let faulting = s("faultingThread") {
            let threads = body["threads"]?.elements ?? []
            let queue = Int(faulting).flatMap { threads.indices.contains($0) ? threads[$0]["queue"]?.string : nil }
            line("Crashed Thread", faulting + (queue.map { "  Dispatch queue: \($0)" } ?? ""))
            out.append("")
        }
        if let exception = body["exception"] {
            let type = exception["type"]?.string ?? "?"
            line("Exception Type", type + (exception["signal"]?.string.map { " (\($0))" } ?? ""))
            line("Exception Codes", exception["subtype"]?.string)
            line("Exception Codes", exception["codes"]?.string)
            if body["isCorpse"]?.bool == true { line("Exception Note", "EXC_CORPSE_NOTIFY") }
            out.append("")
        }
        if let t = body["termination"] {
            var reason = "Namespace " + (t["namespace"]?.scalarText ?? "?") + ", Code " + (t["code"]?.scalarText ?? "?")
            if let indicator = t["indicator"]?.string { reason += " " + indicator }
            line("Termination Reason", reason)
            for detail in t["details"]?.elements.compactMap(\.string) ?? [] { out += blockLines(detail) }
            line("Terminating Process", t["byProc"]?.string.map { "\($0) [\(t["byPid"]?.scalarText ?? "?")]" })
            out.append("")
        }
        if let region = vmRegionInfo(body) {
            out += blockLines("VM Region Info: " + region)
            out.append("")
        }
        triageAndApplicationInformation(body, report, into: &out)
    }

    /// The bytes around the crashed thread's pc, 16 a row with their ASCII, the pc's byte in
    /// brackets and its row marked `<==`.
    static func instructionStream(_ body: JSONNode, into out: inout [String]) {
        let threads = body["threads"]?.elements ?? []
        guard let index = threads.firstIndex(where: { $0["triggered"]?.bool == true }),
            let stream = threads[index]["instructionState"]?["instructionStream"],
            let values = stream["bytes"]?.elements, !values.isEmpty
        else { return }
        let bytes = values.map { UInt8(truncatingIfNeeded: $0.uint64 ?? 0) }
        let pc = stream["offset"]?.int ?? -1
        let digits = Array("0123456789abcdef")
        out.append("Thread \(index) instruction stream:")
        for rowStart in stride(from: 0, to: bytes.count, by: 16) {
            let row = bytes[rowStart..<min(rowStart + 16, bytes.count)]
            var chars: [Character] = [" ", " "]
            var bracketed = false
            for (k, b) in row.enumerated() {
                // The brackets around the pc's byte take the separators' places.
                if k > 0, !bracketed { chars.append(k == 8 ? "-" : " ") }
                bracketed = false
                if rowStart + k == pc, let last = chars.indices.last { chars[last] = "[" }
                chars.append(digits[Int(b >> 4)])
                chars.append(digits[Int(b & 0xF)])
                if rowStart + k == pc {
                    chars.append("]")
                    bracketed = true
                }
            }
            var line = String(chars)
            line += "  " + String(row.map { $0 >= 0x20 && $0 < 0x7F ? Character(Unicode.Scalar($0)) : "." })
            if (rowStart..<(rowStart + row.count)).contains(pc) { line += "\t<==" }
            out.append(line)
        }
        out.append("")
    }

    /// `0xLO - 0xHI name (version) <uuid> /path`, the macOS Binary Images line: the bundle
    /// identifier when there is one, `(*)` when the version is unknown, the UUID lowercase.
    static func macImageLine(_ image: BinaryImage, node: JSONNode?) -> String {
        let name = node?["CFBundleIdentifier"]?.string ?? node?["name"]?.string ?? "???"
        let version = node?["CFBundleShortVersionString"]?.string ?? "*"
        let uuid = (image.uuid?.uuidString ?? "00000000-0000-0000-0000-000000000000").lowercased()
        return addressRange(image) + " " + name + " (" + version + ") <" + uuid + "> "
            + (image.path ?? "???")
    }
}
