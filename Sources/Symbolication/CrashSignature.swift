// CrashSignature: what groups crashes, for a batch run's crash groups and a server's stored-report
// listing alike. A crash is keyed by the app (its bundle identifier, else its process name, as the
// report gives them; `unknown` when it gives neither), so two apps never share a group, and by the
// top three frames of the crashed thread (the Last Exception Backtrace when no thread is marked
// crashed) that lie outside system images, each as a function name: the innermost symbol we
// found, else the symbol the report already names (without offset, file:line or `(in Image)`),
// else `image + 0xoffset`. Nothing of the build's identity (UUIDs, versions, arch, load addresses)
// and not the exception type (a Swift trap is EXC_BREAKPOINT on arm64 and EXC_BAD_INSTRUCTION on
// x86_64) enters the key, so one crash in two builds or on two archs is one group, whatever the
// report's format. A thread with only system frames is keyed by those. A report with no crashed
// thread (a CPU-resource microstackshot, a bare call-stack tree) is in no group. The group id is
// the first 16 hex digits of the key's SHA-256. The signature shown to people is the exception
// type followed by the key's frames.

import Digest
import Foundation
import Reports
import SymbolicateModel

public struct CrashSignature: Sendable, Hashable {
    public static let depth = 3
    /// The one spelling of an app version a report does not give (reports write `0`, `???`,
    /// `()` or `(unknown)`).
    public static let unknownVersion = "unknown"
    /// The app of a report that names none.
    public static let unknownApp = "unknown"

    /// The bundle identifier the report gives, else its process name (`unknown` when neither).
    public var app: String
    /// The app version, or nil when the report gives none (see `knownVersion`).
    public var appVersion: String?
    public var exceptionType: String
    /// The group key's frames.
    public var frames: [String]
    /// The crashed thread's first frame as a function name, system images included: what a
    /// person reads first in a listing.
    public var crashedFunction: String?

    public init(_ report: CrashReport, _ outcome: SymbolicationOutcome, summary: ReportSummary? = nil) {
        let summary = summary ?? ReportSummary(report)
        let named = [summary.bundleID, summary.app].lazy
            .compactMap { $0?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        app = named ?? Self.unknownApp
        appVersion = Self.knownVersion(summary.version)
        exceptionType = summary.exceptionType ?? report.field("Termination Signal") ?? "unknown exception"
        frames = Self.topFrames(report, outcome, ownOnly: true, depth: Self.depth)
        crashedFunction = Self.topFrames(report, outcome, ownOnly: false, depth: 1).first
    }

    public var signature: String {
        ([exceptionType] + frames).joined(separator: " | ")
    }

    /// What crash groups are keyed by: the app, then the frames, one a line; nil without a
    /// crashed thread.
    public var groupKey: String? {
        frames.isEmpty ? nil : ([app] + frames).joined(separator: "\n")
    }

    /// The first 16 hex digits of the SHA-256 of the group key.
    public var groupID: String? {
        groupKey.map { String(SHA256.hex(Array($0.utf8)).prefix(16)) }
    }

    /// `version`, or nil when it says nothing: empty, `0`, `???`, `()`, `(unknown)`, `unknown`,
    /// alone or as both parts of `short (build)`.
    public static func knownVersion(_ version: String?) -> String? {
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

    static func topFrames(_ report: CrashReport, _ outcome: SymbolicationOutcome, ownOnly: Bool, depth: Int)
        -> [String]
    {
        let index =
            report.backtraces.firstIndex { $0.kind == .thread && $0.crashed }
            ?? report.backtraces.firstIndex { $0.kind == .lastException }
        guard let index else { return [] }
        let frames = report.backtraces[index].frames
        let own = frames.indices.filter { !isSystemImage(report.image(for: frames[$0])) }
        let chosen = own.isEmpty || !ownOnly ? Array(frames.indices) : own
        return chosen.prefix(depth).map { f in
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
    public static func functionName(_ symbol: String) -> String {
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

    /// True for an image of the operating system (SystemImage's one definition), never for one
    /// without a path.
    public static func isSystemImage(_ image: BinaryImage?) -> Bool {
        image.map(SystemImage.isSystem) ?? false
    }
}
