// KSCrashTextRenderer: a KSCrash report in Apple's text layout, as KSCrash's own Apple-format
// filter (KSCrashReportFilterAppleFmt) writes it: the header (Incident Identifier to Crashed
// Thread, the date in the local time zone), Application Specific Information for an uncaught or
// deallocated NSException, each thread's frames as `N   Image   0xADDR 0xLOAD + OFF (symbol + off)`,
// the crashed thread's registers, Binary Images, then Extra Information (the stack dump, the
// notable addresses as the report's own JSON, the crash doctor's diagnosis) and, when the handler
// crashed while reporting, that second crash. A symbolicated frame shows its symbol column in
// place of KSCrash's `0xLOAD + OFF (symbol + off)`, one line per inline level, innermost first.

import SymbolicateModel

enum KSCrashTextRenderer {
    static func render(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        guard let layout = KSCrashWriter.layout(report.original) else { return report.original }
        var r = Renderer(tape: layout.tape, bytes: report.original, report: report, results: results)
        let root = layout.root
        let crash = r.tape.member(root, "crash")
        r.header(root, crash)
        r.threads(layout, isRecrash: false)
        r.registers(layout, isRecrash: false)
        r.binaryImages(root)
        r.extraInformation(layout, crash)
        if let recrash = layout.recrash {
            r.out += "\nHandler crashed while reporting:\n\n"
            let crash = r.tape.member(recrash, "crash")
            r.exceptionLines(crash, crashedThread: layout.threads.first { $0.isRecrash }.map { r.number($0.entry) })
            r.out += "\n"
            r.threads(layout, isRecrash: true)
            r.registers(layout, isRecrash: true)
            if let diagnosis = r.tape.string(r.tape.member(crash, "diagnosis")) {
                r.out += "Recrash Diagnosis: " + diagnosis
            }
        }
        return Array(r.out.utf8)
    }

    /// Register names in the order KSCrash prints them, per CPU family; registers the list does
    /// not name follow in the report's order.
    static let registerOrder: [String: [String]] = [
        "arm": (0...11).map { "r\($0)" } + ["ip", "sp", "lr", "pc", "cpsr"],
        "arm64": (0...28).map { "x\($0)" } + ["fp", "lr", "sp", "pc", "cpsr"],
        "x86_64": [
            "rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
            "r15", "rip", "rflags", "cs", "fs", "gs",
        ],
        "x86": [
            "eax", "ebx", "ecx", "edx", "edi", "esi", "ebp", "esp", "ss", "eflags", "eip", "cs", "ds", "es", "fs", "gs",
        ],
    ]

    private struct Renderer {
        let tape: JSONTape
        let bytes: [UInt8]
        let report: CrashReport
        let results: [FrameID: FrameResult]
        var out = ""

        init(tape: JSONTape, bytes: [UInt8], report: CrashReport, results: [FrameID: FrameResult]) {
            self.tape = tape
            self.bytes = bytes
            self.report = report
            self.results = results
        }

        var system: Int? { tape.member(0, "system") }
        var cpuArch: String { tape.string(tape.member(system, "cpu_arch")) ?? report.arch?.rawValue ?? "" }
        var is64: Bool { cpuArch.contains("64") }

        func s(_ object: Int?, _ key: String) -> String { tape.scalarText(tape.member(object, key)) ?? "" }

        func number(_ thread: Int) -> Int { tape.int(tape.member(thread, "index")) ?? 0 }

        /// `0x` and the address zero-padded to the pointer's width.
        func pointer(_ value: UInt64) -> String {
            let hex = String(value, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, (is64 ? 16 : 8) - hex.count)) + hex
        }

        static func pad(_ s: String, _ width: Int) -> String {
            s + String(repeating: " ", count: max(0, width - s.count))
        }

