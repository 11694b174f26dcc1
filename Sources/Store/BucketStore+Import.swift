// Importing into a bucket store. The walk over files, bundles and archives, the indexing and the
// checks are the folder store's: a bucket import indexes into a private folder store under the
// cache's `tmp/` (asking the bucket first whether it already has each build, so nothing present
// is read twice), then publishes every new build: its file by one PUT, then its metadata entry.
//
// Concurrent writers, with no lock to take, stay correct because of three rules:
// - The entry is written after the file, so an entry never names a file that was not there.
// - A symbol-table-only build is written create-only (`If-None-Match: *`), its file and its entry
//   both: it can never replace anything, least of all debug information. Debug information is
//   written unconditionally and so replaces a symbol table whatever the order. Whichever way a
//   symbol-table import and a debug-info import of one build interleave, the file ends as the
//   debug info (the symbol table's create-only PUT either fails, or lands first and is
//   overwritten) and the entry ends as the debug info's (same argument), which is "debug info
//   supersedes a symbol table" without a lock.
// - Two imports of the same kind write the same build (the same UUID's symbols): the last PUT
//   wins and either is right.
// A build found present is marked used (the `.used` object) before it is reported present, and
// counts as present only while well inside gc's grace period (see BucketStore+Maintenance.swift).

import Foundation
import ObjectStorage
import SymbolicateModel

extension BucketStore {
    public func importPaths(_ paths: [String], progress: (@Sendable (ImportProgress) -> Void)?) -> ImportSummary {
        let staging: (store: SymbolStore, folder: String)
        do {
            staging = try makeStaging()
        } catch {
            var summary = ImportSummary()
            let e = error as? SymbolicateError ?? SymbolicateError(.internal, "\(error)")
            for input in paths { summary.failures.append(.init(path: input, error: e)) }
            return summary
        }
        defer { try? FileManager.default.removeItem(atPath: staging.folder) }
        var summary = staging.store.importPaths(paths, progress: progress)
        publishStaged(staging.store, into: &summary)
        return summary
    }

    @discardableResult
    public func importTable(_ table: SymbolTable, source: String) throws -> ImportOutcome {
        if try isPresent(table.build) { return .alreadyPresent }
        let staging = try makeStaging()
        defer { try? FileManager.default.removeItem(atPath: staging.folder) }
        // The staging store asks the bucket again: another writer may have published it meanwhile.
        if try staging.store.importTable(table, source: source) == .alreadyPresent { return .alreadyPresent }
        guard
            let row = try staging.store.list().first(where: {
                $0.uuid == table.build.uuid && $0.arch == table.build.arch
            })
        else { throw SymbolicateError(.internal, "the staged build is not in the staging store", path: source) }
        return try publish(row, file: staging.store.absolutePath(row.file))
    }

