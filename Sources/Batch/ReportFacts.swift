// ReportFacts: what the batch summary needs from one processed report, computed by the worker
// that processed it: how far symbolication got, which symbol files were missing, the app
// version, and the crash signature used to group reports. Also the content test that tells an
// unparsable report (counted with its reason) from a file that is not a report at all
// (counted and skipped).
//
// The signature is the exception type plus the top three frames of the crashed thread (the
// Last Exception Backtrace when no thread is marked crashed): for each frame the innermost
// symbol we found, else the symbol the report already names, else `image + 0xoffset`.

import Foundation
import SymbolicateModel
import Symbolication

struct ReportFacts: Sendable {
    enum Level: Sendable { case full, partial, none }

    struct Missing: Sendable, Hashable {
        var uuid: BuildID
        var name: String
        var arch: String
    }

    var level: Level
    var missing: [Missing]
    var appVersion: String?
    var exceptionType: String
    var topFrames: [String]

    static let signatureDepth = 3

    var signature: String {
        ([exceptionType] + topFrames).joined(separator: " | ")
    }

    init(_ processed: ProcessedReport) {
        let report = processed.report
        let outcome = processed.outcome
        if outcome.isComplete {
            level = .full
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
        let ipsBody = report.format == .ips ? Self.ipsBody(report) : nil
        appVersion = Self.appVersion(report)
        exceptionType = Self.exceptionType(report, ipsBody: ipsBody)
        topFrames = Self.topFrames(report, outcome)
    }

    // MARK: - Fields

    static func appVersion(_ report: CrashReport) -> String? {
        if let version = report.field("Version"), !version.isEmpty { return version }
        guard let header = report.jsonHeader, let object = jsonObject(Array(header.utf8)) else { return nil }
        guard let short = object["app_version"] as? String, !short.isEmpty else { return nil }
        if let build = object["build_version"] as? String, !build.isEmpty, build != short {
            return "\(short) (\(build))"
        }
        return short
    }

    static func exceptionType(_ report: CrashReport, ipsBody: [String: Any]?) -> String {
        if let type = report.field("Exception Type"), !type.isEmpty { return type }
        if let exception = ipsBody?["exception"] as? [String: Any], let type = exception["type"] as? String {
            if let signal = exception["signal"] as? String, !signal.isEmpty { return "\(type) (\(signal))" }
            return type
        }
        if let signal = report.field("Termination Signal") { return signal }
        return "unknown exception"
    }

    static func topFrames(_ report: CrashReport, _ outcome: SymbolicationOutcome) -> [String] {
        let index =
            report.backtraces.firstIndex { $0.kind == .thread && $0.crashed }
            ?? report.backtraces.firstIndex { $0.kind == .lastException }
        guard let index else { return [] }
        let frames = report.backtraces[index].frames
        return frames.indices.prefix(signatureDepth).map { f in
            let frame = frames[f]
            if let result = outcome.results[FrameID(backtrace: index, frame: f)], result.status == .symbolicated,
                let symbol = result.frames.first?.symbol, !symbol.isEmpty
            {
                return symbol
            }
            if let symbol = frame.symbol, !symbol.isEmpty, !symbol.hasPrefix("0x") { return symbol }
            let image = report.image(for: frame)
            let name = image?.name ?? frame.imageName ?? "???"
            if let image, frame.address >= image.loadAddress {
                return "\(name) + 0x" + String(frame.address - image.loadAddress, radix: 16)
            }
            return "\(name) 0x" + String(frame.address, radix: 16)
        }
    }

    // MARK: - .ips body

    /// The body object of an `.ips` report (the JSON document after the header line).
    static func ipsBody(_ report: CrashReport) -> [String: Any]? {
        let bytes = report.original
        var start = 0
        if let header = report.jsonHeader {
            let needle = Array(header.utf8)
            if let at = find(needle, in: bytes) { start = at + needle.count }
        }
        guard start < bytes.count else { return nil }
        return jsonObject(Array(bytes[start...]))
    }

    private static func jsonObject(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [])) as? [String: Any]
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        let first = needle[0]
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    // MARK: - Report or not

    /// Markers only crash reports carry, searched in the first 64 KiB.
    private static let markers: [[UInt8]] = [
        "Incident Identifier:", "Exception Type:", "Binary Images:", "\"bug_type\"", "Crashed Thread:",
        "Triggered by Thread:", "Hardware Model:", "Code Type:", "Thread 0 Crashed",
    ].map { Array($0.utf8) }

    /// True when bytes that failed to parse still look like a crash report (they are then
    /// counted as unparsable with the parser's reason, not skipped as a non-report).
    static func looksLikeReport(_ bytes: [UInt8]) -> Bool {
        let head = Array(bytes.prefix(64 << 10))
        return markers.contains { find($0, in: head) != nil }
    }
}
