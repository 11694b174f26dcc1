// Importing into a bucket store. The walk over files, bundles and archives, the indexing and the
// checks are the folder store's: a bucket import indexes into a private folder store under the
// cache's `tmp/` (asking the bucket first whether it already has each build, so nothing present
// is read twice), then publishes every new build: its file by one PUT, then its metadata entry.
//
// Concurrent writers, with no lock to take, stay correct because of three rules:
// - Each publication writes its build file under a key of its own, and then the entry that
//   names it, so an entry never names a file that was not there, and no writer ever replaces
//   another's file.
// - A symbol-table-only build's entry is created only (`If-None-Match: *`), or written over
//   exactly the version its import read (`If-Match`; on a server whose answers carry no ETag,
//   unconditionally): it can never replace anything written since, least of all debug
//   information. A refused write reads the entry again before it gives up (writeEntry). Debug information's entry is written
//   unconditionally and so replaces a symbol table whatever the order. Whichever way a
//   symbol-table import and a debug-info import of one build interleave, the entry ends as the
//   debug info's, which is "debug info supersedes a symbol table" without a lock.
// - Two imports of the same kind write the same build (the same UUID's symbols): the last PUT
//   wins and either is right.
// A publication that replaced an entry deletes the file the old entry named; a file that ends up
// named by no entry (the loser of two publications, an import stopped between its PUTs) is
// removed by gc once past the grace period.
// A build found present is marked used (the `.used` object) before it is reported present, and
// counts as present only while well inside gc's grace period (see BucketStore+Maintenance.swift).

import BuildFiles
import Foundation
import ObjectStorage
import SymbolicateModel

extension BucketStore {
    public func importing(_ index: (SymbolStore) -> ImportSummary) throws -> ImportSummary {
        let staging = try makeStaging()
        defer { try? FileManager.default.removeItem(atPath: staging.folder) }
        var summary = index(staging.store)
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
            let e = SymbolicateError.wrapping(error)
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
                    SymbolicateError.wrapping(error))
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
        // Each publication writes a file of its own; what decides is the entry. Debug information
        // is written unconditionally. A symbol table's entry is created only, or, when it renews
        // an old entry of its own kind (or writes over a damaged one), written only over the version
        // read: either way it never replaces debug information another import wrote meanwhile.
        var entry = row
        entry.file = BucketStore.buildKey(uuid: row.uuid, arch: row.arch, publication: BucketStore.newPublication())
        entry.importedAt = Date()
        entry.lastUsedAt = nil
        entry.status = .ready
        entry.schemaVersion = Int(BuildFile.schemaVersion)
        do {
            try client.uploadObject(
                bucket: location.bucket, key: location.key(entry.file), fromFile: file,
                contentType: "application/vnd.sqlite3", createOnly: false)
        } catch {
            throw BucketStore.error(error)
        }
        let condition: EntryCondition =
            row.kind >= .debugInfo
            ? .none : state.row != nil || state.damaged != nil ? .ifMatch(state.etag) : .createOnly
        if try writeEntry(entry, condition) == .lost {
            // Another import's entry is there, at least as good as a symbol table: this file is no one's.
            _ = try? client.deleteObject(bucket: location.bucket, key: location.key(entry.file))
            return .alreadyPresent
        }
        // The name index entry, for `builds(named:)`; the entry above is what counts, so a
        // failure here costs only the "another build of this name" hint.
        _ = try? client.putObject(
            bucket: location.bucket, key: location.key(BucketStore.nameKey(row.name, uuid: row.uuid, arch: row.arch)),
            bytes: [], contentType: "text/plain")
        cache.adopt(file, as: entry.file)
        // The file of the entry replaced is no one's now. A reader that read that entry a moment ago
        // and finds the file gone reads the entry again (openSource). Should this delete fail, gc
        // removes the object once it is past the grace period. A file of the layout from before
        // publications had names is left to gc too: replicas not yet upgraded may write it again.
        if let replaced = state.row, replaced.file != entry.file,
            BucketStore.publication(
                of: replaced.file, uuid: replaced.uuid, arch: replaced.arch, schemaVersion: replaced.schemaVersion)
                != nil
        {
            _ = try? client.deleteObject(bucket: location.bucket, key: location.key(replaced.file))
            cache.forget(replaced.file)
        }
        if let existing, existing.kind < row.kind { return .superseded }
        return .imported
    }

    enum EntryCondition: Equatable {
        case none
        case createOnly
        /// Over the version with this ETag only; nil (a server that gave none) writes unconditionally.
        case ifMatch(String?)
    }

    enum EntryWrite: Equatable {
        case written
        /// Another publication's entry is there, and the condition keeps it.
        case lost
    }

    /// Writes `entry` under `condition`. A refusal (412, or a 409 that outlasted the retries)
    /// is settled by reading the entry again: when it names this publication's file, an earlier
    /// attempt of this write landed and only its answer was lost, so it is written; when it is
    /// gone (gc removed it meanwhile), it is created; when it is damaged, written over the version
    /// read now; when it names another file, another import won, unless this is debug
    /// information, which writes over anything and tries again.
    func writeEntry(_ entry: StoredBuild, _ condition: EntryCondition) throws -> EntryWrite {
        var condition = condition
        for _ in 0..<4 {
            do {
                try putEntry(entry, condition)
                return .written
            } catch  where error.code == .preconditionFailed || error.code == .noSuchKey || error.httpStatus == 409 {
                let now = try self.entry(uuid: entry.uuid, arch: entry.arch)
                if now.row?.file == entry.file { return .written }
                if condition == .none { continue }
                if let current = now.row, current.kind >= entry.kind { return .lost }
                condition = now.row == nil && now.damaged == nil ? .createOnly : .ifMatch(now.etag)
            } catch {
                throw BucketStore.error(error)
            }
        }
        throw SymbolicateError(
            .conflict,
            "the entry of build \(entry.uuid) (\(entry.arch)) changed under every attempt to write it: import it again")
    }

    private func putEntry(_ entry: StoredBuild, _ condition: EntryCondition) throws(ObjectStorageError) {
        let key = location.key(BucketStore.metadataKey(uuid: entry.uuid, arch: entry.arch))
        let bytes = BuildMetadata(entry).encoded
        switch condition {
        case .ifMatch(let etag?):
            try client.putObject(
                bucket: location.bucket, key: key, bytes: bytes, contentType: "application/json", ifMatch: etag)
        case .none, .ifMatch(nil), .createOnly:
            try client.putObject(
                bucket: location.bucket, key: key, bytes: bytes, contentType: "application/json",
                createOnly: condition == .createOnly)
        }
    }
}
