// Importing into the store: one slice (a SymbolTable for one UUID + arch) at a time, and
// `importPaths`, which walks files, folders and bundles and hands archives to
// SymbolStore+Archive.swift.
//
// A build goes in in two steps. `prepare` writes the table to a locked temporary file in
// `builds/`, checks it by looking up sample addresses against the table, and fsyncs it; nothing
// is visible yet. `commit` then takes the catalog's write lock, decides again whether the build is
// new, better than what is there (debug info over a symbol table, never the reverse), or already
// present, and renames the file into place before writing the catalog row. Two processes
// importing the same build therefore end with one file and one row, and a process killed at
// any point leaves either nothing or a temporary file that the next import removes.

import Archives
import BuildFiles
import Foundation
import ObjectFiles
import SymbolicateModel
import SystemSupport

extension SymbolStore {
    /// A build file written and synced under a temporary name, not yet in the catalog.
    struct PendingBuild {
        var temporary: TemporaryFile
        var build: BuildInfo
        var source: String
        var byteSize: Int64
        /// The file's SHA-256, recorded with its catalog row.
        var sha256: String
        /// Where the build came from (a dyld shared cache's image), recorded with its row.
        var origin: BuildOrigin? = nil
    }

    /// Imports one arch slice of an object file; `source` is recorded as where it came from.
    /// `progress` hears how much of the slice's DWARF has been read (done, total bytes).
    @discardableResult
    public func importSlice(_ slice: ObjectSlice, source: String, progress: ((Int, Int) -> Void)? = nil) throws
        -> ImportOutcome
    {
        try importBuild(slice.info, source: source, mode: .new) {
            try prepare(slice, source: source, progress: progress)
        }
    }

    /// Imports a symbol table built in memory (its `build` says which UUID and arch it is).
    @discardableResult
    public func importTable(_ table: SymbolTable, source: String) throws -> ImportOutcome {
        try importBuild(table.build, source: source, mode: .new) { try prepare(table, source: source) }
    }

    /// What an import may replace.
    enum ImportMode {
        /// A build at least as good as the one imported is kept.
        case new
        /// The build file of this row is being written again (it was missing, damaged or of
        /// another schema): the row is replaced only while it is still the catalog's, so a build
        /// that was removed, or imported anew, in the meantime stays as the catalog has it.
        case rebuilding(StoredBuild)
    }

    /// The row a rebuild started from is no longer the catalog's: removed or imported anew.
    struct RowChanged: Error {}

    /// Imports the build `info` describes unless an entry at least as good is present; `prepare`
    /// (the expensive part: reading the symbols and writing the build file) runs only when the
    /// build is needed.
    func importBuild(
        _ info: BuildInfo, source: String, mode: ImportMode, prepare: () throws -> PendingBuild
    ) throws -> ImportOutcome {
        try requireWritable("import")
        if case .new = mode, try hasBuild(info) { return .alreadyPresent }
        return try commit(try prepare(), mode: mode)
    }

