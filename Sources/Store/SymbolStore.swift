// SymbolStore: a folder of indexed builds. `catalog.sqlite` lists them; `builds/` holds one
// immutable SQLite file per build UUID + arch (see BuildFile), written under a temporary name and
// renamed into place when complete; `tmp/` holds archive members spooled during an import.
//
// This file holds the store itself and the read side: finding the best build for a UUID and
// serving it as a SymbolSource, listing, removing, statistics. A build file is published by
// SymbolStore+Publish.swift (the Import target reads object files into one), verify and gc live in
// SymbolStore+Maintenance.swift. One instance is safe to share between threads; several
// processes may share one folder.

import BuildFiles
import Foundation
import SymbolicateModel
import Synchronization
import SystemSupport

public final class SymbolStore: Sendable {
    public let directory: String
    package let buildsDirectory: String
    package let temporaryDirectory: String
    let catalogPath: String
    /// The writer connection: imports, removals, status changes (BEGIN IMMEDIATE, may wait),
    /// opened by the first of them.
    let catalog: CatalogWriter
    /// A second connection for reads, which WAL never blocks: lookups in this process do not
    /// queue behind a write that waits for another process's lock.
    let catalogReader: Locked<Catalog>
    package let archiveLimits: ArchiveImportLimits
    /// Asked before a build is indexed, when set: true means a store this one stages imports for
    /// (a bucket) already has the build at least as good, so it is reported present unread.
    let presence: (@Sendable (BuildInfo) throws -> Bool)?
    /// Writes a build file that cannot be opened again from its source, when set.
    let rebuilder: (any BuildRebuilding)?
    private let openSources = OpenBuildFiles()
    /// Whether a build file is compared with its published checksum when it is opened (see
    /// `checkBuildFilesWhenOpening`).
    private let checksOnOpen = Atomic<Bool>(false)
    /// True when this process cannot write the store (a read-only mount, another user's
    /// folder): reading works, and every writer refuses with `requireWritable`.
    public let isReadOnly: Bool

    /// Opens the store in `directory`, creating the folder and an empty catalog when missing.
    /// `rebuilder` writes a build file that is missing, damaged or of another schema again from
    /// its source file (`SourceRebuilder`, in Import); without one such a build is reported.
    public convenience init(directory: String, rebuilder: (any BuildRebuilding)? = nil) throws {
        try self.init(directory: directory, archiveLimits: ArchiveImportLimits(), rebuilder: rebuilder)
    }

    package init(
        directory: String, archiveLimits: ArchiveImportLimits,
        presence: (@Sendable (BuildInfo) throws -> Bool)? = nil, rebuilder: (any BuildRebuilding)? = nil
    ) throws {
        let directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.directory = directory
        buildsDirectory = directory + "/builds"
        temporaryDirectory = directory + "/tmp"
        catalogPath = directory + "/catalog.sqlite"
        self.archiveLimits = archiveLimits
        self.presence = presence
        self.rebuilder = rebuilder
        isReadOnly = SymbolStore.isReadOnlyStore(directory)
        if isReadOnly {
            guard FileManager.default.fileExists(atPath: catalogPath) else {
                throw SymbolicateError(
                    .notFound, "no symbol store here, and the folder is read-only, so none can be created",
                    path: directory)
            }
            catalogReader = Locked(try Catalog(readingOnly: catalogPath))
            catalog = CatalogWriter { [catalogPath] in try Catalog(readingOnly: catalogPath) }
        } else {
            for folder in [directory, buildsDirectory, temporaryDirectory] {
                try Folders.create(folder, what: "store folder")
            }
            catalogReader = Locked(try Catalog(path: catalogPath))
            catalog = CatalogWriter { [catalogPath] in try Catalog(path: catalogPath) }
        }
    }

    /// A store folder that exists and that this process may not write: on a read-only file
    /// system, or without write permission on the folder or its catalog.
    static func isReadOnlyStore(_ directory: String) -> Bool {
        guard FileManager.default.fileExists(atPath: directory) else { return false }
        if access(directory, W_OK) != 0 { return true }
        var fs = statvfs()
        if statvfs(directory, &fs) == 0, fs.f_flag & UInt(ST_RDONLY) != 0 { return true }
        let catalog = directory + "/catalog.sqlite"
        return FileManager.default.fileExists(atPath: catalog) && access(catalog, W_OK) != 0
    }

