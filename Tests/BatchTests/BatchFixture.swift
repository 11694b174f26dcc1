// BatchFixture: builds the inputs the batch tests run on, from the committed Samples: a folder
// tree of reports (nested folders, a non-report text file, a binary file, an unparsable
// truncated .ips, the same report twice under two names), and archives of that tree made with
// the system's `zip` and `tar`. Also the service every test compares against: the same
// SymbolicationService the single-report CLI uses, with the Samples' dSYMs as symbol paths.

import Foundation
import ObjectFiles
import Symbolication
import SystemSupport
import TestSupport
import Testing

@testable import Batch

struct BatchFixture {
    static var repoRoot: String { Repository.root }

    static var reportsFolder: String { repoRoot + "/Samples/reports" }
    static var symbolsFolder: String { repoRoot + "/Samples/build" }

    static var samplesAvailable: Bool {
        sampleReportNames.count >= 4 && FileManager.default.fileExists(atPath: symbolsFolder)
    }

    /// The sample report file names (.crash and .ips), sorted.
    static var sampleReportNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: reportsFolder)) ?? []
        return names.filter { $0.hasSuffix(".crash") || $0.hasSuffix(".ips") }.sorted()
    }

    static func sample(_ name: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: reportsFolder + "/" + name) else {
            throw FixtureError("cannot read sample \(name)")
        }
        return [UInt8](data)
    }

    /// The first sample text report (.crash).
    static func sampleCrash() throws -> [UInt8] {
        guard let name = sampleReportNames.first(where: { $0.hasSuffix(".crash") }) else {
            throw FixtureError("no sample .crash report in \(reportsFolder)")
        }
        return try sample(name)
    }

    static func service() throws -> SymbolicationService {
        SymbolicationService(locator: try SymbolPathLocator(paths: [symbolsFolder]))
    }

    /// A fresh temporary folder, removed by `cleanUp`.
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.path + "/batch-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// What the mixed tree holds, by relative path.
    struct Tree {
        var folder: String
        /// Every file, by relative path.
        var files: [String: [UInt8]]
        /// The relative paths of the parsable reports.
        var reports: [String]
        var nonReports: [String]
        var unparsable: [String]
    }

    /// Writes the mixed tree under `root/name`.
    func mixedTree(_ name: String = "tree") throws -> Tree {
        let folder = root + "/" + name
        var files: [String: [UInt8]] = [:]
        var reports: [String] = []
        for (i, sample) in Self.sampleReportNames.enumerated() {
            let rel = i % 2 == 0 ? "set0/a/\(sample)" : "set0/b/c/\(sample)"
            files[rel] = try Self.sample(sample)
            reports.append(rel)
        }
        let twice = Self.sampleReportNames[0]
        files["dup/copy-of-\(twice)"] = try Self.sample(twice)
        reports.append("dup/copy-of-\(twice)")
        let ips = try Self.sample(Self.sampleReportNames.first { $0.hasSuffix(".ips") } ?? twice)
        files["set0/broken.ips"] = Array(ips.prefix(ips.count / 2))
        files["notes/readme.txt"] = Array("Crash reports exported from TestFlight, November.\n".utf8)
        files["notes/blob.bin"] = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        for (rel, bytes) in files {
            try Self.write(bytes, to: folder + "/" + rel)
        }
        return Tree(
            folder: folder, files: files, reports: reports.sorted(),
            nonReports: ["notes/blob.bin", "notes/readme.txt"],
            unparsable: ["set0/broken.ips"])
    }

    /// `zip -r` of the tree's contents (member names relative to the tree).
    func zip(_ tree: Tree, to name: String = "reports.zip") throws -> String {
        let path = root + "/" + name
        try Self.shell(["zip", "-q", "-r", path, "."], in: tree.folder)
        return path
    }

    /// `tar czf` of the tree's contents.
    func tarGzip(_ tree: Tree, to name: String = "reports.tar.gz") throws -> String {
        let path = root + "/" + name
        try Self.shell(["tar", "czf", path, "-C", tree.folder, "."], in: tree.folder)
        return path
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw FixtureError("cannot write \(path)")
        }
    }

    /// Every regular file under `folder`, by relative path (hidden temporary files included, so
    /// a test sees any left behind).
    static func files(in folder: String) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        FolderWalk.walk(folder, options: .physical) { entry in
            if entry.kind == .file, let data = FileManager.default.contents(atPath: entry.path) {
                result[entry.relativePath] = [UInt8](data)
            }
            return .proceed
        }
        return result
    }

    static func shell(_ arguments: [String], in folder: String) throws {
        guard let program = arguments.first else { throw FixtureError("no program to run") }
        let result = try ProcessRunner.run(program, Array(arguments.dropFirst()), directory: folder)
        guard result.status == 0 else {
            throw FixtureError("`\(arguments.joined(separator: " "))` exited with \(result.status)")
        }
    }

    static func toolExists(_ name: String) -> Bool { ProcessRunner.exists(name) }

    /// Writes a deflated zip at `path` whose members, named `names`, each hold the bytes of
    /// `contents`, with Python's zipfile: it marks UTF-8 names (general-purpose bit 11) and
    /// takes names longer than a file's.
    static func pythonZip(_ path: String, names: [String], contents: String) throws {
        let script = """
            import sys, zipfile
            data = open(sys.argv[1], 'rb').read()
            with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:
                for name in sys.argv[3:]:
                    z.writestr(name, data)
            """
        try shell(["python3", "-c", script, contents, path] + names, in: (path as NSString).deletingLastPathComponent)
    }

    /// A configuration for tests: quiet, two workers, a small queue to exercise back-pressure.
    static func configuration(_ inputs: [String], into output: String) -> BatchConfiguration {
        BatchConfiguration(inputs: inputs, destination: .directory(output), jobs: 2, progress: .none, queueCapacity: 2)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
