// SummaryCollector: the one place the reader thread and the worker threads record what
// happened to each file, behind one lock. It keeps counts, reasons, missing images and crash
// groups in maps whose size is capped, so that even a run over millions of distinct reports
// stays in bounded memory: past a cap, new keys are folded into one "(other)" entry.
// `summary()` ranks everything for the table and the JSON. Each entry's example is the
// smallest path that has it, so the summary does not depend on the order workers finish in.

import Foundation
import SymbolicateModel

final class SummaryCollector: Sendable {
    private struct Tally {
        var count = 0
        var example: String
    }

    private struct MissingTally {
        var name: String
        var archs: Set<String> = []
        var versions: Set<String> = []
        var reports = 0
        var example: String
    }

    private struct GroupTally {
        var signature: String
        var exceptionType: String
        var app: String
        var frames: [String]
        var count = 0
        var example: String
        var versions: [String: Int] = [:]
    }

    static let maxReasons = 1_000
    static let maxMissing = 100_000
    static let maxGroups = 100_000
    static let maxVersionsPerImage = 50
    static let maxVersionsPerGroup = 50
    static let unknownVersion = ReportFacts.unknownVersion
    static let alreadyDone = "already done (its output exists; --resume)"
    static let maxSkippedFiles = 100_000
    static let notAReport = "not a crash report"
    static let other = "(other)"

    private let record: Locked<Record>

    init(reportList: ReportList? = nil) {
        record = Locked(Record(reportList: reportList))
    }

    /// Writes out the rest of the report list; throws the first error writing it met.
    func finishReportList() throws(SymbolicateError) {
        let error: SymbolicateError? = record.withLock { r in
            r.reportList?.flush()
            return r.reportList?.failure
        }
        if let error { throw error }
    }

    /// The counts so far, without ranking anything (cheap enough for every progress tick).
    var currentCounts: BatchSummary.Counts { record.withLock { $0.counts } }

    /// Files whose handling is complete (for progress).
    var finishedCount: Int { record.withLock { $0.finished } }

    func recordReport(_ facts: ReportFacts, path: String, written: Bool) {
        record.withLock { $0.recordReport(facts, path: path, written: written) }
    }

    func recordUnparsable(reason: String, path: String, kind: String) {
        record.withLock { $0.recordUnparsable(reason: reason, path: path, kind: kind) }
    }

    func recordUnreadable(reason: String, path: String) {
        record.withLock { $0.recordUnreadable(reason: reason, path: path) }
    }

    /// A report not written because symbols it needs could not be read now: read, listed with
    /// the cause among the unreadable reasons, and not done (`--resume` does it again).
    func recordSymbolsUnreadable(reason: String, path: String) {
        record.withLock { $0.recordSymbolsUnreadable(reason: reason, path: path) }
    }

    /// A file skipped for a reason other than its content (a name no output file can have):
    /// counted and listed once, as skipped, not as unreadable.
    func recordSkippedName(reason: String, path: String) {
        record.withLock { $0.recordSkipped(\.skippedNames, reason: reason, path: path) }
    }

    /// A link or a device, pipe or socket, which is not read: counted and listed once, as skipped.
    func recordSkippedLink(reason: String, path: String) {
        record.withLock { $0.recordSkipped(\.skippedLinks, reason: reason, path: path) }
    }

    func recordNonReport(path: String, reason: String = notAReport) {
        record.withLock { $0.recordNonReport(path: path, reason: reason) }
    }

    func recordAlreadyDone(path: String) {
        record.withLock { $0.recordAlreadyDone(path: path) }
    }

    func recordInputError(_ message: String) {
        record.withLock { $0.inputErrors.append(message) }
    }

    /// Everything recorded so far, ranked: most frequent first, ties by name for stable output.
    func summary() -> BatchSummary {
        record.withLock { $0.summary() }
    }

    /// What the collector holds, only reached through `record`'s lock.
    private struct Record {
        /// The `--report-list` file, written under the lock.
        let reportList: ReportList?
        var counts = BatchSummary.Counts()
        var unparsable: [String: Tally] = [:]
        var unreadable: [String: Tally] = [:]
        var missing: [String: MissingTally] = [:]
        var groups: [String: GroupTally] = [:]
        var inputErrors: [String] = []
        var skipped: [BatchSummary.SkippedFile] = []
        var skippedOmitted = 0
        var finished = 0

        init(reportList: ReportList? = nil) {
            self.reportList = reportList
        }

