// Finds the object files inside what a user hands over. Every bundle kind we accept (.dSYM with
// Contents/Resources/DWARF, dSYMs nested in a folder itself named *.dSYM, .app with Frameworks and
// PlugIns, .xcarchive with dSYMs/ and Products/) is a folder tree whose symbol files are the files
// that start with a Mach-O, universal or ELF magic, so one recursive scan by content covers them
// all. Symlinked folders are followed once (frameworks use them), loops are cut by (device, inode).

import Foundation
import SymbolicateModel

public enum SymbolFileFinder {
    static let maxDepth = 64

    /// Sorted, deduplicated paths of the object files in (or at) `path`.
    public static func objectFiles(in path: String) throws -> [String] {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw SymbolicateError(.notFound, "no such file or folder", path: path)
        }
        var byInode: [FileKey: String] = [:]
        if (st.st_mode & S_IFMT) == S_IFDIR {
            var visited: Set<FileKey> = []
            scan(path, depth: 0, visited: &visited, found: &byInode)
        } else if (st.st_mode & S_IFMT) == S_IFREG, isObjectFile(path) {
            byInode[FileKey(st)] = path
        }
        return byInode.values.sorted()
    }

    private struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    private static func scan(_ dir: String, depth: Int, visited: inout Set<FileKey>, found: inout [FileKey: String]) {
        var st = stat()
        guard depth < maxDepth, stat(dir, &st) == 0, visited.insert(FileKey(st)).inserted else { return }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names.sorted() {
            let child = dir.hasSuffix("/") ? dir + name : dir + "/" + name
            var cst = stat()
            guard stat(child, &cst) == 0 else { continue }  // dangling symlink
            switch cst.st_mode & S_IFMT {
            case S_IFDIR:
                scan(child, depth: depth + 1, visited: &visited, found: &found)
            case S_IFREG:
                guard cst.st_size >= 4, isObjectFile(child) else { continue }
                let key = FileKey(cst)
                if let known = found[key], known <= child { continue }
                found[key] = child
            default:
                continue
            }
        }
    }

    private static func isObjectFile(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 8)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 8) }
        guard n >= 4 else { return false }
        return ObjectFile.looksLikeObjectFile(prefix: Array(buffer[0..<n]))
    }
}