    /// True when the store (or the store this one stages for) has `info`'s build with symbols at
    /// least as good; it is then marked used, so a gc does not take it.
    func hasBuild(_ info: BuildInfo) throws -> Bool {
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
    func isCurrent(_ existing: StoredBuild, comparedWith kind: SymbolKind) -> Bool {
        existing.kind >= kind && existing.status == .ready && existing.schemaVersion == Int(BuildFile.schemaVersion)
            && FileManager.default.fileExists(atPath: absolutePath(existing.file))
    }

    /// Writes `table` to a temporary build file, checks it and syncs it to disk.
    func prepare(_ table: SymbolTable, source: String) throws -> PendingBuild {
        var table = table
        table.build.path = source
        return try prepareFile(table.build, source: source) { path in
            try BuildFile.write(table, to: path)
            try BuildFile.checkRanges(of: table, at: path)
            return table.build
        }
    }

    /// Reads `slice`'s symbols straight into a temporary build file (its locations and ranges
    /// go to the file a batch of units at a time, so memory never holds the whole table), checks
    /// it and syncs it to disk. `name` replaces the build's name (an archive member's).
    func prepare(
        _ slice: ObjectSlice, source: String, name: String? = nil, progress: ((Int, Int) -> Void)? = nil
    ) throws -> PendingBuild {
        var build = slice.info
        build.path = source
        if let name { build.name = name }
        return try prepareFile(build, source: source) { path in
            let writer = try BuildFileWriter(path: path)
            writer.onProgress = progress
            var head = try slice.loadSymbolTable(into: writer)
            head.build = build
            try writer.finish(head)
            try writer.check()
            return build
        }
    }

    /// A temporary build file in `builds/`, written by `write` (which returns the build it
    /// holds), then synced; failures name the build and the store.
    private func prepareFile(_ build: BuildInfo, source: String, write: (String) throws -> BuildInfo) throws
        -> PendingBuild
    {
        guard !build.uuid.bytes.isEmpty else {
            throw SymbolicateError(
                .badInput,
                "the symbol file has no UUID or build id, so no report can name it; link ELF files with"
                    + " -Wl,--build-id", path: source)
        }
        do {
            let temporary = try TemporaryFile(in: buildsDirectory, suffix: ".sqlite")
            let written = try write(temporary.path)
            try temporary.sync()
            return PendingBuild(
                temporary: temporary, build: written, source: source, byteSize: temporary.size,
                sha256: try BuildChecksum.of(file: temporary.path))
        } catch {
            throw importFailure(error, build, source: source)
        }
    }

    /// `error` as one line naming the build and the store (what a full disk, a read-only folder
    /// or a damaged catalog says to the person importing).
    func importFailure(_ error: any Error, _ build: BuildInfo, source: String) -> SymbolicateError {
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
    func commit(_ pending: PendingBuild, mode: ImportMode) throws -> ImportOutcome {
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
                            sha256: pending.sha256, origin: pending.origin))
                    try pending.temporary.commit(to: absolutePath(file))
                    renamedOverNothing = existing == nil
                    if let existing, existing.kind < b.kind { return .superseded }
                    return .imported
                } undo: {
                    // A file under this name with no row would be an orphan.
                    if renamedOverNothing { unlink(absolutePath(file)) }
                }
            }
        } catch {
            throw importFailure(error, b, source: pending.source)
        }
    }

    // MARK: Paths

    /// Imports files, folders, bundles (.dSYM, .app, .xcarchive, DeviceSupport `Symbols`
    /// folders) and .zip / .tar / .tar.gz archives of these. Object files and archives are
    /// recognized by their content, not their names; every arch slice is imported separately.
    /// Never throws: an input (or an object file or archive member in it) that fails is listed
    /// in the summary's failures with the reason, and the store is left as it was for it.
    public func importPaths(_ paths: [String], progress: (@Sendable (ImportProgress) -> Void)?) -> ImportSummary {
        var run = ImportRun(summary: ImportSummary(), progress: progress, inputsTotal: paths.count)
        do {
            try requireWritable("import")
        } catch {
            for input in paths { run.fail(input, error) }
            return run.summary
        }
        _ = TemporaryFile.removeStale(in: buildsDirectory)
        _ = TemporaryFile.removeStale(in: temporaryDirectory)
        for (index, input) in paths.enumerated() {
            run.input = input
            run.inputsDone = index
            let before = run.handled
            let failuresBefore = run.summary.failures.count
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) {
                run.fail(input, SymbolicateError.noSuchFile(input))
            } else if isDirectory.boolValue {
                let (files, unreadable) = SymbolStore.regularFiles(under: input)
                for error in unreadable { run.fail(error.path ?? input, error) }
                for file in SymbolStore.debugInfoFirst(files) {
                    importFile(file, explicit: false, run: &run)
                }
            } else if !SymbolStore.isRegularFile(input) {
                // Opening a pipe would wait for a writer; a device is no symbol file.
                run.fail(
                    input,
                    SymbolicateError(
                        .badInput, "not a regular file (a device, pipe or socket): nothing to import from it",
                        path: input))
            } else {
                importFile(input, explicit: true, run: &run)
            }
            if run.handled == before, run.summary.failures.count == failuresBefore {
                run.summary.inputsWithoutObjects.append(input)
                run.fail(input, SymbolicateError(.notFound, "no Mach-O or ELF file or archive found", path: input))
            }
        }
        run.inputsDone = paths.count
        run.report(item: "")
        return run.summary
    }

    /// One plain file: an archive, an object file (all its slices), or something to skip.
    func importFile(_ path: String, explicit: Bool, run: inout ImportRun) {
        let prefix: [UInt8]
        do {
            prefix = try SymbolStore.readPrefix(path)
        } catch {
            run.fail(path, error)
            return
        }
        if ArchiveReader.looksLikeArchive(prefix: prefix) {
            importArchive(path, display: path, depth: 0, run: &run)
        } else if DyldCache.looksLikeCache(prefix: prefix) {
            importDyldCache(path, prefix: prefix, explicit: explicit, run: &run)
        } else if ObjectFile.looksLikeObjectFile(prefix: prefix) {
            do {
                for slice in try ObjectFile.slices(atPath: path) {
                    let report = run.sliceReporter(item: path)
                    run.record(slice.info, source: path) { try importSlice(slice, source: path, progress: report) }
                }
            } catch {
                run.fail(path, error)
            }
            run.report(item: path)
        } else if explicit {
            run.fail(
                path, SymbolicateError(.unsupported, "not a Mach-O or ELF file, nor a .zip or .tar archive", path: path)
            )
        }
    }

    /// The files of a folder with those holding debug information first (dSYMs before the
    /// binaries next to them), so a binary's symbol table is never written only to be replaced.
    /// Only headers are read here; files are otherwise kept in their order.
    static func debugInfoFirst(_ files: [String]) -> [String] {
        let ranked = files.map { file -> (String, Int) in
            guard let prefix = try? readPrefix(file), ObjectFile.looksLikeObjectFile(prefix: prefix),
                let slices = try? ObjectFile.slices(atPath: file)
            else { return (file, 1) }
            return (file, slices.contains { $0.info.kind == .debugInfo } ? 0 : 1)
        }
        return ranked.enumerated().sorted { ($0.element.1, $0.offset) < ($1.element.1, $1.offset) }.map(\.element.0)
    }

    static func readPrefix(_ path: String, count: Int = 4096) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let code = access(path, R_OK) == 0 ? EIO : errno
            throw SymbolicateError.system("cannot open the file for reading", path: path, errno: Errno(rawValue: code))
        }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw SymbolicateError(.io, "cannot read: \(Folders.reason(error, at: path))", path: path)
        }
    }

    /// Regular files under `folder` (FolderWalk's order and links), each real file once, under
    /// the first name the walk reaches it by; and why each name or folder that might hold symbols
    /// could not be read: a name that is not UTF-8 (shown repaired), one that cannot be looked at,
    /// a folder that cannot be listed. Dangling links and devices are not symbol files.
    static func regularFiles(under folder: String) -> (files: [String], unreadable: [SymbolicateError]) {
        var seen = Set<FolderWalk.FileKey>()
        var files: [String] = []
        var unreadable: [SymbolicateError] = []
        FolderWalk.walk(
            folder, options: .followingLinks,
            unlistable: { path, error in
                unreadable.append(
                    SymbolicateError(.io, "cannot list the folder: \(Folders.reason(error, at: path))", path: path))
            },
            passedOver: { path, _, why in
                switch why {
                case .nameNotUTF8:
                    unreadable.append(
                        SymbolicateError(
                            .badInput,
                            "the file's name is not valid UTF-8 (shown repaired), so it cannot be opened:"
                                + " rename it to import it", path: path))
                case .inaccessible(let error):
                    unreadable.append(
                        SymbolicateError.system("cannot be looked at", path: path, errno: Errno(rawValue: error)))
                case .danglingLink, .notARegularFile:
                    break
                }
            },
            visit: { entry in
                if entry.kind == .file, seen.insert(FolderWalk.FileKey(entry.info)).inserted {
                    files.append(entry.path)
                }
                return .proceed
            })
        return (files, unreadable)
    }
}