    /// A folder store in `<cache>/tmp/import-<random>` that asks this bucket before indexing.
    private func makeStaging() throws -> (store: SymbolStore, folder: String) {
        let folder = cache.temporaryDirectory + "/import-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let store = try SymbolStore(directory: folder, archiveLimits: ArchiveImportLimits()) { [self] info in
            try isPresent(info)
        }
        return (store, folder)
    }

    /// Publishes every build the staging store took in and rewrites the summary with what the
    /// bucket made of each: imported, superseded, present after all (another writer was first),
    /// or failed (the bucket refused it; named with its key).
    private func publishStaged(_ staging: SymbolStore, into summary: inout ImportSummary) {
        guard !summary.imported.isEmpty else { return }
        let rows: [StoredBuild]
        do {
            rows = try staging.list()
        } catch {
            let e = error as? SymbolicateError ?? SymbolicateError(.internal, "\(error)")
            for item in summary.imported { summary.failures.append(.init(path: item.source, error: e)) }
            summary.imported = []
            return
        }
        struct BuildKey: Hashable {
            var uuid: BuildID
            var arch: Arch
        }
        var outcomes: [BuildKey: Result<ImportOutcome, SymbolicateError>] = [:]
        for row in rows {
            do {
                outcomes[BuildKey(uuid: row.uuid, arch: row.arch)] = .success(
                    try publish(row, file: staging.absolutePath(row.file)))
            } catch {
                outcomes[BuildKey(uuid: row.uuid, arch: row.arch)] = .failure(
                    error as? SymbolicateError ?? SymbolicateError(.internal, "\(error)"))
            }
        }
        var imported: [ImportSummary.Item] = []
        for var item in summary.imported {
            switch outcomes[BuildKey(uuid: item.uuid, arch: item.arch)] {
            case .success(.alreadyPresent):
                item.outcome = .alreadyPresent
                summary.alreadyPresent.append(item)
            case .success(let outcome):
                if item.outcome != .superseded { item.outcome = outcome }
                imported.append(item)
            case .failure(let error):
                summary.failures.append(.init(path: "\(item.source) (\(item.arch))", error: error))
            case nil:
                // Replaced in the staging store by a better build of the same UUID and arch.
                imported.append(item)
            }
        }
        summary.imported = imported
    }

    /// True when the bucket has `info`'s build at least as good, in the current schema, and used
    /// or imported well inside gc's grace period; the build is then marked used. Anything else
    /// is indexed and published again, which renews it.
    func isPresent(_ info: BuildInfo) throws -> Bool {
        guard let existing = try row(uuid: info.uuid, arch: info.arch, damagedAsNone: true), existing.kind >= info.kind,
            existing.schemaVersion == Int(BuildFile.schemaVersion), isFresh(existing)
        else { return false }
        let file = try storage { () throws(ObjectStorageError) in
            try client.headObject(bucket: location.bucket, key: location.key(existing.file))
        }
        guard file != nil else { return false }
        return touch(uuid: info.uuid, arch: info.arch)
    }

    /// Used or imported less than the grace period minus the safety margin ago.
    func isFresh(_ row: StoredBuild) -> Bool {
        let activity = max(row.importedAt, row.lastUsedAt ?? row.importedAt)
        return Date().timeIntervalSince(activity) < gracePeriod - BucketStore.safetyMargin
    }

    /// Writes the build file at `file` (described by `row`) and then its entry, by the rules at
    /// the top of this file; keeps a copy in the cache.
    func publish(_ row: StoredBuild, file: String) throws -> ImportOutcome {
        let state = try entry(uuid: row.uuid, arch: row.arch)
        let existing = state.row
        if let existing, existing.kind > row.kind, existing.schemaVersion == Int(BuildFile.schemaVersion) {
            touch(uuid: row.uuid, arch: row.arch)
            return .alreadyPresent
        }
        if let existing, existing.kind == row.kind, existing.schemaVersion == Int(BuildFile.schemaVersion),
            isFresh(existing),
            try storage({ () throws(ObjectStorageError) in
                try client.headObject(bucket: location.bucket, key: location.key(existing.file))
            }) != nil
        {
            touch(uuid: row.uuid, arch: row.arch)
            return .alreadyPresent
        }
        // A symbol table's file never replaces one that is there (it may be debug info); its entry
        // is created only, unless it renews an old entry of its own kind (then a concurrent debug
        // info import may have its entry relabelled "symtab" over its debug info file, until the
        // next import of that build: a wrong label, never wrong symbols).
        let fileCreateOnly = row.kind < .debugInfo
        // A damaged entry is written over by any import.
        let entryCreateOnly = row.kind < .debugInfo && existing == nil && state.damaged == nil
        let buildKey = BucketStore.buildKey(uuid: row.uuid, arch: row.arch)
        var entry = row
        entry.file = buildKey
        entry.importedAt = Date()
        entry.lastUsedAt = nil
        entry.status = .ready
        entry.schemaVersion = Int(BuildFile.schemaVersion)
        do {
            try client.uploadObject(
                bucket: location.bucket, key: location.key(buildKey), fromFile: file,
                contentType: "application/vnd.sqlite3", createOnly: fileCreateOnly)
        } catch  where error.code == .preconditionFailed {
            // Another writer's file is there: at least as good as a symbol table. Its entry follows it.
        } catch {
            throw BucketStore.error(error)
        }
        do {
            try client.putObject(
                bucket: location.bucket, key: location.key(BucketStore.metadataKey(uuid: row.uuid, arch: row.arch)),
                bytes: BuildMetadata(entry).encoded, contentType: "application/json", createOnly: entryCreateOnly)
        } catch  where error.code == .preconditionFailed {
            return .alreadyPresent
        } catch {
            throw BucketStore.error(error)
        }
        // The name index entry, for `builds(named:)`; the entry above is what counts, so a
        // failure here costs only the "another build of this name" hint.
        _ = try? client.putObject(
            bucket: location.bucket, key: location.key(BucketStore.nameKey(row.name, uuid: row.uuid, arch: row.arch)),
            bytes: [], contentType: "text/plain")
        cache.adopt(file, as: buildKey)
        if let existing, existing.kind < row.kind { return .superseded }
        return .imported
    }
}
