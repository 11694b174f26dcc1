// The walk over a folder that symbol-file scans and store imports share: regular files in sorted,
// depth-first order; symbolic links followed (frameworks link `Versions/Current`), each folder
// entered once by (device, inode) so link loops end, at most `maxDepth` levels; dangling links and
// other file types skipped. Callers decide what a file is and which of two names for one file wins.

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

    /// Calls `visit` with the path and `stat` of every regular file under `folder`.
    public static func regularFiles(under folder: String, _ visit: (String, stat) -> Void) {
        var visited: Set<FileKey> = []
        walk(folder, depth: 0, visited: &visited, visit)
    }

    private static func walk(_ folder: String, depth: Int, visited: inout Set<FileKey>, _ visit: (String, stat) -> Void)
    {
        var st = stat()
        guard depth < maxDepth, stat(folder, &st) == 0, visited.insert(FileKey(st)).inserted,
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder)
        else { return }
        for name in names.sorted() {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var child = stat()
            guard stat(path, &child) == 0 else { continue }  // dangling link
            switch child.st_mode & S_IFMT {
            case S_IFDIR: walk(path, depth: depth + 1, visited: &visited, visit)
            case S_IFREG: visit(path, child)
            default: continue
            }
        }
    }
}
