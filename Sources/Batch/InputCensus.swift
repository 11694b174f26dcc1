// InputCensus: what is known about the size of a batch run before it starts, for the progress
// display. When every INPUT is a folder or a report file, a quick walk (names and types only,
// nothing read) counts the files of this shard, so progress can say done/total and an ETA.
// When the inputs are all archives, the total is the archives' size on disk and progress is
// the share of it libarchive has consumed. A list on stdin, or archives mixed with folders,
// leave the total unknown; progress then shows counts and speed only.
// FileKind classifies a path named as an input (links followed); folders are walked by FolderWalk.

import Foundation
import SymbolicateModel
import SystemSupport

enum FileKind: Equatable {
    case directory, file, other, missing

    init(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = .missing
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: self = .directory
        case S_IFREG: self = .file
        default: self = .other
        }
    }

    /// The absolute path with every link resolved, or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The size in bytes of the file at `path` (following links), or nil.
    static func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}

struct InputCensus: Sendable {
    /// Files this shard will look at, when known.
    var files: Int?
    /// Total bytes of the input archives, when every input is an archive.
    var archiveBytes: Int?

    init(files: Int?, archiveBytes: Int?) {
        self.files = files
        self.archiveBytes = archiveBytes
    }

    init(_ configuration: BatchConfiguration) {
        let inputs = configuration.inputs
        if inputs.contains("-") {
            files = nil
            archiveBytes = nil
            return
        }
        if inputs.allSatisfy({ OutputPaths.isArchiveName($0) && FileKind($0) == .file }) {
            files = nil
            archiveBytes = inputs.reduce(0) { $0 + (FileKind.size($1) ?? 0) }
            return
        }
        archiveBytes = nil
        var skip: String? = nil
        if case .directory(let folder) = configuration.destination { skip = FileKind.realPath(folder) }
        var count = 0
        for input in inputs {
            switch FileKind(input) {
            case .directory:
                guard let n = Self.count(input, shard: configuration.shard, skip: skip) else {
                    files = nil
                    return
                }
                count += n
            case .file:
                if OutputPaths.isArchiveName(input) {
                    files = nil
                    return
                }
                let base = OutputPaths.sanitize(input).flatMap(PathParts.last) ?? input
                if configuration.shard?.contains(base) ?? true { count += 1 }
            case .other, .missing:
                continue
            }
        }
        files = count
    }

    /// Files of the shard under `folder` (in FolderWalk's way, as InputReader reads them); nil
    /// when an archive makes the count unknowable.
    private static func count(_ folder: String, shard: Shard?, skip: String?) -> Int? {
        var n = 0
        var foundArchive = false
        FolderWalk.walk(
            folder, options: .physical,
            passedOver: { _, relative, _ in
                // InputReader counts each of these as a file, unreadable or skipped.
                if shard?.contains(relative) ?? true { n += 1 }
            },
            visit: { entry in
                switch entry.kind {
                case .folder:
                    if let skip, FileKind.realPath(entry.path) == skip { return .skip }
                case .file:
                    if OutputPaths.isArchiveName(entry.name) {
                        foundArchive = true
                        return .stop
                    }
                    if shard?.contains(entry.relativePath) ?? true { n += 1 }
                }
                return .proceed
            })
        return foundArchive ? nil : n
    }
}
