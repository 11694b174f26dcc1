// Publishing a build into the store: the Import target reads object files into build files
// through `prepareFile`, and `importTable` takes a table built in memory; both end here.
//
// A build goes in in two steps. `prepare` writes the table to a locked temporary file in
// `builds/`, checks it by looking up sample addresses against the table, and fsyncs it; nothing
// is visible yet. `commit` then takes the catalog's write lock, decides again whether the build is
// new, better than what is there (debug info over a symbol table, never the reverse), or already
// present, and renames the file into place before writing the catalog row. Two processes
// importing the same build therefore end with one file and one row, and a process killed at
// any point leaves either nothing or a temporary file that the next import removes.

import BuildFiles
import Foundation
import SymbolicateModel
import SystemSupport

extension SymbolStore {
    /// A build file written and synced under a temporary name, not yet in the catalog.
    package struct PendingBuild {
        package var temporary: TemporaryFile
        package var build: BuildInfo
        package var source: String
        package var byteSize: Int64
        /// The file's checksum, recorded with its catalog row.
        package var checksum: BuildChecksum
        /// Where the build came from (a dyld shared cache's image), recorded with its row.
        package var origin: BuildOrigin? = nil
    }

    /// What `prepareFile`'s writer hands back: the build the finished file holds, and how to
    /// check the file (run while it is checksummed and synced).
    package struct WrittenBuildFile {
        package var build: BuildInfo
        package var check: () throws -> Void
        package init(build: BuildInfo, check: @escaping () throws -> Void) {
            self.build = build
            self.check = check
        }
    }

    /// Imports a symbol table built in memory (its `build` says which UUID and arch it is).
    @discardableResult
    public func importTable(_ table: SymbolTable, source: String) throws -> ImportOutcome {
        try importBuild(table.build, source: source, mode: .new) { try prepare(table, source: source) }
    }

    /// What an import may replace.
    package enum ImportMode {
        /// A build at least as good as the one imported is kept.
        case new
        /// The build file of this row is being written again (it was missing, damaged or of
        /// another schema): the row is replaced only while it is still the catalog's, so a build
        /// that was removed, or imported anew, in the meantime stays as the catalog has it.
        case rebuilding(StoredBuild)
    }

    /// The row a rebuild started from is no longer the catalog's: removed or imported anew.
    package struct RowChanged: Error {}

    /// Imports the build `info` describes unless an entry at least as good is present; `prepare`
    /// (the expensive part: reading the symbols and writing the build file) runs only when the
    /// build is needed.
    package func importBuild(
        _ info: BuildInfo, source: String, mode: ImportMode, prepare: () throws -> PendingBuild
    ) throws -> ImportOutcome {
        try requireWritable("import")
        if case .new = mode, try hasBuild(info) { return .alreadyPresent }
        return try commit(try prepare(), mode: mode)
    }

    /// True when the store (or the store this one stages for) has `info`'s build with symbols at
    /// least as good; it is then marked used, so a gc does not take it.
    package func hasBuild(_ info: BuildInfo) throws -> Bool {
        try requireWritable("import")
        if let presence, try presence(info) { return true }
        if let existing = try catalogReader.withLock({ try $0.build(uuid: info.uuid, arch: info.arch) }),
            isCurrent(existing, comparedWith: info.kind), try confirmPresent(info)
        {
            return true
        }
        return false
    }

    /// Says "already present" only under the catalog's write lock, and marks the build used now:
    /// a `gc` either deleted it before (and the import then writes it again) or runs after and
    /// finds it in use, so no import can report a build present that a gc then deletes.
    func confirmPresent(_ info: BuildInfo) throws -> Bool {
        try catalog.withLock { catalog in
            try catalog.database.writeTransaction {
                guard let row = try catalog.build(uuid: info.uuid, arch: info.arch),
                    isCurrent(row, comparedWith: info.kind)
                else { return false }
                try catalog.touch(uuid: info.uuid, arch: info.arch, at: Date())
                return true
            }
        }
    }

    /// True when `existing` is a usable entry with symbols at least as good as `kind`.
    package func isCurrent(_ existing: StoredBuild, comparedWith kind: SymbolKind) -> Bool {
        existing.kind >= kind && existing.status == .ready && existing.schemaVersion == Int(BuildFile.schemaVersion)
            && FileManager.default.fileExists(atPath: absolutePath(existing.file))
    }

    /// Writes `table` to a temporary build file, checks it and syncs it to disk.
    package func prepare(_ table: SymbolTable, source: String) throws -> PendingBuild {
        var table = table
        table.build.path = source
        return try prepareFile(table.build, source: source) { temporary in
            try BuildFile.write(table, to: temporary.path)
            return WrittenBuildFile(build: table.build) { try BuildFile.checkRanges(of: table, at: temporary.path) }
        }
    }

