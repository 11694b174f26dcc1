// BatchConfiguration: everything one `symbolicate batch` run needs to know, already parsed and
// validated, so that the CLI only translates arguments and tests can build a run directly.
// `validate()` refuses contradictions (resume into an archive, no inputs, a missing input)
// before any thread starts.

import Archives
import Foundation
import Store
import SymbolicateModel
import Symbolication
import SystemSupport

public struct BatchConfiguration: Sendable {
    /// Where the symbolicated reports go.
    public enum Destination: Sendable, Equatable {
        /// A folder mirroring the inputs' relative paths; each file written atomically.
        case directory(String)
        /// One .zip / .tar / .tar.gz / .tgz, written under a temporary name and renamed at the end.
        case archive(String)
    }

    public enum ProgressStyle: Sendable, Equatable {
        /// A bar when stderr is a terminal, plain periodic lines otherwise.
        case automatic
        case bar
        case lines
        case none
    }

    /// Folders, archives, report files, or `-` for a list of such paths on stdin (one a line).
    public var inputs: [String]
    public var destination: Destination
    /// nil: each report in its own format (text stays text, .ips stays .ips).
    public var format: OutputFormat?
    /// Worker threads; the default is one per core.
    public var jobs: Int
    public var shard: Shard?
    /// Skip reports whose output file already exists (outputs are written atomically, so an
    /// existing one is complete).
    public var resume: Bool
    public var progress: ProgressStyle
    /// Seconds between two plain progress lines.
    public var progressInterval: Double
    /// Reports read ahead of the workers at most; nil means four per worker.
    public var queueCapacity: Int?
    /// Larger inputs are counted as unreadable instead of being loaded.
    public var maxReportSize: Int
    /// Where `--report-list` writes one JSON line per input file (ReportList), if anywhere.
    public var reportList: String?
    /// Where `-` reads its list of paths; stdin by default.
    public var standardInputLines: @Sendable () -> String?
    /// Write reports whose symbols could not be read now (frames `failed`) as they are; without
    /// it they are not written (so `--resume` does them again) and the run fails.
    public var partial = false

    public init(
        inputs: [String], destination: Destination, format: OutputFormat? = nil,
        jobs: Int = ProcessorBudget.defaultThreads, shard: Shard? = nil, resume: Bool = false,
        progress: ProgressStyle = .automatic, progressInterval: Double = 5, queueCapacity: Int? = nil,
        maxReportSize: Int = 64 << 20, reportList: String? = nil,
        standardInputLines: @escaping @Sendable () -> String? = { readLine() }
    ) {
        self.inputs = inputs
        self.destination = destination
        self.format = format
        self.jobs = jobs
        self.shard = shard
        self.resume = resume
        self.progress = progress
        self.progressInterval = progressInterval
        self.queueCapacity = queueCapacity
        self.maxReportSize = maxReportSize
        self.reportList = reportList
        self.standardInputLines = standardInputLines
    }

    /// Several inputs (or a list on stdin) may need the input's base name to keep names apart.
    var multipleInputs: Bool { inputs.count > 1 || inputs.contains("-") }

    var effectiveQueueCapacity: Int { queueCapacity ?? max(4, 4 * jobs) }

    /// Throws `.badInput` for contradictory settings and `.notFound` for a missing input.
    public func validate() throws(SymbolicateError) {
        guard !inputs.isEmpty else {
            throw SymbolicateError(.badInput, "no INPUT given: name folders, archives or `-`")
        }
        guard jobs >= 1, jobs <= 1024 else {
            throw SymbolicateError(.badInput, "-j expects 1 to 1024 workers, got \(jobs)")
        }
        guard maxReportSize > 0 else { throw SymbolicateError(.badInput, "the report size limit must be positive") }
        if let reportList, reportList.isEmpty {
            throw SymbolicateError(.badInput, "the report list file name is empty")
        }
        if inputs.filter({ $0 == "-" }).count > 1 {
            throw SymbolicateError(.badInput, "`-` (a list of paths on stdin) may be given once")
        }
        switch destination {
        case .directory(let path):
            guard !path.isEmpty else { throw SymbolicateError(.badInput, "the output folder name is empty") }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw SymbolicateError(.badInput, "the output exists and is not a folder", path: path)
            }
        case .archive(let path):
            guard ArchiveWriter.Kind(fileName: path) != nil else {
                throw SymbolicateError(
                    .badInput, "the output archive must end in .zip, .tar, .tar.gz or .tgz", path: path)
            }
            if resume {
                throw SymbolicateError(.badInput, "--resume needs an output folder (-o), not an output archive")
            }
        }
        for input in inputs where input != "-" {
            guard FileManager.default.fileExists(atPath: input) else {
                throw SymbolicateError.noSuchFile(input)
            }
        }
    }
}

/// The output archive's writer lives in the Archives target beside the reader; this name lets the
/// Batch files that write outputs use it as their own.
typealias ArchiveWriter = Archives.ArchiveWriter
