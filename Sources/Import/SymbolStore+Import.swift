// Importing into the store: one slice of an object file at a time, read straight into a build
// file that SymbolStore+Publish.swift (in Store) then publishes, and `importPaths`, which walks
// files, folders and bundles and hands archives to SymbolStore+Archive.swift and dyld shared
// caches to SymbolStore+DyldCache.swift.

import Archives
import BuildFiles
import Foundation
import ObjectFiles
import Store
import SymbolicateModel
import SystemSupport

extension SymbolStoring {
    /// Imports files, folders, bundles (.dSYM, .app, .xcarchive, DeviceSupport `Symbols`
    /// folders) and .zip / .tar / .tar.gz archives of these. Object files and archives are
    /// recognized by their content, not their names; every arch slice is imported separately.
    /// Never throws: an input (or an object file or archive member in it) that fails is listed
    /// in the summary's failures with the reason, and the store is left as it was for it.
    public func importPaths(_ paths: [String], progress: (@Sendable (ImportProgress) -> Void)?) -> ImportSummary {
        do {
            return try importing { $0.indexPaths(paths, progress: progress) }
        } catch {
            var summary = ImportSummary()
            let e = SymbolicateError.wrapping(error)
            for input in paths { summary.failures.append(.init(path: input, error: e)) }
            return summary
        }
    }
}

/// Writes a build file again from the object file it was imported from: what a store opened by
/// `StoreLocation.open` does for a build file that is missing, damaged or of another schema.
public struct SourceRebuilder: BuildRebuilding {
    public init() {}

    public func rebuild(_ row: StoredBuild, in store: SymbolStore) throws -> Bool {
        guard
            let slice = try ObjectFile.slices(atPath: row.sourcePath).first(where: {
                $0.info.uuid == row.uuid && $0.info.arch == row.arch
            })
        else { return false }
        do {
            _ = try store.importBuild(slice.info, source: row.sourcePath, mode: .rebuilding(row)) {
                try store.prepare(slice, source: row.sourcePath)
            }
        } catch is SymbolStore.RowChanged {
            // Removed, or imported anew, since the row was read: the catalog decides.
        }
        return true
    }
}

extension StoreLocation {
    /// Opens the store `location` names: a bucket store (credentials and endpoint from the AWS
    /// variables, build files cached in `cacheDirectory`, at most `cacheBytes`) or a folder store
    /// that rebuilds a build file it cannot open from its source (SourceRebuilder).
    public static func open(
        _ location: String, cacheDirectory: String, cacheBytes: Int64 = BuildCache.defaultCapacity
    ) throws -> any SymbolStoring {
        guard isBucket(location) else { return try SymbolStore(directory: location, rebuilder: SourceRebuilder()) }
        return try BucketStore(location: location, cacheDirectory: cacheDirectory, cacheBytes: cacheBytes)
    }
}

extension SymbolStore {
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

    /// Reads `slice`'s symbols straight into a temporary build file (its locations and ranges
    /// go to the file a batch of units at a time, so memory never holds the whole table), checks
    /// it and syncs it to disk. `name` replaces the build's name (an archive member's).
    func prepare(
        _ slice: ObjectSlice, source: String, name: String? = nil, progress: ((Int, Int) -> Void)? = nil
    ) throws -> PendingBuild {
        var build = slice.info
        build.path = source
        if let name { build.name = name }
        return try prepareFile(build, source: source) { temporary in
            let writer = try BuildFileWriter(path: temporary.path)
            writer.onProgress = progress
            writer.onWriteback = { temporary.startWriteback() }
            var head = try slice.loadSymbolTable(into: writer)
            head.build = build
            try writer.finish(head)
            return SymbolStore.WrittenBuildFile(build: build) { try writer.check() }
        }
    }

    // MARK: Paths

    /// `importPaths` into this folder store itself (for a bucket, its staging store).
    func indexPaths(_ paths: [String], progress: (@Sendable (ImportProgress) -> Void)?) -> ImportSummary {
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
