// Corpus: access to the shared collection of real crash reports next to the repository
// (`../shared/corpus/real`), and its MANIFEST.tsv, which names each file's format. Tests that
// need the corpus are disabled with a message when the folder is absent.

import Foundation
import Testing

enum Corpus {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpus/real")

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("MANIFEST.tsv").path)
    }

    static let absentMessage = "crash-report corpus not found at ../shared/corpus/real; corpus tests skipped"

    struct Entry: Sendable, CustomStringConvertible {
        var file: String
        var format: String
        var description: String { file }
    }

    /// Every manifest row.
    static let entries: [Entry] = {
        guard let text = try? String(contentsOf: root.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard cols.count > 5 else { return nil }
            return Entry(file: String(cols[0]), format: String(cols[5]))
        }
    }()

    /// Apple crash reports (text and .ips), by the manifest's format column.
    static let appleReports: [Entry] = entries.filter { $0.format.hasPrefix("apple-text") || $0.format.hasPrefix("apple-ips") }

    /// Crash reports in other formats (Apple's `sample` / spindump text included: not crash reports).
    static let otherReports: [Entry] = entries.filter { e in
        let f = e.format
        return !(f.hasPrefix("apple-text") || f.hasPrefix("apple-ips")) && !f.hasPrefix("dsym") && !f.hasPrefix("macho")
            && !f.hasPrefix("metrickit")
    }

    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(file)))
    }

    static func text(_ file: String) throws -> String {
        String(decoding: try bytes(file), as: UTF8.self)
    }
}