/// The running state of one `importPaths` call: the summary so far and the progress counters.
struct ImportRun {
    var summary: ImportSummary
    var progress: (@Sendable (ImportProgress) -> Void)?
    var inputsTotal: Int
    var input = ""
    var inputsDone = 0
    /// Slices handled (imported, present or failed).
    var handled = 0
    var bytesDone: Int64 = 0
    var bytesTotal: Int64 = 0

    mutating func fail(_ path: String, _ error: any Error) {
        let e = SymbolicateError.wrapping(error, path: path)
        summary.failures.append(.init(path: path, error: e))
    }

    /// Runs one slice's import and files its outcome.
    mutating func record(_ info: BuildInfo, source: String, _ body: () throws -> ImportOutcome) {
        handled += 1
        do {
            file(try body(), info, source: source)
        } catch {
            fail("\(source) (\(info.arch))", error)
        }
    }

    mutating func file(_ outcome: ImportOutcome, _ info: BuildInfo, source: String) {
        let item = ImportSummary.Item(
            uuid: info.uuid, arch: info.arch, name: info.name, kind: info.kind, source: source, outcome: outcome)
        if outcome == .alreadyPresent { summary.alreadyPresent.append(item) } else { summary.imported.append(item) }
    }

    /// The counters as they stand, with `item` just handled.
    func state(item: String) -> ImportProgress {
        ImportProgress(
            input: input, item: item, inputsDone: inputsDone, inputsTotal: inputsTotal, slicesDone: handled,
            bytesDone: bytesDone, bytesTotal: bytesTotal)
    }

    func report(item: String) {
        progress?(state(item: item))
    }

    /// A report of the progress inside the slice about to be imported from `item` (how much of
    /// its DWARF has been read), with the counters as they stand now.
    func sliceReporter(item: String) -> ((Int, Int) -> Void)? {
        guard let progress else { return nil }
        var state = state(item: item)
        return { done, total in
            state.sliceBytesDone = Int64(done)
            state.sliceBytesTotal = Int64(total)
            progress(state)
        }
    }
}
