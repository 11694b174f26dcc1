// Finds the object files inside what a user hands over. Every bundle kind we accept (.dSYM with
// Contents/Resources/DWARF, dSYMs nested in a folder itself named *.dSYM, .app with Frameworks and
// PlugIns, .xcarchive with dSYMs/ and Products/) is a folder tree whose symbol files are the files
// that start with a Mach-O, universal or ELF magic, so one recursive scan by content covers them
// all. Symlinked folders are followed once (frameworks use them), loops are cut by (device, inode).

import Foundation
import SymbolicateModel
import SystemSupport

public enum SymbolFileFinder {
    /// Sorted, deduplicated paths of the object files in (or at) `path`.
    public static func objectFiles(in path: String) throws -> [String] {
        var unusable: [String] = []
        return try objectFiles(in: path, unusableDWARF: &unusable)
    }

    /// The same, and in `unusableDWARF` the files found where a dSYM keeps its DWARF file
    /// (`*.dSYM/Contents/Resources/DWARF/`) that are no object file (a Git LFS pointer, a file
    /// cut short), sorted: a dSYM that cannot be used, which a caller should name.
    public static func objectFiles(in path: String, unusableDWARF: inout [String]) throws -> [String] {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw SymbolicateError.noSuchFile(path)
        }
        var byInode: [FolderWalk.FileKey: String] = [:]
        var unusable = Set<String>()
        if (st.st_mode & S_IFMT) == S_IFDIR {
            // One file reached under several names (links) is listed under the smallest.
            FolderWalk.regularFiles(under: path) { file, fst in
                guard fst.st_size >= 4, isObjectFile(file) else {
                    if isDWARFFileOfDSYM(file) { unusable.insert(file) }
                    return
                }
                let key = FolderWalk.FileKey(fst)
                if let known = byInode[key], known <= file { return }
                byInode[key] = file
            }
        } else if (st.st_mode & S_IFMT) == S_IFREG {
            if isObjectFile(path) {
                byInode[FolderWalk.FileKey(st)] = path
            } else if isDWARFFileOfDSYM(path) {
                unusable.insert(path)
            }
        }
        unusableDWARF = unusable.sorted()
        return byInode.values.sorted()
    }

    /// Why the file at `path`, found where an object file was expected, is none, with what it
    /// looks like when that is known.
    public static func whyNotAnObjectFile(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "cannot be opened: " + Errno.current.description }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 64) }
        guard n > 0 else { return "is empty, not a Mach-O file" }
        if String(decoding: buffer[0..<n], as: UTF8.self).hasPrefix("version https://git-lfs.github.com/spec/") {
            return "is a Git LFS pointer, not the Mach-O file: fetch it (git lfs pull) first"
        }
        return "is not a Mach-O file (no Mach-O magic at its start)"
    }

    /// True for a path `.../X.dSYM/Contents/Resources/DWARF/FILE`, FILE not hidden (`.DS_Store`,
    /// the `._FILE` AppleDouble files a zip made by Finder holds).
    static func isDWARFFileOfDSYM(_ path: String) -> Bool {
        let parts = PathParts.split(path)
        guard parts.count >= 5, parts.last?.hasPrefix(".") == false else { return false }
        let tail = parts.suffix(5).map { $0.lowercased() }
        return tail[0].hasSuffix(".dsym") && tail[1] == "contents" && tail[2] == "resources" && tail[3] == "dwarf"
    }

    private static func isObjectFile(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 8)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 8) }
        guard n >= 4 else { return false }
        return ObjectFile.looksLikeObjectFile(prefix: Array(buffer[0..<n]))
    }
}
