// The one walk over a folder, shared by symbol-file scans, store imports and batch's inputs:
// folders and regular files in sorted, depth-first order, each with its path relative to the
// walked folder; each folder entered once by (device, inode), so link loops end. Symbolic links
// to files are followed; links to folders are followed (frameworks link `Versions/Current`, at
// most `maxDepth` levels) or passed over, as the caller asks. Dangling links, other file types
// (devices, pipes, sockets), names that cannot be looked at (permission denied, a loop of links)
// and names that are not valid UTF-8 (which no String path can open) are passed over, and the
// caller hears of each, to count it if it wants. Callers decide what a
// file is, which folders to leave out, when to stop, and which of two names for one file wins.

import Foundation

public enum FolderWalk {
    public static let maxDepth = 64

    /// Identity of a file or folder, to visit each once whatever links lead to it.
    public struct FileKey: Hashable, Sendable {
        public var device: UInt64
        public var inode: UInt64

        public init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// How a walk treats symbolic links to folders.
    public struct Options: Sendable {
        /// Whether a link to a folder is entered (each real folder still once) or passed over.
        public var followsLinksToFolders: Bool
        /// How many levels of folders are listed, the walked folder being the first; nil for all.
        public var maxDepth: Int?

        /// Bundles as Xcode makes them: links to folders followed, `FolderWalk.maxDepth` levels.
        public static let followingLinks = Options(followsLinksToFolders: true, maxDepth: FolderWalk.maxDepth)
        /// The folders themselves: links to folders passed over, so the walk cannot loop.
        public static let physical = Options(followsLinksToFolders: false, maxDepth: nil)
    }

    /// A folder or regular file the walk reached.
    public struct Entry {
        public enum Kind: Sendable { case folder, file }

        public var kind: Kind
        /// The walked folder's path, then the names below it, joined by "/".
        public var path: String
        /// The names below the walked folder, joined by "/".
        public var relativePath: String
        /// The last name.
        public var name: String
        /// `stat` of the file or folder (a link's target).
        public var info: stat

        /// `relativePath` without the last name: "" at the top, else the folders and a "/". By
        /// bytes: a name beginning with a combining mark is one character with the "/" before it.
        public var folderPrefix: Substring { Substring(relativePath.utf8.dropLast(name.utf8.count)) }
    }

    /// Why a name in a folder was passed over.
    public enum PassedOver: Sendable, Equatable {
        /// A symbolic link whose target does not exist.
        case danglingLink
        /// A name that `stat` cannot look at, with its errno: EACCES (a folder on the way may not
        /// be searched), ELOOP (a loop of symbolic links), EIO.
        case inaccessible(errno: Int32)
        /// A device, pipe or socket.
        case notARegularFile
        /// The name's bytes are not UTF-8; the path given has them repaired (U+FFFD) and names no file.
        case nameNotUTF8
    }

    /// What the walk does after an entry: goes on (into a folder), passes over a folder, or ends.
    public enum Step: Sendable {
        case proceed, skip, stop
    }

    /// Calls `visit` with the path and `stat` of every regular file under `folder`, links followed.
    public static func regularFiles(under folder: String, _ visit: (String, stat) -> Void) {
        walk(folder, options: .followingLinks) { entry in
            if entry.kind == .file { visit(entry.path, entry.info) }
            return .proceed
        }
    }

    /// Calls `visit` with every folder and regular file under `folder`, a folder before what it
    /// holds. `unlistable` hears of each folder whose names cannot be read, with the error;
    /// `passedOver` of each name that is neither (with its path and its path below `folder`).
    public static func walk(
        _ folder: String, options: Options,
        unlistable: (_ folder: String, _ error: any Error) -> Void = { _, _ in },
        passedOver: (_ path: String, _ relativePath: String, _ reason: PassedOver) -> Void = { _, _, _ in },
        visit: (Entry) -> Step
    ) {
        var st = stat()
        guard stat(folder, &st) == 0 else { return }
        var visited: Set<FileKey> = []
        withoutActuallyEscaping(unlistable) { unlistable in
            withoutActuallyEscaping(passedOver) { passedOver in
                withoutActuallyEscaping(visit) { visit in
                    let calls = Callbacks(unlistable: unlistable, passedOver: passedOver, visit: visit)
                    _ = walk(folder, info: st, relativePath: "", depth: 0, options: options, visited: &visited, calls)
                }
            }
        }
    }

    private struct Callbacks {
        var unlistable: (String, any Error) -> Void
        var passedOver: (String, String, PassedOver) -> Void
        var visit: (Entry) -> Step
    }

    /// False once `visit` asked to stop.
    private static func walk(
        _ folder: String, info: stat, relativePath: String, depth: Int, options: Options,
        visited: inout Set<FileKey>, _ calls: Callbacks
    ) -> Bool {
        if let maxDepth = options.maxDepth, depth >= maxDepth { return true }
        guard visited.insert(FileKey(info)).inserted else { return true }
        let names: [(name: String, isUTF8: Bool)]
        do {
            names = try listNames(folder)
        } catch {
            calls.unlistable(folder, error)
            return true
        }
        for (name, isUTF8) in names.sorted(by: { $0.name < $1.name }) {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            let relative = relativePath.isEmpty ? name : relativePath + "/" + name
            guard isUTF8 else {
                calls.passedOver(path, relative, .nameNotUTF8)
                continue
            }
            var child = stat()
            guard stat(path, &child) == 0 else {
                let error = errno
                if error == ENOENT || error == ENOTDIR {
                    // A link to nothing; or a name removed since the folder was listed.
                    if isLink(path) { calls.passedOver(path, relative, .danglingLink) }
                } else {
                    calls.passedOver(path, relative, .inaccessible(errno: error))
                }
                continue
            }
            let kind: Entry.Kind
            switch child.st_mode & S_IFMT {
            case S_IFDIR:
                guard options.followsLinksToFolders || !isLink(path) else { continue }
                kind = .folder
            case S_IFREG: kind = .file
            default:
                calls.passedOver(path, relative, .notARegularFile)
                continue
            }
            let entry = Entry(kind: kind, path: path, relativePath: relative, name: name, info: child)
            switch calls.visit(entry) {
            case .stop: return false
            case .skip: continue
            case .proceed:
                guard kind == .folder else { continue }
                let goesOn = walk(
                    path, info: child, relativePath: entry.relativePath, depth: depth + 1, options: options,
                    visited: &visited, calls)
                if !goesOn { return false }
            }
        }
        return true
    }

    /// The names in `folder` (not `.` and `..`), each with whether its bytes are UTF-8; a name
    /// that is not comes with its bytes repaired. Throws an NSError in the POSIX domain.
    private static func listNames(_ folder: String) throws -> [(name: String, isUTF8: Bool)] {
        guard let directory = opendir(folder) else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno))
        }
        defer { closedir(directory) }
        var names: [(String, Bool)] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
                return names
            }
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] || bytes.isEmpty { continue }
            if let name = String(validating: bytes, as: UTF8.self) {
                names.append((name, true))
            } else {
                names.append((String(decoding: bytes, as: UTF8.self), false))
            }
        }
    }

    /// Whether `path` is a symbolic link (or cannot be looked at without following one).
    private static func isLink(_ path: String) -> Bool {
        var own = stat()
        return lstat(path, &own) != 0 || (own.st_mode & S_IFMT) == S_IFLNK
    }
}
