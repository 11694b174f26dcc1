// Keeping a bucket store healthy: `remove`, `verify` (every entry readable and naming a build
// file that opens and matches it; no build file without an entry), `gc`, and `sync`, which copies
// a folder store's builds into a bucket.
//
// A bucket has no lock, so `gc` cannot do what a folder store's gc does under the catalog's write
// lock. It removes only builds neither imported nor used for longer than a grace period (a day
// by default, however small `--older-than`), and an import counts a build as present only while
// its last import or use is more than an hour inside that period (BucketStore+Import.swift):
// older, it indexes and publishes the build again. So a build that gc finds old enough has not
// been reported present by any import for at least an hour, and gc acts on one listing for less
// than that hour (it lists again when a pass takes longer), reading each candidate's entry and
// use again just before removing it. An import may still publish the build again between that
// read and the removal, so the removal deletes the entry only while it is the version gc read
// (a conditional delete), and each publication has a build file of its own: gc's later deletes
// never reach a newer publication's file, and the use marker and name index entry, which all
// publications of a build share, are deleted only while the build has no entry. A removal deletes
// the entry first, then the use marker and the name index entry, then the file: a reader that
// sees an entry finds its file, or is told plainly that it is gone.
// What an interrupted import or removal leaves (objects under `builds/` that no entry names, the
// loser of two publications at once, use markers and name index entries of builds without an
// entry) goes with the first gc after it is older than the grace period, which no import in flight is.

import BuildFiles
import Foundation
import ObjectStorage
import SymbolicateModel
import SystemSupport

extension BucketStore {
    public func remove(_ uuids: [BuildID]) throws -> [StoredBuild] {
        var removed: [StoredBuild] = []
        for uuid in uuids {
            for row in try rows(namePrefix: uuid.uuidString + "-") {
                try delete(row)
                removed.append(row)
            }
        }
        return removed
    }

    /// Deletes a build's entry, then its use marker, name index entry and file. With `etag`,
    /// only while the entry is still that version: false when it has changed or gone since (an
    /// import published the build again, or another removal was first), and nothing is deleted.
    @discardableResult
    func delete(_ row: StoredBuild, ifEntryIs etag: String? = nil) throws -> Bool {
        guard try deleteEntry(row, ifEntryIs: etag) else { return false }
        try deleteObjects(of: row)
        return true
    }

    /// The first step of `delete`: the entry, conditionally when `etag` is given.
    func deleteEntry(_ row: StoredBuild, ifEntryIs etag: String?) throws -> Bool {
        let key = location.key(BucketStore.metadataKey(uuid: row.uuid, arch: row.arch))
        do {
            if let etag {
                do {
                    try client.deleteObject(bucket: location.bucket, key: key, ifMatch: etag)
                } catch  where error.httpStatus == 501 {
                    // A server without conditional deletes (NotImplemented): delete as before them.
                    try client.deleteObject(bucket: location.bucket, key: key)
                }
            } else {
                try client.deleteObject(bucket: location.bucket, key: key)
            }
        } catch  where error.code == .noSuchKey {
            // Gone: another removal was first, or an earlier attempt of this delete landed and its
            // answer was lost. Either way the entry of `row` is gone, and what it leaves is this one's to remove.
            return true
        } catch  where error.code == .preconditionFailed || error.httpStatus == 409 {
            return false
        } catch {
            throw BucketStore.error(error)
        }
        return true
    }

    /// The rest of `delete`, once the entry is gone: the use marker and the name index entry,
    /// which every publication of the build shares (so they stay when an import has written a new
    /// entry meanwhile; should one come between the check and the deletes, gc removes what is left
    /// of a build without an entry, and an import writes them again), and `row`'s own file.
    func deleteObjects(of row: StoredBuild) throws {
        let republished = try storage { () throws(ObjectStorageError) in
            try client.headObject(
                bucket: location.bucket, key: location.key(BucketStore.metadataKey(uuid: row.uuid, arch: row.arch)))
        }
        let shared = [
            BucketStore.useKey(uuid: row.uuid, arch: row.arch),
            BucketStore.nameKey(row.name, uuid: row.uuid, arch: row.arch),
        ]
        for key in (republished == nil ? shared : []) + [row.file] {
            try storage { () throws(ObjectStorageError) in
                try client.deleteObject(bucket: location.bucket, key: location.key(key))
            }
        }
        forget([row])
    }

