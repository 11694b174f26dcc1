// PLCrashTextRenderer: a PLCrashReporter protobuf report as Apple's text (Report Version 104), in
// the layout `plcrashutil convert --format=iphone` gives: the header, Application Specific
// Information for an uncaught exception, the Last Exception Backtrace, every thread, the crashed
// thread's registers and the Binary Images. Frames are `N   Image   0xADDR 0xLOAD + OFF`, or the
// symbol column where a frame was symbolicated (one line per inline level, innermost first).

import SymbolicateModel

enum PLCrashTextRenderer {
    static func osName(_ os: UInt64?) -> String {
        switch os {
        case 0: return "Mac OS X"
        case 1: return "iPhone OS"
        case 2: return "Mac OS X"
        case 4: return "Apple tvOS"
        default: return "Unknown"
        }
    }

    static func codeType(_ arch: Arch?) -> String {
        guard let arch else { return "Unknown" }
        if arch.rawValue.hasPrefix("arm64") { return "ARM-64" }
        if arch.rawValue.hasPrefix("arm") { return "ARM" }
        if arch == .x86_64 || arch == .x86_64h { return "X86-64" }
        if arch == .i386 { return "X86" }
        return arch.rawValue
    }

    /// The header fields in plcrashutil's order and words.
    static func header(_ d: PLCrashParser.Decoded) -> [HeaderField] {
        let arch = d.processor.map { Arch(cpuType: $0.type, cpuSubtype: $0.subtype) } ?? d.images.first?.arch
        let version = d.marketingVersion.map { "\($0) (\(d.version))" } ?? d.version
        let crashed = d.threads.first { $0.crashed }.map { String($0.number) } ?? ""
        var codes = "\(d.signal.code) at \(ASCII.hex(d.signal.address))"
        if d.signal.code.isEmpty { codes = ASCII.hex(d.signal.address) }
        return [
            HeaderField(key: "Incident Identifier", value: d.reportUUID.map { BuildID(bytes: $0).uuidString } ?? ""),
            HeaderField(key: "CrashReporter Key", value: "TODO"),
            HeaderField(key: "Hardware Model", value: d.model ?? "???"),
            HeaderField(key: "Process", value: "\(d.processName ?? "???") [\(d.processID.map(String.init) ?? "???")]"),
            HeaderField(key: "Path", value: d.processPath ?? "???"),
            HeaderField(key: "Identifier", value: d.identifier),
            HeaderField(key: "Version", value: version),
            HeaderField(key: "Code Type", value: codeType(arch)),
            HeaderField(
                key: "Parent Process", value: "\(d.parentName ?? "???") [\(d.parentID.map(String.init) ?? "???")]"),
            HeaderField(
                key: "Date/Time",
                value: d.timestamp.map { KSCrashDate.format(seconds: Int(clamping: $0), millis: 0) } ?? ""),
            HeaderField(
                key: "OS Version", value: "\(osName(d.os)) \(d.osVersion)" + (d.osBuild.map { " (\($0))" } ?? "")),
            HeaderField(key: "Report Version", value: "104"),
            HeaderField(key: "Exception Type", value: d.signal.name),
            HeaderField(key: "Exception Codes", value: codes),
            HeaderField(key: "Crashed Thread", value: crashed),
        ]
    }

    static func render(_ report: CrashReport, results: [FrameID: FrameResult]) -> [UInt8] {
        guard let d = try? PLCrashParser.decode(report.original) else { return [] }
        var out = ""
        for (i, field) in header(d).enumerated() {
            if i == 9 || i == 12 { out += "\n" }
            let width = i < 3 ? 20 : 16
            out += field.key + ":" + String(repeating: " ", count: max(1, width - field.key.count)) + field.value + "\n"
        }
        if let e = d.exception {
            out += "\nApplication Specific Information:\n"
            out += "*** Terminating app due to uncaught exception '\(e.name)', reason: '\(e.reason)'\n"
        }
        for (b, backtrace) in report.backtraces.enumerated() where backtrace.kind == .lastException {
            out += "\nLast Exception Backtrace:\n" + frames(report, b, results)
        }
        for (b, backtrace) in report.backtraces.enumerated() where backtrace.kind == .thread {
            let n = backtrace.number ?? b
            out += "\nThread \(n)" + (backtrace.crashed ? " Crashed:\n" : ":\n") + frames(report, b, results)
        }
        if let t = d.threads.first(where: { $0.crashed }), !t.registers.isEmpty {
            out += "\nThread \(t.number) crashed with \(codeType(report.arch)) Thread State:\n"
            for (i, reg) in t.registers.enumerated() {
                out +=
                    String(repeating: " ", count: max(0, 6 - reg.name.count)) + reg.name + ": " + ASCII.hex(reg.value)
                out += i % 4 == 3 || i == t.registers.count - 1 ? "\n" : " "
            }
        }
        out += "\nBinary Images:\n"
        for image in report.images {
            let end = image.loadAddress &+ (image.size ?? 1) &- 1
            let uuid = image.uuid?.compactString ?? "???"
            out += "\(ASCII.hex(image.loadAddress)) - \(ASCII.hex(end)) \(image.name) \(image.arch?.rawValue ?? "???")"
            out += "  <\(uuid)> \(image.path ?? image.name)\n"
        }
        return Array(out.utf8)
    }

    private static func frames(_ report: CrashReport, _ b: Int, _ results: [FrameID: FrameResult]) -> String {
        var out = ""
        for (f, frame) in report.backtraces[b].frames.enumerated() {
            let image = report.image(for: frame)?.name ?? "???"
            if let result = results[FrameID(backtrace: b, frame: f)], result.status == .symbolicated,
                !result.frames.isEmpty
            {
                for level in result.frames {
                    out +=
                        ReportWriter.frameLine(
                            number: f, image: image, address: frame.address, column: ReportWriter.symbolColumn(level))
                        + "\n"
                }
            } else {
                var column = ReportWriter.unsymbolicatedColumn(frame, in: report)
                if let symbol = frame.symbol { column += " (\(symbol) + \(frame.symbolOffset ?? 0))" }
                out += ReportWriter.frameLine(number: f, image: image, address: frame.address, column: column) + "\n"
            }
        }
        return out
    }
}
