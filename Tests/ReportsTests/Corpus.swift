// Corpus: access to the shared collection of real crash reports next to the repository
// (`../shared/corpus/real`), and its MANIFEST.tsv, which names each file's format. Tests that
// need the corpus are disabled with a message when the folder is absent.

import Foundation
import TestSupport
import Testing

enum Corpus {
    static let root = URL(fileURLWithPath: Repository.corpus)

    struct Entry: Sendable, CustomStringConvertible {
        var file: String
        var format: String
        var description: String { file }
    }

    /// Every manifest row.
    static let entries: [Entry] = Repository.corpusEntries.map { Entry(file: $0.file, format: $0.format) }

    /// Apple crash reports (text and .ips), by the manifest's format column.
    static let appleReports: [Entry] = entries.filter {
        $0.format.hasPrefix("apple-text") || $0.format.hasPrefix("apple-ips")
    }

    /// The output of macOS's `sample` tool (raw, and as their project symbolicated it).
    static let sampleReports: [Entry] = entries.filter { $0.format.hasPrefix("apple-sample") }

    /// spindump's process sections.
    static let spindumpReports: [Entry] = entries.filter { $0.format.hasPrefix("apple-spindump") }

    /// KSCrash JSON reports (KSCrash's own and Sentry's SentryCrash fork).
    static let ksCrashReports: [Entry] = entries.filter { $0.format.hasPrefix("kscrash-json") }

    /// Crash reports in other formats.
    static let otherReports: [Entry] = entries.filter { e in
        let f = e.format
        return !(f.hasPrefix("apple-text") || f.hasPrefix("apple-ips")) && !f.hasPrefix("dsym") && !f.hasPrefix("macho")
            && !f.hasPrefix("metrickit") && !f.hasPrefix("apple-sample") && !f.hasPrefix("apple-spindump")
            && !f.hasPrefix("kscrash-json") && !f.hasPrefix("sentry-event-json") && !f.hasPrefix("plcrash")
    }

    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(file)))
    }

    static func text(_ file: String) throws -> String {
        String(decoding: try bytes(file), as: UTF8.self)
    }
}
