// OutputSink: where workers put finished reports. Into a folder, each output is written to a
// hidden temporary file beside its final name and renamed into place, so a file that exists
// under its final name is complete: that is what lets `--resume` skip it without reading it.
// Into an archive, members are appended one at a time under a lock (libarchive writes one
// stream); the archive itself is renamed into place by `finish()`. Both go through OutputFile,
// so a device or pipe already at an output's path is written in place, never replaced. A name clash between an
// output file and an output folder (`a` and `a/b.crash` in one archive) throws `.conflict`,
// which fails that one report; every other write error throws `.io` and stops the run.

import Foundation
import Store
import SymbolicateModel
import SystemSupport

final class OutputSink: Sendable {
    /// The one archive writer; only touched inside `archive.withLock`.
    private final class ArchiveBox {
        var writer: ArchiveWriter
        let file: OutputFile
        var finished = false
        init(_ writer: consuming ArchiveWriter, _ file: OutputFile) {
            self.writer = writer
            self.file = file
        }
        /// A run that stops before `finish()` leaves no half archive behind.
        deinit { if !finished { file.discard() } }
    }

    private let root: String?
    private let archive: Locked<ArchiveBox>?
    /// The folders made so far, and how many outputs were begun (each temporary name's serial).
    private let folders = Locked((created: Set<String>(), counter: 0))
    private let processID = getpid()

    init(_ destination: BatchConfiguration.Destination) throws(SymbolicateError) {
        switch destination {
        case .directory(let path):
            root = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
            archive = nil
            try Self.makeFolder(path)
        case .archive(let path):
            root = nil
            guard ArchiveWriter.Kind(fileName: path) != nil else {
                throw SymbolicateError(
                    .badInput, "the output archive must end in .zip, .tar, .tar.gz or .tgz", path: path)
            }
            let file = try OutputFile(path: path)
            do {
                archive = Locked(
                    ArchiveBox(try ArchiveWriter(destination: path, fileDescriptor: file.fileDescriptor), file))
            } catch {
                file.discard()
                throw error
            }
        }
    }

    /// Writes one output at `name` (a sanitized relative path).
    func write(_ name: String, _ bytes: [UInt8]) throws(SymbolicateError) {
        if let archive {
            try archive.withLock { (box) throws(SymbolicateError) in try box.writer.add(path: name, bytes: bytes) }
            return
        }
        guard let root else { return }
        let path = root + "/" + name
        let folder = PathParts.parent(path)
        let (needsFolder, serial) = folders.withLock { folders -> (Bool, Int) in
            folders.counter += 1
            return (!folders.created.contains(folder), folders.counter)
        }
        if needsFolder {
            try Self.makeFolder(folder)
            folders.withLock { _ = $0.created.insert(folder) }
        }
        let fileName = PathParts.name(path)
        let file: OutputFile
        do {
            file = try OutputFile(path: path, temporaryPrefix: ".\(fileName).partial-\(processID)-\(serial)-")
        } catch  where error.code == .conflict {
            throw SymbolicateError(.conflict, "an output folder is in the way of this output", path: path)
        }
        do {
            try file.write(bytes)
            // Not synced one by one: a crash loses at most outputs that `--resume` writes again.
            try file.commit(durable: false)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Completes an output archive (no-op for a folder).
    func finish() throws(SymbolicateError) {
        guard let archive else { return }
        try archive.withLock { (box) throws(SymbolicateError) in
            box.finished = true
            do throws(SymbolicateError) {
                try box.writer.finish()
            } catch {
                box.file.discard()
                throw error
            }
            try box.file.commit()
        }
    }

    private static func makeFolder(_ path: String) throws(SymbolicateError) {
        try Folders.create(path, what: "output folder")
    }
}
