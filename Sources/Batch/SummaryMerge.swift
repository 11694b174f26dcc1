// SummaryMerge: `batch --merge-summaries OUT.json SUMMARY...` joins the `--summary` files of the
// shards of one run (pod i of an Indexed Job wrote shard i/N's) into the summary a single run
// over every input would have given: counts added; reasons, missing images and crash groups
// merged by their key (reason text, UUID, group id) with their counts summed and the same order
// SummaryCollector gives them (most first); an image's archs and app versions and a group's
// per-version counts joined; where the shards disagree (an example, an image's name, a group's
// signature under several exception types) the smallest kept, as one run keeps it; skipped files concatenated and sorted by path as one run sorts
// them; input errors (every shard reads every input's listing, so each reports a missing input
// or a cut archive) once each, in the order given.
// The wall time is the longest shard's (they ran side by side), the workers all shards' together.
// A shard given twice would count its reports twice, so it is refused.

import Foundation
import SymbolicateModel

extension BatchSummary {
    /// Reads a `--summary` file's JSON; `source` names it in errors.
    public static func decode(_ bytes: [UInt8], source: String) throws(SymbolicateError) -> BatchSummary {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(BatchSummary.self, from: Data(bytes))
        } catch {
            throw SymbolicateError(
                .badInput, "not a batch summary (the JSON `batch --summary` writes): \(Self.reason(error))",
                path: source)
        }
    }

    /// The summaries of several shards as one. `sources` (as many as `parts`) name them in errors.
    public static func merged(_ parts: [BatchSummary], sources: [String]) throws(SymbolicateError) -> BatchSummary {
        var seenShards: [String: String] = [:]
        for (part, source) in zip(parts, sources) {
            guard let shard = part.shard else { continue }
            if let earlier = seenShards[shard] {
                throw SymbolicateError(
                    .badInput, "shard \(shard) is given twice (also in \(earlier)): its reports would count twice",
                    path: source)
            }
            seenShards[shard] = source
        }
        var out = BatchSummary()
        out.jobs = 0
        var unparsable: [String: BatchSummary.Reason] = [:]
        var unreadable: [String: BatchSummary.Reason] = [:]
        var missing: [String: BatchSummary.MissingImage] = [:]
        var groups: [String: BatchSummary.CrashGroup] = [:]
        var groupVersions: [String: [String: Int]] = [:]
        for part in parts {
            out.counts.add(part.counts)
            for r in part.unparsable { add(r, to: &unparsable) }
            for r in part.unreadable { add(r, to: &unreadable) }
            for m in part.missingImages {
                if var known = missing[m.uuid] {
                    known.reports += m.reports
                    known.name = min(known.name, m.name)
                    known.example = min(known.example, m.example)
                    known.archs = Array(Set(known.archs).union(m.archs)).sorted()
                    known.appVersions = Array(Set(known.appVersions).union(m.appVersions)).sorted()
                    missing[m.uuid] = known
                } else {
                    missing[m.uuid] = m
                }
            }
            for g in part.crashGroups {
                if var known = groups[g.id] {
                    known.count += g.count
                    if g.signature < known.signature {
                        known.signature = g.signature
                        known.exceptionType = g.exceptionType
                    }
                    known.example = min(known.example, g.example)
                    groups[g.id] = known
                } else {
                    groups[g.id] = g
                }
                for v in g.appVersions { groupVersions[g.id, default: [:]][v.version, default: 0] += v.count }
            }
            out.skippedFiles += part.skippedFiles
            out.skippedFilesOmitted += part.skippedFilesOmitted
            for error in part.inputErrors where !out.inputErrors.contains(error) { out.inputErrors.append(error) }
            out.jobs += part.jobs
            out.elapsedSeconds = max(out.elapsedSeconds, part.elapsedSeconds)
        }
        out.jobs = max(1, out.jobs)
        out.skippedFiles.sort { ($0.path, $0.reason) < ($1.path, $1.reason) }
        if out.skippedFiles.count > SummaryCollector.maxSkippedFiles {
            out.skippedFilesOmitted += out.skippedFiles.count - SummaryCollector.maxSkippedFiles
            out.skippedFiles.removeLast(out.skippedFiles.count - SummaryCollector.maxSkippedFiles)
        }
        out.unparsable = unparsable.values.sorted { ($1.count, $0.reason) < ($0.count, $1.reason) }
        out.unreadable = unreadable.values.sorted { ($1.count, $0.reason) < ($0.count, $1.reason) }
        out.missingImages = missing.values.sorted { ($1.reports, $0.uuid) < ($0.reports, $1.uuid) }
        out.crashGroups = groups.values.map { group in
            var group = group
            group.appVersions = (groupVersions[group.id] ?? [:]).map { VersionCount(version: $0.key, count: $0.value) }
                .sorted { ($1.count, $0.version) < ($0.count, $1.version) }
            return group
        }
        .sorted { ($1.count, $0.signature, $0.id) < ($0.count, $1.signature, $1.id) }
        let shards = parts.compactMap(\.shard)
        out.shard = shards.isEmpty ? nil : shards.joined(separator: ",")
        return out
    }

    /// A reason's count added; its example the smallest, as one run's is.
    private static func add(_ r: Reason, to map: inout [String: Reason]) {
        var known = map[r.reason] ?? Reason(reason: r.reason, count: 0, example: r.example)
        known.count += r.count
        known.example = min(known.example, r.example)
        map[r.reason] = known
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "no \"\(key.stringValue)\" field"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "\"\(path)\" has the wrong type"
        case DecodingError.dataCorrupted: return "not valid JSON"
        default: return "\(error)"
        }
    }
}

extension BatchSummary.Counts {
    mutating func add(_ other: Self) {
        files += other.files
        reportsRead += other.reportsRead
        fullySymbolicated += other.fullySymbolicated
        namedByReport += other.namedByReport
        partiallySymbolicated += other.partiallySymbolicated
        notSymbolicated += other.notSymbolicated
        unparsable += other.unparsable
        unreadable += other.unreadable
        skippedNonReports += other.skippedNonReports
        alreadyDone += other.alreadyDone
        written += other.written
        if let n = other.symbolsUnreadable { symbolsUnreadable = (symbolsUnreadable ?? 0) + n }
        if let n = other.skippedNames { skippedNames = (skippedNames ?? 0) + n }
        if let n = other.skippedLinks { skippedLinks = (skippedLinks ?? 0) + n }
        if let n = other.metricKitDiagnostics { metricKitDiagnostics = (metricKitDiagnostics ?? 0) + n }
        kinds.merge(other.kinds, uniquingKeysWith: +)
    }
}
