// ReportSummary: the few facts a person looks for first in a crash report — which app and
// version, on which OS and device, with which exception, on which thread — read from the
// header a text report prints (`Process:`, `Version:`, `OS Version:`, `Hardware Model:`,
// `Exception Type:`, `Triggered by Thread:` / `Crashed Thread:`) or from an `.ips` report's
// JSON header and body (`app_name`, `app_version`, `build_version`, `os_version`, `modelCode`,
// `exception`, `faultingThread`). MetricKit payloads state theirs in the diagnostic's metadata
// (`bundleIdentifier`, `osVersion`, `deviceType`), microstackshot reports in their own header
// (`Command:`, `Hardware model:`, and `Event:` in place of an exception). The web page shows it
// above the stack; `--format json` and the server's JSON carry it as `report`. A fact the
// report does not state is nil.

import SymbolicateModel

public struct ReportSummary: Sendable, Hashable {
    public var app: String?
    public var version: String?
    public var os: String?
    public var device: String?
    public var exception: String?
    public var crashedThread: Int?

    public init(
        app: String? = nil, version: String? = nil, os: String? = nil, device: String? = nil,
        exception: String? = nil, crashedThread: Int? = nil
    ) {
        self.app = app
        self.version = version
        self.os = os
        self.device = device
        self.exception = exception
        self.crashedThread = crashedThread
    }

    public init(_ report: CrashReport) {
        self.init()
        if report.format == .ips { readIPS(report) } else { readText(report) }
        // Whatever the header says, a thread marked crashed in the backtraces is the answer.
        if crashedThread == nil {
            crashedThread = report.backtraces.first { $0.kind == .thread && $0.crashed }?.number
        }
    }

    private mutating func readText(_ report: CrashReport) {
        func field(_ keys: String...) -> String? {
            for key in keys {
                if let value = report.field(key)?.trimmingCharacters(in: " \t"), !value.isEmpty { return value }
            }
            return nil
        }
        if let process = field("Process", "Command", "bundleIdentifier") {
            // `HoldApp [4127]`: the name without the pid.
            app = process.split(separator: "[").first.map { $0.trimmingCharacters(in: " ") } ?? process
        }
        version = field("Version")
        os = field("OS Version", "osVersion")
        device = field("Hardware Model", "Hardware model", "Model", "deviceType")
        if var exception = field("Exception Type") {
            if let codes = field("Exception Codes"), !codes.hasPrefix("0x0000000000000000, 0x0000000000000000") {
                exception += ", " + codes
            }
            self.exception = exception
        } else if report.format == .microstackshot, let event = field("Event") {
            // A resource report has no exception: what it reports is the event (`cpu usage`).
            exception = event
        }
        let thread = field("Triggered by Thread", "Crashed Thread")
        crashedThread = thread.flatMap { Int($0.prefix { $0.isNumber }) }
    }

    private mutating func readIPS(_ report: CrashReport) {
        var header: JSONNode? = nil
        if let text = report.jsonHeader {
            header = try? JSONScanner.parse(Array(text.utf8)).0
        }
        var body: JSONNode? = nil
        if let start = ReportParser.ipsBodyStart(report.original) {
            body = try? IPSReportParser.parseBody(report.original, bodyStart: start)
        }
        app = header?["app_name"]?.string ?? header?["name"]?.string ?? body?["procName"]?.string
        let bundle = body?["bundleInfo"]
        let short = header?["app_version"]?.string ?? bundle?["CFBundleShortVersionString"]?.string
        let build = header?["build_version"]?.string ?? bundle?["CFBundleVersion"]?.string
        if let short {
            version = build.map { "\(short) (\($0))" } ?? short
        } else {
            version = build
        }
        // The header's os_version says "(Simulator)" where the body's osVersion does not.
        if let stated = header?["os_version"]?.string {
            os = stated
        } else if let train = body?["osVersion"]?["train"]?.string {
            let number = body?["osVersion"]?["build"]?.string ?? ""
            os = number.isEmpty ? train : "\(train) (\(number))"
        }
        device = body?["modelCode"]?.string
        if let e = body?["exception"] {
            var text = e["type"]?.string ?? "?"
            if let signal = e["signal"]?.string { text += " (\(signal))" }
            if let subtype = e["subtype"]?.string { text += ", " + subtype }
            exception = text
        }
        crashedThread = body?["faultingThread"]?.scalarText.flatMap { Int($0) }
    }
}
