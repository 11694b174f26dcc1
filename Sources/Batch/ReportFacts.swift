// ReportFacts: what the batch summary needs from one processed report, computed by the worker
// that processed it: how far symbolication got, which symbol files were missing, the app
// version, and the crash signature used to group reports. Also the content test that tells an
// unparsable report (counted with its reason) from a file that is not a report at all
// (counted and skipped).
//
// Crash groups are keyed by the report's CrashSignature (Symbolication), which says how.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import SystemSupport

struct ReportFacts: Sendable {
    /// How far symbolication got: every frame named by us or by the report (`full`), none of
    /// them by us because the report named every one (`namedByReport`), some, or none.
    enum Level: Sendable { case full, namedByReport, partial, none }

    static let unknownVersion = CrashSignature.unknownVersion
    static let unknownApp = CrashSignature.unknownApp

    struct Missing: Sendable, Hashable {
        var uuid: BuildID
        var name: String
        var arch: String
    }

    var level: Level
    var missing: [Missing]
    /// The app, its version, the exception and the group key's frames.
    var crash: CrashSignature
    var appVersion: String? { crash.appVersion }
    var app: String { crash.app }
    var exceptionType: String { crash.exceptionType }
    var topFrames: [String] { crash.frames }
    /// What kind of report: `crash` (text), `ips`, or the format's own name for other kinds.
    var kind: String
    var framesSymbolicated: Int
    var framesTotal: Int
    /// A MetricKit payload's diagnostics (one payload is one report); 0 for other kinds.
    var diagnostics: Int

    var signature: String { crash.signature }
    var groupID: String? { crash.groupID }

    /// A symbol as a function name (CrashSignature.functionName).
    static func functionName(_ symbol: String) -> String { CrashSignature.functionName(symbol) }

    init(_ processed: ProcessedReport) {
        let report = processed.report
        let outcome = processed.outcome
        if outcome.isComplete {
            level = outcome.symbolicatedFrames == 0 && outcome.namedByReportFrames > 0 ? .namedByReport : .full
        } else if outcome.symbolicatedFrames > 0 {
            level = .partial
        } else {
            level = .none
        }
        var seen = Set<BuildID>()
        missing = outcome.missing.compactMap { image in
            guard let uuid = image.uuid, seen.insert(uuid).inserted else { return nil }
            return Missing(uuid: uuid, name: image.name, arch: (image.arch ?? report.arch)?.rawValue ?? "unknown")
        }
        crash = CrashSignature(report, outcome)
        kind = Self.kind(report.format)
        framesSymbolicated = outcome.symbolicatedFrames
        framesTotal = outcome.totalFrames
        diagnostics = report.diagnostics.count
    }

    /// The kind an unparsable report seems to be: `ips` when it starts as JSON, else `crash`.
    static func guessKind(_ bytes: [UInt8]) -> String {
        let first = bytes.prefix(4096).first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "{") ? "ips" : "crash"
    }

    /// `crash` for the text layouts, `ips`, and any other format by its own name.
    static func kind(_ format: ReportFormat) -> String {
        if format == .text || format == .jsonHeaderText { return "crash" }
        return format.rawValue
    }
}
