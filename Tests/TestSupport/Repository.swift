// Where the tests find what they read: the repository root (found from this file, through a
// link if the test folder is reached by one), the generated Samples, the shared corpus of real
// crash reports beside the repository (`../shared/corpus/real`, which is never copied in), and
// the `symbolicate` executable that `swift test` builds beside the test bundle. Tests that need
// the Samples or the corpus are disabled with these reasons when the folders are absent.

import Foundation

public enum Repository {
    /// The folder holding Package.swift.
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while url.pathComponents.count > 1 {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()

    /// `Samples/` (sources, generate.sh, and once generated, `build/` and `reports/`).
    public static var samples: String { root + "/Samples" }
    public static var samplesBuild: String { samples + "/build" }
    public static var samplesReports: String { samples + "/reports" }
    /// Whether Samples/build holds the generated binaries and dSYMs.
    public static var samplesBuilt: Bool { FileManager.default.fileExists(atPath: samplesBuild + "/images.tsv") }
    public static let samplesAbsent = "Samples/build is missing: run Samples/generate.sh"

    /// `../shared/corpus/real`: real crash reports and dSYMs, listed in MANIFEST.tsv.
    public static let corpus: String =
        URL(fileURLWithPath: root).deletingLastPathComponent().path + "/shared/corpus/real"
    public static var corpusPresent: Bool { FileManager.default.fileExists(atPath: corpus + "/MANIFEST.tsv") }
    public static let corpusAbsent = "the corpus of real reports is not at ../shared/corpus/real"

    /// One MANIFEST.tsv row: the file (relative to the corpus) and its format column.
    public struct CorpusEntry: Sendable, CustomStringConvertible {
        public var file: String
        public var format: String
        public var description: String { file }
    }

    /// Every MANIFEST.tsv row; [] without the corpus.
    public static let corpusEntries: [CorpusEntry] = {
        guard let text = try? String(contentsOfFile: corpus + "/MANIFEST.tsv", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count > 5 else { return nil }
            return CorpusEntry(file: String(columns[0]), format: String(columns[5]))
        }
    }()

    /// Full paths of the corpus files whose format starts with one of `formatPrefixes`.
    public static func corpusFiles(formatPrefixes: [String]) -> [String] {
        corpusEntries.filter { entry in formatPrefixes.contains { entry.format.hasPrefix($0) } }
            .map { corpus + "/" + $0.file }
    }

    /// The `symbolicate` executable built beside the test bundle, or nil when there is none.
    public static let executable: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        while directory.pathComponents.count > 1, !directory.lastPathComponent.hasSuffix(".xctest") {
            directory.deleteLastPathComponent()
        }
        let bundle = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        let candidates = [
            directory.deletingLastPathComponent().appendingPathComponent("symbolicate").path,
            bundle.appendingPathComponent("symbolicate").path,
            bundle.deletingLastPathComponent().appendingPathComponent("symbolicate").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// A new empty folder under the system's temporary folder; the caller removes it.
    public static func scratchFolder(_ prefix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
