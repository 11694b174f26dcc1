// Keeping a store healthy: `verify` (every catalog row has a readable build file of the current
// schema, no orphaned build files, no temporaries left by dead imports), `garbageCollect` (builds
// not imported or used for N days), and the lazy rebuild of a build file that is missing,
// damaged or of another schema version, from the symbol file it was imported from when that file
// is still there (by the store's `BuildRebuilding`, which the Import target provides). When it is
// not, the error names the build and says to re-import it.

import BuildFiles
import Foundation
import SymbolicateModel
import SystemSupport

/// Writes a build file again from the symbol file it was imported from. The Import target's
/// `SourceRebuilder` is the one there is; a store opened without one reports such a build instead.
public protocol BuildRebuilding: Sendable {
    /// Writes `row`'s build file in `store` again from `row.sourcePath`, replacing the row only
    /// while it is still the catalog's; false when that file no longer holds the build.
    func rebuild(_ row: StoredBuild, in store: SymbolStore) throws -> Bool
}

extension SymbolStore {
    /// Called when the build file of `row` could not be opened: rebuilds it from its source file
    /// when possible, else records the build's status and throws a message saying what to do.
    /// nil when the build was removed meanwhile (a lookup that read the row just before another
    /// process removed the build must not bring it back).
    func rebuild(_ row: StoredBuild, after error: any Error) throws -> (any SymbolSource)? {
        let status: BuildStatus
        let reason: String
        if let mismatch = error as? BuildFile.VersionMismatch {
            status = .outdated
            reason =
                "was indexed with store schema version \(mismatch.found) and this symbolicate reads version \(BuildFile.schemaVersion)"
        } else if !FileManager.default.fileExists(atPath: absolutePath(row.file)) {
            status = .missing
            reason = "is listed in the store but its file \(row.file) is missing"
        } else {
            status = .damaged
            let cause = (error as? SymbolicateError)?.message ?? "\(error)"
            reason = "has an unreadable build file \(absolutePath(row.file)) (\(cause))"
        }
        var rebuildError = ""
        if isReadOnly {
            rebuildError = "; the store is read-only, so it cannot be rebuilt here"
        } else if let rebuilder, SymbolStore.isRegularFile(row.sourcePath) {
            do {
                if try rebuilder.rebuild(row, in: self) {
                    guard let current = try catalogReader.withLock({ try $0.build(uuid: row.uuid, arch: row.arch) })
                    else { return nil }
                    return try BuildFileSource(path: absolutePath(current.file))
                }
                rebuildError = "; rebuilding from \(row.sourcePath) failed: it no longer holds this build"
            } catch {
                rebuildError = "; rebuilding from \(row.sourcePath) failed: \(error)"
            }
        }
        if !isReadOnly {
            _ = try? catalog.withLock { catalog in try catalog.setStatus(status, uuid: row.uuid, arch: row.arch) }
        }
        throw SymbolicateError(
            status == .missing ? .notFound : status == .outdated ? .unsupported : .io,
            "build \(row.uuid) (\(row.arch), \(row.name)) \(reason)\(rebuildError); re-import it: "
                + "symbolicate import \(row.sourcePath)",
            path: directory)
    }