    /// A temporary build file in `builds/`, written by `write` (which returns the build it holds
    /// and how to check the file), then checked, checksummed and synced; failures name the build
    /// and the store.
    package func prepareFile(_ build: BuildInfo, source: String, write: (TemporaryFile) throws -> WrittenBuildFile)
        throws -> PendingBuild
    {
        guard !build.uuid.bytes.isEmpty else {
            throw SymbolicateError(
                .badInput,
                "the symbol file has no UUID or build id, so no report can name it; link ELF files with"
                    + " -Wl,--build-id", path: source)
        }
        do {
            let temporary = try TemporaryFile(in: buildsDirectory, suffix: ".sqlite")
            let written = try write(temporary)
            // The finished file is only read from here on: the checksum (from the page cache) and
            // the check (lookups in the file) take a core each while the disk takes the file
            // (fsync), instead of one after the other.
            let path = temporary.path
            let checksum = Locked<Result<BuildChecksum, any Error>?>(nil)
            let synced = Locked<Result<Void, any Error>?>(nil)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                let result = Result { try BuildChecksum.of(file: path) }
                checksum.withLock { $0 = result }
            }
            // Only the fsync runs there, and the group is waited for before the file is touched again.
            nonisolated(unsafe) let syncing = temporary
            DispatchQueue.global().async(group: group) {
                let result = Result { try syncing.sync() }
                synced.withLock { $0 = result }
            }
            let checked = Result { try written.check() }
            group.wait()
            try checked.get()
            guard let checksum = checksum.withLock({ $0 }), let sync = synced.withLock({ $0 }) else {
                throw SymbolicateError(.internal, "the build file's checksum or sync did not finish", path: path)
            }
            try sync.get()
            return PendingBuild(
                temporary: temporary, build: written.build, source: source, byteSize: temporary.size,
                checksum: try checksum.get())
        } catch {
            throw importFailure(error, build, source: source)
        }
    }

    /// `error` as one line naming the build and the store (what a full disk, a read-only folder
    /// or a damaged catalog says to the person importing).
    package func importFailure(_ error: any Error, _ build: BuildInfo, source: String) -> SymbolicateError {
        let cause = SymbolicateError.wrapping(error)
        var reason = cause.message
        if cause.isDiskFull {
            reason = "the disk is full (\(reason)); free some space and import again"
        }
        return SymbolicateError(
            cause.code,
            "cannot add build \(build.uuid) (\(build.arch), \(build.name)) to the store \(directory): \(reason)",
            path: source, cause: cause)
    }

    /// Publishes a prepared build: catalog row and rename into place, under the write lock. The
    /// row goes in first, so a catalog that cannot be written leaves the store as it was; if the
    /// commit fails after the rename, the renamed file goes too unless an older row lists it.
    package func commit(_ pending: PendingBuild, mode: ImportMode) throws -> ImportOutcome {
        let b = pending.build
        let file = SymbolStore.fileName(uuid: b.uuid, arch: b.arch)
        var renamedOverNothing = false
        do {
            return try catalog.withLock { catalog in
                try catalog.database.writeTransaction {
                    let existing = try catalog.build(uuid: b.uuid, arch: b.arch)
                    switch mode {
                    case .new:
                        if let existing, isCurrent(existing, comparedWith: b.kind) {
                            pending.temporary.discard()
                            try catalog.touch(uuid: b.uuid, arch: b.arch, at: Date())
                            return .alreadyPresent
                        }
                    case .rebuilding(let row):
                        guard let existing, existing.kind == row.kind, existing.importedAt == row.importedAt else {
                            pending.temporary.discard()
                            throw RowChanged()
                        }
                    }
                    var build = b
                    build.path = pending.source
                    try catalog.put(
                        StoredBuild(
                            build: build, importedAt: Date(), lastUsedAt: nil, byteSize: pending.byteSize,
                            status: .ready, schemaVersion: Int(BuildFile.schemaVersion), file: file,
                            checksum: pending.checksum, origin: pending.origin))
                    try pending.temporary.commit(to: absolutePath(file))
                    renamedOverNothing = existing == nil
                    if let existing, existing.kind < b.kind { return .superseded }
                    return .imported
                } undo: {
                    // A file under this name with no row would be an orphan.
                    if renamedOverNothing { unlink(absolutePath(file)) }
                }
            }
        } catch let error as RowChanged {
            throw error
        } catch {
            throw importFailure(error, b, source: pending.source)
        }
    }
}