        static func padLeft(_ s: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - s.count)) + s
        }

        var codeType: String {
            if cpuArch.hasPrefix("arm64") { return "ARM-64" }
            if cpuArch.hasPrefix("arm") { return "ARM" }
            if cpuArch == "x86_64" { return "X86-64" }
            if cpuArch == "x86" || cpuArch == "i386" { return "X86" }
            return cpuArch
        }

        mutating func header(_ root: Int, _ crash: Int?) {
            let report = tape.member(root, "report")
            out += "Incident Identifier: \(s(report, "id"))\n"
            out += "CrashReporter Key:   \(s(system, "device_app_hash"))\n"
            out += "Hardware Model:      \(s(system, "machine"))\n"
            out += "Process:         \(s(system, "process_name")) [\(s(system, "process_id"))]\n"
            out += "Path:            \(s(system, "CFBundleExecutablePath"))\n"
            out += "Identifier:      \(s(system, "CFBundleIdentifier"))\n"
            out += "Version:         \(s(system, "CFBundleVersion")) (\(s(system, "CFBundleShortVersionString")))\n"
            out += "Code Type:       \(codeType)\n"
            out += "Parent Process:  \(s(system, "parent_process_name")) [\(s(system, "parent_process_id"))]\n"
            out += "\n"
            out += "Date/Time:       \(KSCrashDate.local(tape.member(report, "timestamp"), tape))\n"
            out +=
                "OS Version:      \(s(system, "system_name")) \(s(system, "system_version")) (\(s(system, "os_version")))\n"
            out += "Report Version:  104\n"
            out += "\n"
            let crashed = tape.children(tape.member(crash, "threads") ?? -1).first {
                tape.bool(tape.member($0, "crashed")) == true
            }
            exceptionLines(crash, crashedThread: crashed.map(number))
            if tape.string(tape.member(tape.member(crash, "error"), "type")) == "deadlock" {
                out += "\nApplication main thread deadlocked\n"
            }
            applicationSpecificInformation(crash)
            out += "\n"
        }

        mutating func exceptionLines(_ crash: Int?, crashedThread: Int?) {
            let error = tape.member(crash, "error")
            let mach = tape.member(error, "mach")
            let signal = tape.member(error, "signal")
            // KSCrash prints the numbers where it has no names.
            let type = tape.string(tape.member(mach, "exception_name")) ?? s(mach, "exception")
            let signalName = tape.string(tape.member(signal, "name")) ?? s(signal, "signal")
            out += "Exception Type:  \(type) (\(signalName))\n"
            let code =
                tape.string(tape.member(mach, "code_name")) ?? pointer(tape.uint64(tape.member(mach, "code")) ?? 0)
            out += "Exception Codes: \(code) at \(pointer(tape.uint64(tape.member(error, "address")) ?? 0))\n"
            out += "Crashed Thread:  \(crashedThread.map(String.init) ?? "")\n"
        }

        mutating func applicationSpecificInformation(_ crash: Int?) {
            let nsexception = tape.member(tape.member(crash, "error"), "nsexception")
            let zombie = tape.member(tape.member(0, "process"), "last_dealloced_nsexception")
            guard let exception = nsexception ?? zombie else { return }
            out += "\nApplication Specific Information:\n"
            out +=
                "*** Terminating app due to uncaught exception '\(s(exception, "name"))', reason: '\(s(exception, "reason"))'\n"
            if nsexception == nil {
                out +=
                    "NOTE: This exception has been deallocated! Stack trace is crash from attempting to access"
                    + " this zombie exception.\n"
            }
        }

        mutating func threads(_ layout: KSCrashParser.Layout, isRecrash: Bool) {
            for (b, thread) in layout.threads.enumerated() where thread.isRecrash == isRecrash {
                let n = number(thread.entry)
                if let name = tape.string(tape.member(thread.entry, "name")) {
                    out += "Thread \(n) name:  \(name)\n"
                } else if let queue = tape.string(tape.member(thread.entry, "dispatch_queue")) {
                    out += "Thread \(n) name:  Dispatch queue: \(queue)\n"
                }
                let crashed = tape.bool(tape.member(thread.entry, "crashed")) == true
                out += "Thread \(n)" + (crashed ? " Crashed:\n" : ":\n")
                for (f, entry) in thread.frames.enumerated() {
                    frameLines(entry, number: f, id: FrameID(backtrace: b, frame: f))
                }
                out += "\n"
            }
        }

        mutating func frameLines(_ entry: Int, number: Int, id: FrameID) {
            let address = tape.uint64(tape.member(entry, "instruction_addr")) ?? 0
            let lead = Self.pad(String(number), 4) + Self.pad(s(entry, "object_name"), 31) + " " + pointer(address)
            if let result = results[id], !result.frames.isEmpty {
                for level in result.frames { out += lead + " " + ReportWriter.symbolColumn(level) + "\n" }
                return
            }
            let load = tape.uint64(tape.member(entry, "object_addr")) ?? 0
            var line = lead + " 0x" + String(load, radix: 16) + " + " + String(address &- load)
            if let symbol = tape.string(tape.member(entry, "symbol_name")) {
                let start = tape.uint64(tape.member(entry, "symbol_addr")) ?? address
                line += " (\(symbol) + \(address &- start))"
            }
            out += line + "\n"
        }

        mutating func registers(_ layout: KSCrashParser.Layout, isRecrash: Bool) {
            guard
                let thread = layout.threads.first(where: {
                    $0.isRecrash == isRecrash && tape.bool(tape.member($0.entry, "crashed")) == true
                })
            else { return }
            let family = cpuArch.hasPrefix("arm64") ? "arm64" : cpuArch.hasPrefix("arm") ? "arm" : cpuArch
            let order = registerOrder[family] ?? []
            // A thread without registers (an NSException's) prints its CPU's registers as zeros.
            var values: [(String, UInt64)] = order.map { ($0, 0) }
            if let basic = tape.member(tape.member(thread.entry, "registers"), "basic") {
                values = []
                for member in tape.children(basic) {
                    if let key = tape.entries[member].key, let value = tape.uint64(member) {
                        values.append((key, value))
                    }
                }
            }
            values.sort { a, b in
                (order.firstIndex(of: a.0) ?? order.count) < (order.firstIndex(of: b.0) ?? order.count)
            }
            out += "Thread \(number(thread.entry)) crashed with \(codeType) Thread State:\n"
            for (i, (name, value)) in values.enumerated() {
                out += Self.padLeft(name, 6) + ": " + pointer(value) + " "
                if i % 4 == 3 || i == values.count - 1 { out += "\n" }
            }
            out += "\n"
        }

        mutating func binaryImages(_ root: Int) {
            out += "Binary Images:\n"
            let main = s(system, "CFBundleExecutablePath")
            for e in tape.children(tape.member(root, "binary_images") ?? -1) {
                guard let load = tape.uint64(tape.member(e, "image_addr")) else { continue }
                let size = tape.uint64(tape.member(e, "image_size")) ?? 0
                let path = s(e, "name")
                let name = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
                let uuid =
                    tape.string(tape.member(e, "uuid")).flatMap { BuildID(string: $0) }?.compactString ?? "(null)"
                let width = is64 ? 18 : 10
                out += Self.padLeft("0x" + String(load, radix: 16), width) + " - "
                out += Self.padLeft("0x" + String(load &+ size &- 1, radix: 16), width)
                out += " " + (path == main ? "+" : " ") + name + " " + archName(e) + "  <\(uuid)> " + path + "\n"
            }
        }

        /// The JSON of `entry` as the report writes it, its lines after the first moved left by the
        /// indentation of its last (so a pretty-printed member reads as a document of its own).
        func dump(_ entry: Int) -> String {
            let text = String(decoding: bytes[tape.entries[entry].range], as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard lines.count > 1, let last = lines.last else { return text }
            let indent = last.prefix { $0 == " " || $0 == "\t" }
            return
                ([String(lines[0])]
                + lines.dropFirst().map { String($0.hasPrefix(indent) ? $0.dropFirst(indent.count) : $0) })
                .joined(separator: "\n")
        }

        /// KSCrash's name for an image's CPU: `arm` for CPU_SUBTYPE_ARM_ALL, `x86` for i386.
        func archName(_ e: Int) -> String {
            let type = tape.uint64(tape.member(e, "cpu_type")) ?? 0
            let sub = tape.uint64(tape.member(e, "cpu_subtype")) ?? 0
            if type == Arch.CPU_TYPE_ARM && sub == 0 { return "arm" }
            if type == Arch.CPU_TYPE_X86 { return "x86" }
            return Arch(cpuType: type, cpuSubtype: sub).rawValue
        }

        mutating func extraInformation(_ layout: KSCrashParser.Layout, _ crash: Int?) {
            out += "\nExtra Information:\n"
            let nsexception = tape.member(tape.member(crash, "error"), "nsexception")
            if let object = tape.member(nsexception, "referenced_object") {
                out += "Object referenced by NSException:\n" + dump(object) + "\n"
            }
            let crashed = layout.threads.first { !$0.isRecrash && tape.bool(tape.member($0.entry, "crashed")) == true }
            if let stack = tape.member(crashed?.entry, "stack") {
                let start = tape.uint64(tape.member(stack, "dump_start")) ?? 0
                let end = tape.uint64(tape.member(stack, "dump_end")) ?? 0
                let contents = tape.string(tape.member(stack, "contents")) ?? "(null)"
                out += "\nStack Dump (\(pointer(start))-\(pointer(end))):\n\n\(contents)\n"
            }
            if let notable = tape.member(crashed?.entry, "notable_addresses") {
                out += "\nNotable Addresses:\n" + dump(notable) + "\n"
            }
            if let zombie = tape.member(tape.member(0, "process"), "last_dealloced_nsexception") {
                let address = pointer(tape.uint64(tape.member(zombie, "address")) ?? 0)
                out += "\nLast deallocated NSException (\(address)): \(s(zombie, "name")): \(s(zombie, "reason"))\n"
                if let object = tape.member(zombie, "referenced_object") {
                    out += "Referenced object:\n" + dump(object) + "\n"
                }
            }
            if let diagnosis = tape.string(tape.member(crash, "diagnosis")) {
                out += "\nCrashDoctor Diagnosis: " + diagnosis + "\n"
            }
        }
    }
}
