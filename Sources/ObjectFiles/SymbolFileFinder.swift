// Finds the object files inside what a user hands over. Every bundle kind we accept (.dSYM with
// Contents/Resources/DWARF, dSYMs nested in a folder itself named *.dSYM, .app with Frameworks and
// PlugIns, .xcarchive with dSYMs/ and Products/) is a folder tree whose symbol files are the files
// that start with a Mach-O, universal or ELF magic, so one recursive scan by content covers them
// all. Symlinked folders are followed once (frameworks use them), loops are cut by (device, inode).

import Foundation
import SymbolicateModel

public enum SymbolFileFinder {
    /// Sorted, deduplicated paths of the object files in (or at) `path`.
    public static func objectFiles(in path: String) throws -> [String] {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw SymbolicateError.noSuchFile(path)
        }
        var byInode: [FolderWalk.FileKey: String] = [:]
        if (st.st_mode & S_IFMT) == S_IFDIR {
            // One file reached under several names (links) is listed under the smallest.
            FolderWalk.regularFiles(under: path) { file, fst in
                guard fst.st_size >= 4, isObjectFile(file) else { return }
                let key = FolderWalk.FileKey(fst)
                if let known = byInode[key], known <= file { return }
                byInode[key] = file
            }
        } else if (st.st_mode & S_IFMT) == S_IFREG, isObjectFile(path) {
            byInode[FolderWalk.FileKey(st)] = path
        }
        return byInode.values.sorted()
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
