// Reindexing: every build whose kept original is stored is read again from it into a build file
// of the current schema, when its own file is missing, damaged or of another schema (or when the
// catalog lost it). Each original is imported on its own as `import` would, so a reindex that is
// stopped and run again picks up where it was (builds already current are skipped), and memory
// stays that of one import per worker. Builds that need rebuilding but have no original, and
// originals that cannot be read, are named.

import Foundation
import Store
import SymbolicateModel
import SystemSupport

extension Originals {
    /// What a reindex did.
    public struct ReindexReport: Sendable {
        /// Builds written again from their originals.
        public var rebuilt: [ImportSummary.Item] = []
        /// Builds that were already current.
        public var current = 0
        /// Why each original or build could not be rebuilt.
        public var failures: [ImportSummary.Failure] = []
        /// Builds that need rebuilding but have no original kept.
        public var withoutOriginals: [StoredBuild] = []
    }

    /// Rebuilds from originals with `jobs` imports at once.
    public func reindex(_ store: any SymbolStoring, jobs: Int) throws -> ReindexReport {
        var report = ReindexReport()
        let (entries, damaged) = try entries()
        for path in damaged {
            report.failures.append(
                .init(path: path, error: SymbolicateError(.badInput, "an originals index record that cannot be read")))
        }
        // One import per blob: a universal file's builds come from one read of it.
        var byBlob: [BlobKey: OriginalEntry] = [:]
        for entry in entries where byBlob[entry.blob] == nil { byBlob[entry.blob] = entry }
        let work = Array(byBlob.values).sorted { $0.blob.digest < $1.blob.digest }
        let next = Locked(0)
        let results = Locked(ReindexReport())
        let scratch = NSTemporaryDirectory() + "/symbolicate-reindex-\(UInt64.random(in: 0...UInt64.max))"
        try Folders.create(scratch, what: "temporary folder")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, work.count))) { _ in
            while true {
                let index = next.withLock { n -> Int in
                    defer { n += 1 }
                    return n
                }
                guard index < work.count else { return }
                let outcome = rebuild(work[index], into: store, scratch: scratch)
                results.withLock {
                    $0.rebuilt += outcome.rebuilt
                    $0.current += outcome.current
                    $0.failures += outcome.failures
                }
            }
        }
        let done = results.withLock { $0 }
        report.rebuilt = done.rebuilt
        report.current = done.current
        report.failures += done.failures
        let kept = Set(entries.map(\.buildID))
        report.withoutOriginals = try store.list().filter { $0.status != .ready && !kept.contains($0.uuid) }
        return report
    }

    /// Imports one original (downloaded first from a bucket).
    func rebuild(_ entry: OriginalEntry, into store: any SymbolStoring, scratch: String) -> ReindexReport {
        var report = ReindexReport()
        let label = "\(entry.name) (\(entry.blob))"
        do {
            // Under its own name, which the build takes (a blob's name is its digest).
            let folder = scratch + "/" + entry.blob.digest
            try Folders.create(folder, what: "temporary folder")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let name =
                entry.name.isEmpty || entry.name.hasPrefix(".") || entry.name.contains("/") ? "original" : entry.name
            let path = folder + "/" + name
            if let local = blobs.backend as? FolderBlobBackend {
                guard try local.size(entry.blob.path) != nil,
                    symlink(Self.absolute(local.root) + "/" + entry.blob.path, path) == 0
                else {
                    throw SymbolicateError(.notFound, "the original is indexed but not stored: import it again")
                }
            } else if try !blobs.backend.download(entry.blob.path, to: path) {
                throw SymbolicateError(.notFound, "the original is indexed but not stored: import it again")
            }
            let summary = store.importPaths([path], progress: nil)
            report.rebuilt = summary.imported
            report.current = summary.alreadyPresent.count
            report.failures = summary.failures.map {
                .init(path: label, error: SymbolicateError($0.error.code, $0.error.message))
            }
        } catch {
            let e = SymbolicateError.wrapping(error)
            report.failures.append(.init(path: label, error: e))
        }
        return report
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