    /// Objects under `builds/` that no entry names, the newest of them last modified more than
    /// `age` seconds ago. A damaged entry's build keeps every object of its UUID and arch.
    func unnamedObjects(olderThan age: TimeInterval) throws -> [String] {
        // Files first, then entries: a file listed here whose entry was written before the
        // entries are listed is seen as named.
        let files = try storage { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: location.key("builds/"))
        }
        var named = Set<String>()
        var damagedStems: [String] = []
        for entry in try entries() {
            switch entry.row {
            case .success(let row): named.insert(row.file)
            case .failure:
                // `catalog/<UUID>-<arch>.json`: its build's objects are `builds/v*/<UUID>-<arch>.*`.
                if let relative = location.relativeKey(entry.key), let name = relative.utf8.split(separator: 0x2F).last
                {
                    damagedStems.append("/" + String(decoding: name.prefix(while: { $0 != 0x2E }), as: UTF8.self) + ".")
                }
            }
        }
        let cutoff = Date().addingTimeInterval(-age)
        return files.objects.compactMap { object -> String? in
            guard let relative = location.relativeKey(object.key), !named.contains(relative),
                !damagedStems.contains(where: { relative.contains($0) }),
                let modified = object.lastModified.flatMap(BucketStore.parseDate), modified < cutoff
            else { return nil }
            return relative
        }.sorted()
    }

    public func verify(deep: Bool = false) throws -> VerifyReport {
        var report = VerifyReport()
        report.catalogSchemaVersion = BuildMetadata.format
        for name in TemporaryFile.removeStale(in: cache.temporaryDirectory) {
            report.repaired.append(
                .init(kind: .staleTemporary, file: "cache tmp/" + name, message: "left by an import that died; removed")
            )
        }
        for name in SymbolStore.removeStaleTransfers(inStore: cacheRoot) {
            report.repaired.append(
                .init(
                    kind: .staleTemporary, file: "cache tmp/" + name,
                    message: "left by an import or server that was stopped; removed"))
        }
        let files = try storage { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: location.key("builds/"))
        }
        var sizes: [String: Int64] = [:]
        for object in files.objects {
            if let relative = location.relativeKey(object.key) { sizes[relative] = object.size }
        }
        var listed = Set<String>()
        for entry in try entries() {
            report.buildsChecked += 1
            let entryKey = location.relativeKey(entry.key) ?? entry.key
            switch entry.row {
            case .failure(let error):
                report.problems.append(.init(kind: .damaged, file: entryKey, message: error.message))
            case .success(let row):
                listed.insert(row.file)
                if let problem = check(row, size: sizes[row.file], deep: deep) { report.problems.append(problem) }
            }
        }
        for (file, _) in sizes.sorted(by: { $0.key < $1.key }) where !listed.contains(file) {
            report.problems.append(
                .init(
                    kind: .orphanFile, file: file,
                    message:
                        "no catalog entry lists this object (an interrupted import or removal); gc removes it once it is"
                        + " older than the grace period"))
        }
        return report
    }

    private func check(_ row: StoredBuild, size: Int64?, deep: Bool) -> VerifyReport.Problem? {
        func problem(_ kind: VerifyReport.Problem.Kind, _ message: String) -> VerifyReport.Problem {
            .init(kind: kind, uuid: row.uuid, arch: row.arch, file: row.file, message: "\(row.name): \(message)")
        }
        let reimport = "re-import it: symbolicate import --store \(location) \(row.sourcePath)"
        guard row.schemaVersion == Int(BuildFile.schemaVersion) else {
            return problem(
                .outdated,
                "schema version \(row.schemaVersion), this symbolicate reads \(BuildFile.schemaVersion); \(reimport)")
        }
        guard let size else {
            return problem(.missingFile, "the object \(location)/\(row.file) is missing; \(reimport)")
        }
        if row.byteSize > 0, size != row.byteSize {
            return problem(.damaged, "the object has \(size) bytes and its entry says \(row.byteSize); \(reimport)")
        }
        do {
            var checked = false
            guard let path = try fetch(row, checked: &checked) else {
                return problem(.missingFile, "the object \(location)/\(row.file) is missing; \(reimport)")
            }
            let info = try BuildFileSource.inspect(path: path, integrity: deep)
            guard info.uuid == row.uuid, info.arch == row.arch else {
                cache.forget(row.file)
                return problem(.damaged, "the object holds \(info.uuid) \(info.arch); \(reimport)")
            }
            // A cached copy is read whole (it may have changed since it was fetched); a fresh fetch
            // was compared with the checksum as it came in.
            if !checked { try BuildChecksum.check(path, expected: row.checksum, what: "the cached copy of the object") }
        } catch let mismatch as BuildFile.VersionMismatch {
            cache.forget(row.file)
            return problem(.outdated, "the object has schema version \(mismatch.found); \(reimport)")
        } catch {
            cache.forget(row.file)
            let message = (error as? SymbolicateError)?.message ?? "\(error)"
            return problem(.damaged, "\(location)/\(row.file): \(message); \(reimport)")
        }
        return nil
    }

    public func garbageCollect(olderThanDays days: Int, dryRun: Bool) throws -> [StoredBuild] {
        let age = max(Double(max(0, days)) * 86_400, gracePeriod)
        func isOld(_ row: StoredBuild, now: Date) -> Bool {
            now.timeIntervalSince(max(row.importedAt, row.lastUsedAt ?? row.importedAt)) > age
        }
        if dryRun { return try list().filter { isOld($0, now: Date()) } }
        _ = TemporaryFile.removeStale(in: cache.temporaryDirectory)
        _ = SymbolStore.removeStaleTransfers(inStore: cacheRoot)
        var removed: [StoredBuild] = []
        var done = Set<String>()
        listing: while true {
            let listedAt = Date()
            let candidates = try list().filter { isOld($0, now: listedAt) && !done.contains($0.file) }
            for candidate in candidates {
                // One listing is acted on for less than the safety margin (see the top of this file).
                if Date().timeIntervalSince(listedAt) > BucketStore.safetyMargin / 2 { continue listing }
                done.insert(candidate.file)
                let read = try entry(uuid: candidate.uuid, arch: candidate.arch)
                guard let current = read.row, isOld(current, now: Date()) else { continue }
                if try delete(current, ifEntryIs: read.etag) { removed.append(current) }
            }
            break
        }
        for file in try unnamedObjects(olderThan: gracePeriod) {
            try storage { () throws(ObjectStorageError) in
                try client.deleteObject(bucket: location.bucket, key: location.key(file))
            }
            cache.forget(file)
        }
        for key in try unownedMarkers(olderThan: gracePeriod) {
            try storage { () throws(ObjectStorageError) in
                try client.deleteObject(bucket: location.bucket, key: location.key(key))
            }
        }
        return removed
    }

    /// Use markers (`catalog/<UUID>-<arch>.used`) and name index entries (`names/<name>/<UUID>-<arch>`)
    /// of builds that have no entry, last modified more than `age` seconds ago.
    func unownedMarkers(olderThan age: TimeInterval) throws -> [String] {
        let markers = try storage { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: location.key("names/")).objects
                + client.listAllObjects(bucket: location.bucket, prefix: location.key("catalog/")).objects
        }
        // Listed after the markers: an entry written before this listing keeps its markers.
        let entries = try storage { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: location.key("catalog/")).objects
        }
        let suffix = Array(".json".utf8)
        let owners = Set(
            entries.compactMap { object -> [UInt8]? in
                let bytes = Array(object.key.utf8)
                guard bytes.count > suffix.count, bytes.suffix(suffix.count).elementsEqual(suffix) else { return nil }
                return Array(
                    bytes.dropLast(suffix.count).split(separator: 0x2F, omittingEmptySubsequences: false).last ?? [])
            })
        let cutoff = Date().addingTimeInterval(-age)
        return markers.compactMap { object -> String? in
            guard let relative = location.relativeKey(object.key),
                let modified = object.lastModified.flatMap(BucketStore.parseDate), modified < cutoff
            else { return nil }
            let bytes = Array(relative.utf8)
            let last = Array(bytes.split(separator: 0x2F, omittingEmptySubsequences: false).last ?? [])
            let stem: [UInt8]
            if bytes.starts(with: "names/".utf8) {
                stem = last
            } else if bytes.suffix(5).elementsEqual(".used".utf8) {
                stem = Array(last.dropLast(5))
            } else {
                return nil
            }
            return owners.contains(stem) ? nil : relative
        }.sorted()
    }

    // MARK: Sync

    /// What `sync` did with one build of the folder store.
    public enum SyncOutcome: String, Sendable {
        case copied
        /// The bucket had it (as good or better) already: a resumed sync skips it.
        case skipped
        case failed
    }

    /// Copies every build of `folder` into this bucket, skipping those the bucket already has as
    /// good or better, so an interrupted sync is resumed by running it again. `progress` hears
    /// of each build (index from 1, count, build, outcome, error).
    public func sync(
        from folder: SymbolStore,
        progress: (Int, Int, StoredBuild, SyncOutcome, SymbolicateError?) -> Void
    ) throws -> (copied: Int, skipped: Int, failed: Int) {
        let builds = try folder.list()
        var totals = (copied: 0, skipped: 0, failed: 0)
        for (index, build) in builds.enumerated() {
            do {
                guard build.status == .ready else {
                    throw SymbolicateError(
                        .io,
                        "the folder store's build file is \(build.status.rawValue); run `symbolicate verify --store \(folder.directory)`"
                    )
                }
                let info = try BuildFileSource.inspect(path: folder.absolutePath(build.file), integrity: false)
                guard info.uuid == build.uuid, info.arch == build.arch else {
                    throw SymbolicateError(.io, "the build file holds \(info.uuid) \(info.arch)", path: build.file)
                }
                let outcome = try publish(build, file: folder.absolutePath(build.file))
                if outcome == .alreadyPresent {
                    totals.skipped += 1
                    progress(index + 1, builds.count, build, .skipped, nil)
                } else {
                    totals.copied += 1
                    progress(index + 1, builds.count, build, .copied, nil)
                }
            } catch {
                totals.failed += 1
                progress(
                    index + 1, builds.count, build, .failed,
                    SymbolicateError.wrapping(error))
            }
        }
        return totals
    }
}