    /// Whether `path` (its link's target) is a regular file: not a folder, and not a device, pipe
    /// or socket, which opening could wait on.
    package static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Checks every build and the store folder. Removes temporaries left by dead imports (listed
    /// under `repaired`); reports everything else. `deep` also runs SQLite's integrity check on
    /// every build file, which reads them in full. A read-only store is checked, not repaired.
    public func verify(deep: Bool = false) throws -> VerifyReport {
        var report = VerifyReport()
        report.catalogSchemaVersion = Int(try catalogReader.withLock { try $0.database.pragmaInteger("user_version") })
        if isReadOnly {
            let rows = try catalogReader.withLock { try $0.all() }
            for row in rows {
                report.buildsChecked += 1
                if let problem = check(row, deep: deep) { report.problems.append(problem) }
            }
            for file in try orphanFiles(listed: Set(rows.map(\.file))) {
                report.problems.append(.init(kind: .orphanFile, file: file, message: "no catalog row lists this file"))
            }
            return report
        }
        for (folder, prefix) in [(buildsDirectory, "builds/"), (temporaryDirectory, "tmp/")] {
            for name in TemporaryFile.removeStale(in: folder) {
                report.repaired.append(
                    .init(kind: .staleTemporary, file: prefix + name, message: "left by an import that died; removed"))
            }
        }
        for name in SymbolStore.removeStaleTransfers(inStore: directory) {
            report.repaired.append(
                .init(kind: .staleTemporary, file: "tmp/" + name, message: "left by a server that was stopped; removed")
            )
        }
        let rows = try catalogReader.withLock { try $0.all() }
        var listed = Set<String>()
        for row in rows {
            report.buildsChecked += 1
            listed.insert(row.file)
            if let problem = check(row, deep: deep) {
                report.problems.append(problem)
                let status: BuildStatus =
                    problem.kind == .missingFile ? .missing : problem.kind == .outdated ? .outdated : .damaged
                _ = try? catalog.withLock { catalog in try catalog.setStatus(status, uuid: row.uuid, arch: row.arch) }
            } else if row.status != .ready {
                _ = try? catalog.withLock { catalog in try catalog.setStatus(.ready, uuid: row.uuid, arch: row.arch) }
            }
        }
        try adoptOrReportOrphans(into: &report)
        return report
    }

    /// Build files without a catalog row. A complete build file under its own name is what an
    /// import killed between its rename and its catalog row leaves: it is listed again (repaired).
    /// Anything else is reported. Runs under the catalog's write lock, so no live import is
    /// caught between rename and row.
    private func adoptOrReportOrphans(into report: inout VerifyReport) throws {
        let found: [VerifyReport.Problem] = try catalog.withLock { catalog in
            try catalog.database.writeTransaction {
                let listed = Set(try catalog.all().map(\.file))
                var found: [VerifyReport.Problem] = []
                for file in try orphanFiles(listed: listed) {
                    let path = absolutePath(file)
                    guard let info = try? BuildFileSource.inspect(path: path, integrity: false),
                        SymbolStore.fileName(uuid: info.uuid, arch: info.arch) == file,
                        try catalog.build(uuid: info.uuid, arch: info.arch) == nil
                    else {
                        found.append(.init(kind: .orphanFile, file: file, message: "no catalog row lists this file"))
                        continue
                    }
                    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                    try catalog.put(
                        StoredBuild(
                            uuid: info.uuid, arch: info.arch, name: info.name, kind: info.kind,
                            textVMAddress: info.textVMAddress, textSize: info.textSize, sourcePath: info.path,
                            importedAt: attributes?[.modificationDate] as? Date ?? Date(), lastUsedAt: nil,
                            byteSize: (attributes?[.size] as? NSNumber)?.int64Value ?? 0, status: .ready,
                            schemaVersion: Int(BuildFile.schemaVersion), file: file))
                    found.append(
                        .init(
                            kind: .orphanFile, uuid: info.uuid, arch: info.arch, file: file,
                            message:
                                "complete build file left without its catalog row by an interrupted import; listed again"
                        ))
                }
                return found
            }
        }
        for problem in found {
            if problem.uuid != nil { report.repaired.append(problem) } else { report.problems.append(problem) }
        }
    }

    private func check(_ row: StoredBuild, deep: Bool) -> VerifyReport.Problem? {
        func problem(_ kind: VerifyReport.Problem.Kind, _ message: String) -> VerifyReport.Problem {
            .init(kind: kind, uuid: row.uuid, arch: row.arch, file: row.file, message: "\(row.name): \(message)")
        }
        let path = absolutePath(row.file)
        guard FileManager.default.fileExists(atPath: path) else {
            return problem(.missingFile, "the build file is missing; re-import \(row.sourcePath)")
        }
        do {
            let info = try BuildFileSource.inspect(path: path, integrity: deep)
            guard info.uuid == row.uuid, info.arch == row.arch else {
                return problem(.damaged, "the file holds \(info.uuid) \(info.arch); re-import \(row.sourcePath)")
            }
            try BuildChecksum.check(path, expected: row.checksum, what: "the build file")
        } catch let mismatch as BuildFile.VersionMismatch {
            return problem(
                .outdated,
                "schema version \(mismatch.found), this symbolicate reads \(BuildFile.schemaVersion); "
                    + "re-import \(row.sourcePath)")
        } catch {
            let message = (error as? SymbolicateError)?.message ?? "\(error)"
            return problem(.damaged, "\(message); re-import \(row.sourcePath)")
        }
        return nil
    }

    /// Build files (`builds/*.sqlite`, not temporaries) that no catalog row lists.
    private func orphanFiles(listed: Set<String>) throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: buildsDirectory)) ?? []
        return names.sorted().filter { !$0.hasPrefix(TemporaryFile.prefix) }.map { "builds/" + $0 }
            .filter { !listed.contains($0) }
    }

    /// Removes builds neither imported nor used (when use was recorded) in the last `days` days,
    /// and, unless `dryRun`, orphaned build files and dead imports' temporaries. Returns the
    /// builds removed (or that would be).
    public func garbageCollect(olderThanDays days: Int, dryRun: Bool) throws -> [StoredBuild] {
        let cutoff = Date().addingTimeInterval(-Double(max(0, days)) * 86_400)
        func isOld(_ row: StoredBuild) -> Bool { max(row.importedAt, row.lastUsedAt ?? row.importedAt) < cutoff }
        if dryRun { return try list().filter(isOld) }
        try requireWritable("gc")
        _ = TemporaryFile.removeStale(in: buildsDirectory)
        _ = TemporaryFile.removeStale(in: temporaryDirectory)
        _ = SymbolStore.removeStaleTransfers(inStore: directory)
        return try deleteBuilds { catalog in
            let rows = try catalog.all()
            let old = rows.filter(isOld)
            // Under the write lock no import is between its rename and its catalog row.
            let orphans = try orphanFiles(listed: Set(rows.map(\.file)))
            return (old, orphans)
        }
    }

    // MARK: The server's transfers

    /// How old an upload body or staged import in `tmp/` must be to count as left behind. A live
    /// upload rewrites its file at least once per connection timeout (an hour at most) and an
    /// import child lives at most its wall-clock limit (ten minutes), so an hour is past both.
    public static let staleTransferAge: TimeInterval = 3600

    /// Removes what a server killed mid-request leaves in `<store>/tmp`: request bodies
    /// (`upload-*`) and staged imports (`import-*` folders) not modified for `age` seconds. Files
    /// of live requests, in this process or any other sharing the store, are younger. Returns the
    /// names removed. Used at server start-up, by `verify` and by `gc`.
    @discardableResult
    public static func removeStaleTransfers(inStore directory: String, olderThan age: TimeInterval = staleTransferAge)
        -> [String]
    {
        let folder = directory + "/tmp"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        let cutoff = Date().timeIntervalSince1970 - age
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix("upload-") || name.hasPrefix("import-") {
            let path = folder + "/" + name
            guard newestModification(path, depth: 0) < cutoff else { continue }
            do {
                try FileManager.default.removeItem(atPath: path)
                removed.append(name)
            } catch {
                continue  // gone already, or not ours to remove: the next clean-up tries again
            }
        }
        return removed
    }

    /// The latest modification time of `path` and, for a folder, of what it holds (one level:
    /// a staged import is a folder with one hard link to its upload).
    private static func newestModification(_ path: String, depth: Int) -> TimeInterval {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .infinity }
        var newest = TimeInterval(st.st_mtim.tv_sec) + TimeInterval(st.st_mtim.tv_nsec) / 1e9
        if st.st_mode & S_IFMT == S_IFDIR, depth == 0,
            let names = try? FileManager.default.contentsOfDirectory(atPath: path)
        {
            for name in names { newest = max(newest, newestModification(path + "/" + name, depth: 1)) }
        }
        return newest
    }
}
