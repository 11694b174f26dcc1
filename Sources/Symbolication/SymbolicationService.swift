// The whole pipeline for one report, shared by the CLI, the server and batch so they answer
// byte for byte the same: parse, symbolicate, render in the requested format.

import Reports
import SymbolicateModel

public enum OutputFormat: String, Sendable, CaseIterable {
    /// Apple's text layout (an `.ips` input is translated, as Xcode and Console show it; a
    /// MetricKit payload is written as readable text).
    case crash
    /// The input's own JSON with symbols added: `.ips` documents as Xcode writes them, MetricKit
    /// payloads with App Store Connect's keys (only for `.ips` and MetricKit inputs).
    case ips
    /// Every frame with its status, for scripts.
    case json
}

/// How the caller's users ask for an output format, so that a refusal names what to ask for
/// instead: the `--format` option on the command line, the `format` query parameter over HTTP.
public enum FormatSpelling: Sendable {
    case commandLineOption
    case queryParameter

    /// `formats` as the user would ask for one of them: `--format crash or json`,
    /// `?format=crash or ?format=json`.
    public func askingFor(_ formats: [OutputFormat]) -> String {
        switch self {
        case .commandLineOption:
            return "--format " + formats.map(\.rawValue).joined(separator: " or ")
        case .queryParameter:
            return formats.map { "?format=" + $0.rawValue }.joined(separator: " or ")
        }
    }
}

public struct ProcessedReport: Sendable {
    public var report: CrashReport
    public var outcome: SymbolicationOutcome
    public var output: [UInt8]
    public var format: OutputFormat

    /// `application/json` only for what is one JSON text: `--format json`, a MetricKit payload and
    /// the Swift runtime's JSON report. An `.ips` is two (a header line, then the body), which JSON parsers refuse.
    public var contentType: String {
        switch format {
        case .json: return "application/json"
        case .ips where report.format == .metricKit: return "application/json"
        case .crash where report.format == .swiftBacktraceJSON: return "application/json"
        case .ips where report.format == .kscrash: return "application/json"
        case .ips where report.format == .sentryEvent: return "application/json"
        case .ips, .crash: return "text/plain; charset=utf-8"
        }
    }
}

public struct SymbolicationService: Sendable {
    public let symbolicator: Symbolicator

    public init(locator: any SymbolLocator, options: SymbolicationOptions = .init()) {
        self.symbolicator = Symbolicator(locator: locator, options: options)
    }

    /// Parses, symbolicates and renders one report; `format` nil answers in the input's format.
    /// Throws `SymbolicateError` (.badInput / .unsupported) when the bytes are not an Apple
    /// crash report, and .unsupported for a text report asked for as `.ips`, whose message says
    /// what to ask for as `spelling` writes it.
    public func process(
        _ bytes: [UInt8], format: OutputFormat?, spelling: FormatSpelling = .commandLineOption
    ) throws -> ProcessedReport {
        let report = try ReportParser.parse(bytes)
        let isJSON =
            report.format == .ips || report.format == .metricKit || report.format == .kscrash
            || report.format == .sentryEvent
        let wanted = format ?? (isJSON ? .ips : .crash)
        if wanted == .ips && !isJSON {
            throw SymbolicateError(
                .unsupported,
                "a text report cannot be written as .ips; ask for \(spelling.askingFor([.crash, .json]))")
        }
        let outcome = symbolicator.symbolicate(report)
        let output: [UInt8]
        switch wanted {
        case .crash:
            output =
                isJSON
                ? ReportWriter.renderText(report, results: outcome.results)
                : ReportWriter.write(report, results: outcome.results)
        case .ips:
            output = ReportWriter.write(report, results: outcome.results)
        case .json:
            output = OutcomeJSON.render(report, outcome)
        }
        return ProcessedReport(report: report, outcome: outcome, output: output, format: wanted)
    }
}
