// ImportReport: what `symbolicate import --json` prints, and what the server reads back from the
// import child it runs for an upload (written to a file in the upload's staging folder, so no pipe
// limits its size). One type for both sides of that process boundary, with a format version: a
// server never guesses at a child's output, and a child of another release (a different
// `version`) is refused by name instead of misread.

import Foundation
import SymbolicateModel

public struct ImportReport: Codable, Sendable, Equatable {
    /// The version this build writes and reads.
    public static let currentVersion = 1

    public struct Build: Codable, Sendable, Equatable {
        public var uuid: String
        public var arch: String
        public var name: String
        public var kind: String
        /// Where the slice came from: the input, the file inside it, or the archive member.
        public var source: String
        /// `imported`, `superseded` or `alreadyPresent`.
        public var outcome: String
    }

    public struct Failure: Codable, Sendable, Equatable {
        public var path: String
        public var error: String
        /// The error's class (SymbolicateError.Code: `unavailable` when the store's bucket did not
        /// answer or failed on its side); absent in reports of older versions.
        public var code: String?
    }

    public var version: Int
    public var imported: [Build]
    public var alreadyPresent: [Build]
    public var failed: [Failure]

    enum CodingKeys: String, CodingKey {
        case version, imported
        case alreadyPresent = "already_present"
        case failed
    }

    public init(_ summary: ImportSummary) {
        func build(_ item: ImportSummary.Item) -> Build {
            Build(
                uuid: item.uuid.uuidString, arch: item.arch.rawValue, name: item.name, kind: item.kind.rawValue,
                source: item.source, outcome: item.outcome.rawValue)
        }
        version = Self.currentVersion
        imported = summary.imported.map(build)
        alreadyPresent = summary.alreadyPresent.map(build)
        failed = summary.failures.map {
            Failure(path: $0.path, error: $0.error.message, code: $0.error.code.description)
        }
    }

    /// The JSON document, keys in a fixed order, one line.
    public func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [0x0A]
    }

    /// Reads the report a child wrote to `path`; throws when there is none, when it is larger than
    /// `maxBytes` (the reader's memory is the bound, not the report's), and as `decode` does.
    public static func read(_ path: String, maxBytes: Int) throws(SymbolicateError) -> ImportReport {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SymbolicateError(.notFound, "the import wrote no report", path: path)
        }
        guard Int(info.st_size) <= maxBytes else {
            throw SymbolicateError(
                .limit, "the import's report is \(info.st_size) bytes, more than the \(maxBytes) read back", path: path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SymbolicateError(.io, "the import's report cannot be read", path: path)
        }
        return try decode(Array(data))
    }

    /// Reads what a child printed; throws for anything but a document of this version.
    public static func decode(_ bytes: [UInt8]) throws(SymbolicateError) -> ImportReport {
        let report: ImportReport
        do {
            report = try JSONDecoder().decode(ImportReport.self, from: Data(bytes))
        } catch {
            throw SymbolicateError(.badInput, "the import's report is not an import report: \(error)", cause: error)
        }
        guard report.version == currentVersion else {
            throw SymbolicateError(
                .unsupported,
                "the import's report is version \(report.version), this program reads version \(currentVersion)")
        }
        return report
    }
}
