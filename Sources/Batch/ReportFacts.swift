// ReportFacts: what the batch summary needs from one processed report, computed by the worker
// that processed it: how far symbolication got, which symbol files were missing, the app
// version, and the crash signature used to group reports. Also the content test that tells an
// unparsable report (counted with its reason) from a file that is not a report at all
// (counted and skipped).
//
// Crash groups are keyed by the app (its bundle identifier, else its process name, as the report
// gives them; `unknown` when it gives neither), so that two apps never share a group, and by the top three frames of the crashed thread (the Last Exception
// Backtrace when no thread is marked crashed) that lie outside system images, each as a function
// name: the innermost symbol we found, else the symbol the report already names (without
// offset, file:line or `(in Image)`), else `image + 0xoffset`. Nothing of the build's identity
// (UUIDs, versions, arch, load addresses) and not the exception type (a Swift trap is
// EXC_BREAKPOINT on arm64 and EXC_BAD_INSTRUCTION on x86_64) enters the key, so one crash in
// two builds or on two archs is one group. A thread with only system frames is keyed by those.
// A report with no crashed thread (a CPU-resource microstackshot, a bare call-stack tree) is in
// no group.
// The group id is the first 16 hex digits of the key's SHA-256. The signature shown to people
// is the exception type followed by the key's frames.

import Digest
import Foundation
import Reports
import SymbolicateModel
import Symbolication
import SystemSupport

struct ReportFacts: Sendable {
    /// How far symbolication got: every frame named by us or by the report (`full`), none of
    /// them by us because the report named every one (`namedByReport`), some, or none.
    enum Level: Sendable { case full, namedByReport, partial, none }

    /// The one spelling of an app version a report does not give (reports write `0`, `???`,
    /// `()` or `(unknown)`).
    static let unknownVersion = "unknown"
    /// The app of a report that names none.
    static let unknownApp = "unknown"

    struct Missing: Sendable, Hashable {
        var uuid: BuildID
        var name: String
        var arch: String
    }

    var level: Level
    var missing: [Missing]
    var appVersion: String?
    /// The bundle identifier the report gives, else its process name (`unknown` when neither):
    /// part of the group key.
    var app: String
    var exceptionType: String
    /// The group key's frames.
    var topFrames: [String]
    /// What kind of report: `crash` (text), `ips`, or the format's own name for other kinds.
    var kind: String
    var framesSymbolicated: Int
    var framesTotal: Int
    /// A MetricKit payload's diagnostics (one payload is one report); 0 for other kinds.
    var diagnostics: Int

    static let signatureDepth = 3

    var signature: String {
        ([exceptionType] + topFrames).joined(separator: " | ")
    }

    /// What crash groups are keyed by: the frames, one a line; nil without a crashed thread.
    var groupKey: String? {
        topFrames.isEmpty ? nil : ([app] + topFrames).joined(separator: "\n")
    }

    /// The first 16 hex digits of the SHA-256 of the group key.
    var groupID: String? {
        groupKey.map { String(SHA256.hex(Array($0.utf8)).prefix(16)) }
    }

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
        let summary = ReportSummary(report)
        appVersion = Self.knownVersion(summary.version)
        let named = [summary.bundleID, summary.app].lazy
            .compactMap { $0?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        app = named ?? Self.unknownApp
        exceptionType = summary.exceptionType ?? report.field("Termination Signal") ?? "unknown exception"
        topFrames = Self.topFrames(report, outcome)
        kind = Self.kind(report.format)
        framesSymbolicated = outcome.symbolicatedFrames
        framesTotal = outcome.totalFrames
        diagnostics = report.diagnostics.count
    }

