// BatchSummary: the result of a batch run, in the shape users read it: how many reports were
// read and how far each got, why the unparsable ones failed, which symbol files are missing
// (ranked by how many reports need them, so the first dSYM to find is the first line), and the
// crash groups that happen most. Rendered as a table for stderr and as JSON for `--summary`.

import Foundation
import SymbolicateModel

public struct BatchSummary: Sendable, Codable, Equatable {
    public struct Counts: Sendable, Codable, Equatable {
        /// Files (or archive members) of this shard looked at.
        public var files = 0
        /// Crash reports: symbolicated fully, partially or not at all, plus unparsable ones.
        public var reportsRead = 0
        public var fullySymbolicated = 0
        /// Reports we resolved nothing of because the report named every frame itself.
        public var namedByReport = 0
        public var partiallySymbolicated = 0
        public var notSymbolicated = 0
        /// Looked like crash reports but could not be parsed.
        public var unparsable = 0
        /// Could not be read (damaged archive member, too large, encrypted, I/O error).
        public var unreadable = 0
        /// Files that are not crash reports.
        public var skippedNonReports = 0
        /// Reports skipped because their name cannot be an output file's (too long); absent
        /// when there were none.
        public var skippedNames: Int?
        /// Links (dangling ones, or any in an archive) and devices, pipes and sockets, which are
        /// not read; absent when there were none.
        public var skippedLinks: Int?
        /// Reports not written because symbols that are (or may be) in the store could not be
        /// read now (without `--partial`); absent when there were none.
        public var symbolsUnreadable: Int?
        /// Skipped by `--resume` because their output already exists.
        public var alreadyDone = 0
        /// Outputs written in this run.
        public var written = 0
        /// The diagnostics of the MetricKit payloads read (each payload counts once in
        /// `reportsRead`); absent when there were none.
        public var metricKitDiagnostics: Int?
        /// Reports read, by kind (`crash`, `ips`, `kscrash`, `sentry-event`, `plcrash`,
        /// `metrickit`, `swift-backtrace`...), unparsable ones under the kind they seemed to be.
        public var kinds: [String: Int] = [:]

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            files = try c.decode(Int.self, forKey: .files)
            reportsRead = try c.decode(Int.self, forKey: .reportsRead)
            fullySymbolicated = try c.decode(Int.self, forKey: .fullySymbolicated)
            namedByReport = try c.decodeIfPresent(Int.self, forKey: .namedByReport) ?? 0
            partiallySymbolicated = try c.decode(Int.self, forKey: .partiallySymbolicated)
            notSymbolicated = try c.decode(Int.self, forKey: .notSymbolicated)
            unparsable = try c.decode(Int.self, forKey: .unparsable)
            unreadable = try c.decode(Int.self, forKey: .unreadable)
            skippedNonReports = try c.decode(Int.self, forKey: .skippedNonReports)
            skippedNames = try c.decodeIfPresent(Int.self, forKey: .skippedNames)
            skippedLinks = try c.decodeIfPresent(Int.self, forKey: .skippedLinks)
            symbolsUnreadable = try c.decodeIfPresent(Int.self, forKey: .symbolsUnreadable)
            alreadyDone = try c.decode(Int.self, forKey: .alreadyDone)
            written = try c.decode(Int.self, forKey: .written)
            metricKitDiagnostics = try c.decodeIfPresent(Int.self, forKey: .metricKitDiagnostics)
            // Summaries written before kinds were counted have none.
            kinds = try c.decodeIfPresent([String: Int].self, forKey: .kinds) ?? [:]
        }
    }

    /// A reason and how many files it applies to.
    public struct Reason: Sendable, Codable, Equatable {
        public var reason: String
        public var count: Int
        public var example: String
    }

    public struct MissingImage: Sendable, Codable, Equatable {
        public var uuid: String
        public var name: String
        /// The archs the reports give the image (usually one).
        public var archs: [String]
        /// App versions (the reports' `Version` field) of the reports that need it, sorted.
        public var appVersions: [String]
        /// Reports that have at least one frame in this image.
        public var reports: Int
        public var example: String
    }

    /// A file that was not read as a report, and why.
    public struct SkippedFile: Sendable, Codable, Equatable {
        public var path: String
        public var reason: String
    }

    /// Reports that crashed in the same place: the same top frames of the crashed thread, as
    /// function names, outside system images (ReportFacts).
    public struct CrashGroup: Sendable, Codable, Equatable {
        /// The first 16 hex digits of the SHA-256 of the group's key (its app, then its frames,
        /// one a line).
        public var id: String
        /// The exception type and the key's frames, for people.
        public var signature: String
        public var exceptionType: String
        /// The app (bundle identifier, else process name) whose reports the group holds;
        /// `unknown` when they name none.
        public var app: String
        public var frames: [String]
        public var count: Int
        public var example: String
        /// How many of the group's reports each app version has, most first.
        public var appVersions: [VersionCount]

        public init(
            id: String, signature: String, exceptionType: String, app: String, frames: [String], count: Int,
            example: String, appVersions: [VersionCount]
        ) {
            self.id = id
            self.signature = signature
            self.exceptionType = exceptionType
            self.app = app
            self.frames = frames
            self.count = count
            self.example = example
            self.appVersions = appVersions
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            signature = try c.decode(String.self, forKey: .signature)
            exceptionType = try c.decode(String.self, forKey: .exceptionType)
            // Summaries written before groups carried their app have none.
            app = try c.decodeIfPresent(String.self, forKey: .app) ?? ReportFacts.unknownApp
            frames = try c.decode([String].self, forKey: .frames)
            count = try c.decode(Int.self, forKey: .count)
            example = try c.decode(String.self, forKey: .example)
            appVersions = try c.decode([VersionCount].self, forKey: .appVersions)
        }
    }

    public struct VersionCount: Sendable, Codable, Equatable {
        public var version: String
        public var count: Int
    }

    public var counts = Counts()
    public var unparsable: [Reason] = []
    public var unreadable: [Reason] = []
    public var missingImages: [MissingImage] = []
    public var crashGroups: [CrashGroup] = []
    /// Every file not read as a report (unreadable, or not a report), by path; at most
    /// `SummaryCollector.maxSkippedFiles`, with `skippedFilesOmitted` counting the rest.
    public var skippedFiles: [SkippedFile] = []
    public var skippedFilesOmitted = 0
    /// Inputs that could not be read to the end (a missing file, an archive damaged beyond repair).
    public var inputErrors: [String] = []
    public var shard: String?
    public var jobs = 1
    public var elapsedSeconds = 0.0

    public init() {}

    /// Reports symbolicated or found unparsable per second of wall time.
    public var reportsPerSecond: Double {
        elapsedSeconds > 0 ? Double(counts.reportsRead) / elapsedSeconds : 0
    }

    /// Pretty, key-sorted JSON with snake_case keys (the `--summary` file).
    public func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [0x0A]
    }

    /// The human summary for stderr: counts, then the top `limit` missing images and crash groups.
    public func table(limit: Int = 10) -> String {
        var out = "Batch summary"
        if let shard { out += " (shard \(shard))" }
        out += ": \(count: counts.files, "file") in \(Self.format(elapsedSeconds)) s"
        out += ", \(Self.format(reportsPerSecond)) reports/s with \(count: jobs, "worker")\n"
        var rows: [(String, Int)] = [
            ("reports read", counts.reportsRead),
            ("  fully symbolicated", counts.fullySymbolicated),
            ("  named by the report", counts.namedByReport),
            ("  partially symbolicated", counts.partiallySymbolicated),
            ("  not symbolicated", counts.notSymbolicated),
            ("  unparsable", counts.unparsable),
            ("unreadable", counts.unreadable),
            ("skipped (not reports)", counts.skippedNonReports),
            ("skipped (already done)", counts.alreadyDone),
        ]
        if let n = counts.symbolsUnreadable { rows.append(("  symbols unreadable (not written)", n)) }
        if let n = counts.skippedNames { rows.append(("skipped (unusable name)", n)) }
        if let n = counts.skippedLinks { rows.append(("skipped (link or special)", n)) }
        rows.append(("outputs written", counts.written))
        if let n = counts.metricKitDiagnostics { rows.append(("MetricKit diagnostics", n)) }
        if counts.kinds.count > 1 {
            let kinds = counts.kinds.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            rows += kinds.map { ("  of kind \($0.key)", $0.value) }
        }
        for (label, value) in rows {
            out += "  " + label.padding(toLength: 26, withPad: " ", startingAt: 0) + String(value) + "\n"
        }
        if !unparsable.isEmpty {
            out += "\nUnparsable reports:\n"
            for r in unparsable.prefix(limit) { out += "  \(Self.right(r.count))  \(r.reason)  (e.g. \(r.example))\n" }
        }
        if !unreadable.isEmpty {
            out += "\nUnreadable files:\n"
            for r in unreadable.prefix(limit) { out += "  \(Self.right(r.count))  \(r.reason)  (e.g. \(r.example))\n" }
        }
        if !skippedFiles.isEmpty {
            out += "\nSkipped files:\n"
            for f in skippedFiles.prefix(limit) { out += "  \(f.path): \(f.reason)\n" }
            let more = skippedFiles.count - min(limit, skippedFiles.count) + skippedFilesOmitted
            if more > 0 { out += "  ... \(more) more in the JSON summary\n" }
        }
        if !missingImages.isEmpty {
            out += "\nMissing symbols, by reports needing them:\n"
            for m in missingImages.prefix(limit) {
                let versions = m.appVersions.isEmpty ? "" : "  app \(m.appVersions.joined(separator: ", "))"
                out +=
                    "  \(Self.right(m.reports))  \(m.uuid)  \(m.name) (\(m.archs.joined(separator: ", ")))\(versions)\n"
            }
            if missingImages.count > limit { out += "  ... \(missingImages.count - limit) more in the JSON summary\n" }
        }
        if !crashGroups.isEmpty {
            out += "\nTop crash groups:\n"
            let indent = String(repeating: " ", count: 10)
            for g in crashGroups.prefix(limit) {
                out += "  \(Self.right(g.count))  \(g.id)  \(g.app): \(g.signature)\n"
                if !g.appVersions.isEmpty {
                    out +=
                        indent + "app " + g.appVersions.map { "\($0.version): \($0.count)" }.joined(separator: ", ")
                        + "\n"
                }
                out += indent + "e.g. \(g.example)\n"
            }
        }
        if !inputErrors.isEmpty {
            out += "\nInput errors:\n"
            for e in inputErrors { out += "  \(e)\n" }
        }
        return out
    }

    private static func right(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: " ", count: max(0, 6 - s.count)) + s
    }

    static func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : "%.1f", value)
    }
}
