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
    /// The app's bundle identifier (`Identifier:`, an `.ips` report's `bundleID` or
    /// `CFBundleIdentifier`, MetricKit's `bundleIdentifier`).
    public var bundleID: String?
    public var version: String?
    public var os: String?
    public var device: String?
    public var exception: String?
    /// The exception's type and signal alone (`EXC_BAD_ACCESS (SIGSEGV)`), without the codes or
    /// subtype that `exception` adds, which differ from one crash to the next: what a batch run's
    /// crash signatures start with.
    public var exceptionType: String?
    public var crashedThread: Int?

    public init(_ report: CrashReport) {
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
        bundleID = field("Identifier", "bundleIdentifier")
        version = field("Version") ?? Self.headerVersion(report)
        os = field("OS Version", "osVersion")
        device = field("Hardware Model", "Hardware model", "Model", "deviceType")
        exceptionType = field("Exception Type")
        if var exception = exceptionType {
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

    /// The one-line JSON header of an `.ips` or JSON-header + text report, parsed.
    private static func header(_ report: CrashReport) -> JSONNode? {
        report.jsonHeader.flatMap { try? JSONScanner.parse(Array($0.utf8)).0 }
    }

    /// The version a JSON header states (`app_version`, `build_version`).
    private static func headerVersion(_ report: CrashReport) -> String? {
        let header = header(report)
        return version(short: header?["app_version"]?.string, build: header?["build_version"]?.string)
    }

    /// `1.2 (12)`: the short version and the build, the build alone when there is no short
    /// version, and the short version alone when the build is missing or the same.
    private static func version(short: String?, build: String?) -> String? {
        let short = short.flatMap { $0.isEmpty ? nil : $0 }
        let build = build.flatMap { $0.isEmpty ? nil : $0 }
        guard let short else { return build }
        guard let build, build != short else { return short }
        return "\(short) (\(build))"
    }

    private mutating func readIPS(_ report: CrashReport) {
        let header = Self.header(report)
        var body: JSONNode? = nil
        if let start = ReportParser.ipsBodyStart(report.original) {
            body = try? IPSReportParser.parseBody(report.original, bodyStart: start)
        }
        app = header?["app_name"]?.string ?? header?["name"]?.string ?? body?["procName"]?.string
        let bundle = body?["bundleInfo"]
        bundleID = header?["bundleID"]?.string ?? bundle?["CFBundleIdentifier"]?.string
        version = Self.version(
            short: header?["app_version"]?.string ?? bundle?["CFBundleShortVersionString"]?.string,
            build: header?["build_version"]?.string ?? bundle?["CFBundleVersion"]?.string)
        // The header's os_version says "(Simulator)" where the body's osVersion does not.
        if let stated = header?["os_version"]?.string {
            os = stated
        } else if let train = body?["osVersion"]?["train"]?.string {
            let number = body?["osVersion"]?["build"]?.string ?? ""
            os = number.isEmpty ? train : "\(train) (\(number))"
        }
        device = body?["modelCode"]?.string
        if let e = body?["exception"] {
            let type = e["type"]?.string
            let signal = e["signal"]?.string.flatMap { $0.isEmpty ? nil : " (\($0))" } ?? ""
            let typed = (type ?? "?") + signal
            if type != nil { exceptionType = typed }
            exception = typed + (e["subtype"]?.string.map { ", " + $0 } ?? "")
        }
        crashedThread = body?["faultingThread"]?.scalarText.flatMap { Int($0) }
    }
}