    /// Throws, saying so plainly, when the store cannot be written: `operation` ("import",
    /// "remove", ...) names what needed to write.
    public func requireWritable(_ operation: String) throws {
        guard isReadOnly else { return }
        throw SymbolicateError(
            .io,
            "store \(directory) is read-only: \(operation) needs write access (check the mount and the folder's permissions)"
        )
    }

    /// The variables `defaultDirectory` reads.
    public static let environmentVariables = ["SYMBOLICATE_STORE", "XDG_DATA_HOME", "HOME"]

    /// The store folder: `$SYMBOLICATE_STORE`, else `$XDG_DATA_HOME/symbolicate`, else
    /// `~/.local/share/symbolicate`. A `--store DIR` option, when given, comes before all of these.
    public static func defaultDirectory(environment: [String: String]) -> String {
        if let dir = environment["SYMBOLICATE_STORE"], !dir.isEmpty { return dir }
        // The XDG spec says relative values are invalid and must be ignored.
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/symbolicate" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/symbolicate"
    }

    /// The file name of a build inside `builds/`.
    package static func fileName(uuid: BuildID, arch: Arch) -> String {
        "builds/" + buildStem(uuid: uuid, arch: arch) + ".sqlite"
    }

    /// `<UUID>-<arch>`, the arch with anything but letters, digits and `_` as `_`: what names a
    /// build's file here and its objects in a bucket.
    static func buildStem(uuid: BuildID, arch: Arch) -> String {
        let safeArch = String(arch.rawValue.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        return "\(uuid.uuidString)-\(safeArch.isEmpty ? "unknown" : safeArch)"
    }

    package func absolutePath(_ file: String) -> String { directory + "/" + file }

    // MARK: Reading

    /// The best build for `uuid`, of any arch (a UUID names one build of one arch, whatever arch
    /// the report states): of `arch` or a compatible one (arm64 / arm64e) first when given, then
    /// debug information before a symbol table. nil when the store has no such build; throws
    /// when it has one whose file is missing, damaged or of another schema version (naming the
    /// build and saying to re-import it), after trying to rebuild it from its source file.
    public func source(for uuid: BuildID, arch: Arch?) throws -> (any SymbolSource)? {
        let candidates = try catalogReader.withLock { try $0.builds(uuid: uuid) }
        guard let row = SymbolStore.best(candidates, arch: arch) else {
            // Removed by another process (`symbolicate remove`): close the file it kept open.
            _ = openSources.forget(uuid: uuid)
            return nil
        }
        return try openSource(row)
    }

    static func best(_ rows: [StoredBuild], arch: Arch?) -> StoredBuild? {
        rows.max { a, b in
            let aFits = arch.map { a.arch.isCompatible(with: $0) } ?? true
            let bFits = arch.map { b.arch.isCompatible(with: $0) } ?? true
            if aFits != bFits { return !aFits }
            if a.kind != b.kind { return a.kind < b.kind }
            let aExact = a.arch == arch
            let bExact = b.arch == arch
            if aExact != bExact { return !aExact }
            return a.arch > b.arch
        }
    }

    /// Every build of `uuid` (all archs and kinds).
    public func builds(matching uuid: BuildID) throws -> [StoredBuild] {
        try catalogReader.withLock { try $0.builds(uuid: uuid) }.map(withFileStatus)
    }

    /// Builds of an image named `name` whose UUID is not `uuid` (at most `limit`, by UUID): what
    /// a report that needs `uuid` is told the store has instead, never used for lookups.
    public func builds(named name: String, otherThan uuid: BuildID, limit: Int = 16) throws -> [StoredBuild] {
        try catalogReader.withLock { try $0.builds(named: name, otherThan: uuid, limit: limit) }
    }

    /// Every build in the store, by name, UUID and arch.
    public func list() throws -> [StoredBuild] {
        try catalogReader.withLock { try $0.all() }.map(withFileStatus)
    }

    /// The row with its status as the file system sees it now.
    func withFileStatus(_ row: StoredBuild) -> StoredBuild {
        var row = row
        if !FileManager.default.fileExists(atPath: absolutePath(row.file)) {
            row.status = .missing
        } else if row.schemaVersion != Int(BuildFile.schemaVersion) {
            row.status = .outdated
        }
        return row
    }

    /// Removes every build (all archs) of each UUID; returns what was removed.
    public func remove(_ uuids: [BuildID]) throws -> [StoredBuild] {
        try requireWritable("remove")
        return try deleteBuilds { catalog in
            (try uuids.flatMap { try catalog.builds(uuid: $0) }, [])
        }
    }

    /// Deletes the rows `choose` picks, their build files and the `orphans` it names, as one
    /// step under the catalog's write lock (so a concurrent import of the same build cannot have
    /// its fresh file deleted). Inside the transaction each file is renamed to a temporary name:
    /// a process killed after the commit leaves a temporary that the next import, verify or gc
    /// removes, not a build file without a row, which verify would list again; a transaction
    /// that fails puts the files back. After the commit the temporaries are unlinked and the
    /// folder synced, so that a removal survives a power failure too.
    func deleteBuilds(
        _ choose: (Catalog) throws -> (rows: [StoredBuild], orphans: [String])
    ) throws -> [StoredBuild] {
        var moved: [(file: String, temporary: String)] = []
        let removed = try catalog.withLock { catalog in
            let removed = try catalog.database.writeTransaction {
                moved = []
                let (rows, orphans) = try choose(catalog)
                for row in rows { try catalog.delete(uuid: row.uuid, arch: row.arch) }
                for file in rows.map(\.file) + orphans {
                    let path = absolutePath(file)
                    let temporary =
                        PathParts.parent(path) + "/" + TemporaryFile.prefix + "removed-" + PathParts.name(path)
                    if rename(path, temporary) == 0 { moved.append((path, temporary)) }
                }
                return rows
            } undo: {
                for (file, temporary) in moved { rename(temporary, file) }
                moved = []
            }
            for (_, temporary) in moved { unlink(temporary) }
            if let first = moved.first { TemporaryFile.syncDirectory(of: first.temporary) }
            return removed
        }
        forget(removed)
        return removed
    }

    /// Drops removed builds from the cache of open build files.
    func forget(_ rows: [StoredBuild]) {
        openSources.forget(rows)
    }

    public var statistics: StoreStatistics {
        get throws { try catalogReader.withLock { try $0.statistics() } }
    }

    // MARK: Opening build files

    /// Serves `row` from the cache of open build files, opening (or rebuilding) it when needed;
    /// nil when the build was removed since the row was read.
    /// From now on, a build file is read whole and compared with the checksum recorded when it was
    /// published before it first answers (a damaged file is then rebuilt from its source, or its
    /// frames fail naming the damage). A server does this: it opens each build once and keeps it
    /// open; a command symbolicating one report leaves it to `verify`, as it costs a read of the file.
    public func checkBuildFilesWhenOpening() { checksOnOpen.store(true, ordering: .relaxed) }

    func openSource(_ row: StoredBuild) throws -> (any SymbolSource)? {
        if let source = openSources.source(for: row) {
            noteUse(row)
            return source
        }
        let source: BuildFileSource
        do {
            source = try BuildFileSource(path: absolutePath(row.file))
            guard source.build.uuid == row.uuid, source.build.arch == row.arch else {
                throw SymbolicateError(
                    .io, "the build file holds \(source.build.uuid) \(source.build.arch)", path: row.file)
            }
            if checksOnOpen.load(ordering: .relaxed) {
                try BuildChecksum.check(absolutePath(row.file), expected: row.checksum, what: "the build file")
            }
        } catch {
            return try rebuild(row, after: error)
        }
        noteUse(row)
        return openSources.keep(source, for: row)
    }

    /// Records that `row` was used, at most once an hour per build, and never waits for a lock.
    private func noteUse(_ row: StoredBuild) {
        guard !isReadOnly else { return }
        let now = Date()
        if let last = row.lastUsedAt, now.timeIntervalSince(last) < 3600 { return }
        _ = try? catalog.withLock { catalog in
            catalog.database.setBusyTimeout(milliseconds: 0)
            try? catalog.touch(uuid: row.uuid, arch: row.arch, at: now)
            catalog.database.setBusyTimeout(milliseconds: Catalog.busyTimeoutMilliseconds)
        }
    }
}