    /// `version`, or nil when it says nothing: empty, `0`, `???`, `()`, `(unknown)`, `unknown`,
    /// alone or as both parts of `short (build)`.
    static func knownVersion(_ version: String?) -> String? {
        guard var v = version?.trimmingCharacters(in: .whitespaces) else { return nil }
        let empty: Set<String> = ["", "0", "???", "()", "(unknown)", "unknown", "(null)", "null"]
        // `??? (???)`, `0 (0)`: both parts empty.
        if let open = v.firstIndex(of: "("), v.hasSuffix(")"), open > v.startIndex {
            let short = v[..<open].trimmingCharacters(in: .whitespaces)
            let build = String(v[v.index(after: open)..<v.index(before: v.endIndex)])
            if empty.contains(short) && empty.contains(build) { v = "" }
        }
        return empty.contains(v) ? nil : v
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

    // MARK: - Fields

    static func topFrames(_ report: CrashReport, _ outcome: SymbolicationOutcome) -> [String] {
        let index =
            report.backtraces.firstIndex { $0.kind == .thread && $0.crashed }
            ?? report.backtraces.firstIndex { $0.kind == .lastException }
        guard let index else { return [] }
        let frames = report.backtraces[index].frames
        let own = frames.indices.filter { !isSystemImage(report.image(for: frames[$0])) }
        let chosen = own.isEmpty ? Array(frames.indices) : own
        return chosen.prefix(signatureDepth).map { f in
            let frame = frames[f]
            if let result = outcome.results[FrameID(backtrace: index, frame: f)], result.status == .symbolicated,
                let symbol = result.frames.first?.symbol, !symbol.isEmpty
            {
                return functionName(symbol)
            }
            if let symbol = frame.symbol, !symbol.isEmpty, !symbol.hasPrefix("0x") { return functionName(symbol) }
            let image = report.image(for: frame)
            let name = image?.name ?? frame.imageName ?? "???"
            guard !frame.isMalformed else { return "\(name) ???" }
            if let image, frame.address >= image.loadAddress {
                return "\(name) + " + ASCII.hex(frame.address - image.loadAddress)
            }
            return "\(name) " + ASCII.hex(frame.address)
        }
    }

    /// A symbol as a function name: without ` (in Image)`, then ` (File.swift:12)`, then
    /// ` + 123` / ` + 0x7b` at its end. (Plain string work: this runs for every top frame of
    /// every report of a batch, and a regular expression literal is compiled on each call.)
    static func functionName(_ symbol: String) -> String {
        var name = Substring(symbol.trimmingCharacters(in: .whitespaces))
        name = withoutFinalGroup(name) { $0.hasPrefix("in ") }
        name = withoutFinalGroup(name) { inner in
            guard let colon = inner.lastIndex(of: ":") else { return false }
            return isDecimal(inner[inner.index(after: colon)...])
        }
        // `<space>+<space>` and a number, at the end.
        if let space = name.lastIndex(where: \.isWhitespace), space > name.startIndex {
            let number = name[name.index(after: space)...]
            let isNumber =
                number.hasPrefix("0x") ? isHex(number.dropFirst(2)) : isDecimal(number)
            let plus = name.index(before: space)
            if isNumber, name[plus] == "+", plus > name.startIndex, name[name.index(before: plus)].isWhitespace {
                name = name[..<name.index(before: plus)]
            }
        }
        return String(name)
    }

    /// `name` without a final `<whitespace>(inner)` whose `inner` holds no parenthesis and
    /// satisfies `matches`.
    private static func withoutFinalGroup(_ name: Substring, _ matches: (Substring) -> Bool) -> Substring {
        guard name.last == ")", let open = name.lastIndex(of: "("), open > name.startIndex else { return name }
        let inner = name[name.index(after: open)..<name.index(before: name.endIndex)]
        let space = name.index(before: open)
        guard !inner.contains(")"), name[space].isWhitespace, matches(inner) else { return name }
        return name[..<space]
    }

    private static func isDecimal(_ s: Substring) -> Bool {
        !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber }
    }

    private static func isHex(_ s: Substring) -> Bool {
        !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isHexDigit }
    }

    /// Folders where Apple's own images live, on a device and inside a simulator runtime.
    private static let systemFolders = ["/System/", "/usr/lib/", "/usr/libexec/", "/Library/Apple/"]

    /// True for an image of the operating system (by its path), never for one without a path.
    static func isSystemImage(_ image: BinaryImage?) -> Bool {
        guard var path = image?.path, !path.isEmpty else { return false }
        // iOS 16+ system libraries (/private/preboot/Cryptexes/OS/System/...) and a simulator
        // runtime's root (.../RuntimeRoot/System/...) hold the same folders one level down.
        for root in ["/private/preboot/Cryptexes/OS/", "/RuntimeRoot/"] {
            if let range = path.range(of: root) { path = "/" + path[range.upperBound...] }
        }
        return systemFolders.contains { path.hasPrefix($0) }
    }
}