        mutating func recordReport(_ facts: ReportFacts, path: String, written: Bool) {
            counts.files += 1
            counts.reportsRead += 1
            counts.kinds[facts.kind, default: 0] += 1
            finished += 1
            if written { counts.written += 1 }
            if facts.diagnostics > 0 {
                counts.metricKitDiagnostics = (counts.metricKitDiagnostics ?? 0) + facts.diagnostics
            }
            switch facts.level {
            case .full: counts.fullySymbolicated += 1
            case .namedByReport: counts.namedByReport += 1
            case .partial: counts.partiallySymbolicated += 1
            case .none: counts.notSymbolicated += 1
            }
            for m in facts.missing {
                var key = m.uuid.uuidString
                if missing[key] == nil && missing.count >= maxMissing { key = other }
                var tally = missing[key] ?? MissingTally(name: key == other ? other : m.name, example: path)
                tally.reports += 1
                tally.example = min(tally.example, path)
                if key != other {
                    tally.name = min(tally.name, m.name)
                    tally.archs.insert(m.arch)
                }
                if let v = facts.appVersion, tally.versions.count < maxVersionsPerImage {
                    tally.versions.insert(v)
                }
                missing[key] = tally
            }
            if var id = facts.groupID {
                if groups[id] == nil && groups.count >= maxGroups { id = other }
                var group =
                    groups[id]
                    ?? GroupTally(
                        signature: id == other ? other : facts.signature, exceptionType: facts.exceptionType,
                        app: id == other ? other : facts.app,
                        frames: id == other ? [] : facts.topFrames, example: path)
                group.count += 1
                if id != other, facts.signature < group.signature {
                    // The same key under several exception types shows the smallest, whatever the order.
                    group.signature = facts.signature
                    group.exceptionType = facts.exceptionType
                }
                group.example = min(group.example, path)
                var version = facts.appVersion ?? unknownVersion
                if group.versions[version] == nil && group.versions.count >= maxVersionsPerGroup {
                    version = other
                }
                group.versions[version, default: 0] += 1
                groups[id] = group
            }
            reportList?.report(path: path, facts: facts)
        }

        mutating func recordUnparsable(reason: String, path: String, kind: String) {
            counts.files += 1
            counts.reportsRead += 1
            counts.kinds[kind, default: 0] += 1
            counts.unparsable += 1
            finished += 1
            Record.add(reason, path, to: &unparsable)
            reportList?.unparsable(path: path, kind: kind, reason: reason)
        }

        mutating func recordUnreadable(reason: String, path: String) {
            counts.files += 1
            counts.unreadable += 1
            finished += 1
            Record.add(reason, path, to: &unreadable)
            skip(path, reason)
        }

        mutating func recordSymbolsUnreadable(reason: String, path: String) {
            counts.files += 1
            counts.reportsRead += 1
            counts.symbolsUnreadable = (counts.symbolsUnreadable ?? 0) + 1
            finished += 1
            Record.add(reason, path, to: &unreadable)
            skip(path, reason)
        }

        mutating func recordSkipped(
            _ count: WritableKeyPath<BatchSummary.Counts, Int?>, reason: String, path: String
        ) {
            counts.files += 1
            counts[keyPath: count] = (counts[keyPath: count] ?? 0) + 1
            finished += 1
            skip(path, reason)
        }

        mutating func recordNonReport(path: String, reason: String) {
            counts.files += 1
            counts.skippedNonReports += 1
            finished += 1
            skip(path, reason)
        }

        /// Names a skipped file.
        private mutating func skip(_ path: String, _ reason: String) {
            reportList?.skipped(path: path, reason: reason)
            if skipped.count < maxSkippedFiles {
                skipped.append(BatchSummary.SkippedFile(path: path, reason: reason))
            } else {
                skippedOmitted += 1
            }
        }

        mutating func recordAlreadyDone(path: String) {
            counts.files += 1
            counts.alreadyDone += 1
            finished += 1
            reportList?.skipped(path: path, reason: alreadyDone)
        }

        private static func add(_ reason: String, _ path: String, to map: inout [String: Tally]) {
            let key = map[reason] == nil && map.count >= maxReasons ? other : reason
            var tally = map[key] ?? Tally(example: path)
            tally.count += 1
            tally.example = min(tally.example, path)
            map[key] = tally
        }

        func summary() -> BatchSummary {
            var s = BatchSummary()
            s.counts = counts
            s.inputErrors = inputErrors
            s.skippedFiles = skipped.sorted { ($0.path, $0.reason) < ($1.path, $1.reason) }
            s.skippedFilesOmitted = skippedOmitted
            s.unparsable = Record.ranked(unparsable)
            s.unreadable = Record.ranked(unreadable)
            s.missingImages = missing.map { key, t in
                BatchSummary.MissingImage(
                    uuid: key, name: t.name, archs: t.archs.sorted(), appVersions: t.versions.sorted(),
                    reports: t.reports,
                    example: t.example)
            }
            .sorted { ($1.reports, $0.uuid) < ($0.reports, $1.uuid) }
            s.crashGroups = groups.map { id, g in
                BatchSummary.CrashGroup(
                    id: id, signature: g.signature, exceptionType: g.exceptionType, app: g.app, frames: g.frames,
                    count: g.count,
                    example: g.example,
                    appVersions: g.versions.map { BatchSummary.VersionCount(version: $0.key, count: $0.value) }
                        .sorted { ($1.count, $0.version) < ($0.count, $1.version) })
            }
            .sorted { ($1.count, $0.signature, $0.id) < ($0.count, $1.signature, $1.id) }
            return s
        }

        private static func ranked(_ map: [String: Tally]) -> [BatchSummary.Reason] {
            map.map { BatchSummary.Reason(reason: $0.key, count: $0.value.count, example: $0.value.example) }
                .sorted { ($1.count, $0.reason) < ($0.count, $1.reason) }
        }

    }
}
