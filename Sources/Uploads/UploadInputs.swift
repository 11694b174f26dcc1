// What `symbolicate upload` sends, from what a user hands over, as `import` reads its inputs:
// every Mach-O, universal or ELF file in dSYM bundles, .app bundles, .xcarchives and folders
// (found by content, SymbolFileFinder), single object files, and the object-file members of .zip /
// .tar(.gz) archives, which are copied out to a scratch folder under their own file names (the
// server names a build after its file). Archives are read under the same policy as an import:
// unsafe member names, damage and expansion bombs refuse the archive.

import Archives
import Foundation
import Import
import ObjectFiles
import Store
import SymbolicateModel
import SystemSupport

/// One file to upload.
public struct UploadFile: Sendable {
    /// Where its bytes are (a scratch copy for an archive member).
    public var path: String
    /// What it is called on the server and in messages: its file name.
    public var name: String
    /// Where it came from, for messages: the path, or `archive:member`.
    public var source: String
    public var size: Int64
}

public enum UploadInputs {
    /// The files to upload from `paths`, sorted by source; archive members go to `scratch`.
    public static func collect(_ paths: [String], scratch: String) throws -> [UploadFile] {
        var files: [UploadFile] = []
        for path in paths {
            var status = stat()
            guard stat(path, &status) == 0 else { throw SymbolicateError.noSuchFile(path) }
            if (status.st_mode & S_IFMT) == S_IFREG, let head = prefix(path),
                ArchiveReader.looksLikeArchive(prefix: head)
            {
                files += try members(of: path, scratch: scratch)
                continue
            }
            let found = try SymbolFileFinder.objectFiles(in: path)
            guard !found.isEmpty else {
                throw SymbolicateError(
                    .badInput, "no Mach-O or ELF file in it: \(SymbolFileFinder.whyNotAnObjectFile(path))", path: path)
            }
            for file in found {
                files.append(
                    UploadFile(path: file, name: PathParts.last(file) ?? file, source: file, size: fileSize(file)))
            }
        }
        return files
    }

    static func prefix(_ path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return [UInt8](handle.readData(ofLength: 4096))
    }

    static func fileSize(_ path: String) -> Int64 {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Copies the object-file members of the archive at `path` into `scratch`, one folder each.
    static func members(of path: String, scratch: String) throws -> [UploadFile] {
        var files: [UploadFile] = []
        let reader = try ArchiveReader.forImport(path: path, limits: ArchiveImportLimits())
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while let entry = try reader.nextForImport() {
            guard entry.type == .file else { continue }
            let name = PathParts.last(entry.name) ?? entry.name
            let folder = scratch + "/\(files.count)-" + UUID().uuidString.prefix(8)
            guard mkdir(folder, 0o700) == 0 else {
                throw SymbolicateError.system("cannot create \(folder)")
            }
            let target = folder + "/" + (name.hasPrefix(".") || name.isEmpty ? "member" : name)
            let descriptor = open(target, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw SymbolicateError.system("cannot create \(target)")
            }
            var head: [UInt8] = []
            var size: Int64 = 0
            var keep = true
            while true {
                let count = try buffer.withUnsafeMutableBytes { try reader.readForImport(into: $0) }
                if count == 0 { break }
                if head.isEmpty {
                    head = Array(buffer.prefix(count))
                    keep = ObjectFile.looksLikeObjectFile(prefix: head)
                    if !keep { break }
                }
                let code = buffer.withUnsafeBytes {
                    OutputFile.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: $0.prefix(count)))
                }
                guard code == 0 else {
                    close(descriptor)
                    throw SymbolicateError.system("cannot write \(target)", errno: Errno(rawValue: code))
                }
                size += Int64(count)
            }
            close(descriptor)
            if keep, !head.isEmpty {
                files.append(UploadFile(path: target, name: name, source: "\(path):\(entry.name)", size: size))
            } else {
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
        return files
    }
}
