// Creating folders, and saying in plain words what went wrong with a path. Foundation's
// `createDirectory` reports a missing parent or a file in the way as "NSCocoaErrorDomain error
// 512" or "The file doesn't exist" without naming which path; `Folders.create` runs mkdir(2)
// one component at a time, so its error names the component that failed and why, and
// `Folders.reason` turns an error Foundation threw (listing a folder, ...) into the same words.
// The store, the CLI's outputs and batch's output folders all create folders through here.

import Foundation
import SymbolicateModel

public enum Folders {
    /// `mkdir -p path`. `what` names the folder in messages ("store folder", "output folder").
    /// Throws naming the first component that could not be created: a file in its place, no
    /// permission in its parent, a read-only file system, a full disk.
    public static func create(_ path: String, what: String) throws(SymbolicateError) {
        guard !path.isEmpty else { throw SymbolicateError(.badInput, "an empty path cannot be a \(what)") }
        // Usually the parent exists: one mkdir (or a folder already there) settles it. Anything
        // else goes component by component, which finds the part to name in the message.
        if mkdir(path, 0o777) == 0 || (errno == EEXIST && isFolder(path)) { return }
        var current = PathParts.isAbsolute(path) ? "" : "."
        for part in PathParts.split(path) where part != "." {
            current += "/" + part
            if mkdir(current, 0o777) == 0 { continue }
            let code = errno
            if code == EEXIST || code == EISDIR {
                if isFolder(current) { continue }
                throw SymbolicateError(
                    .conflict, "cannot create the \(what): \(current) is a file, not a folder", path: path)
            }
            throw SymbolicateError(.io, "cannot create the \(what): \(reason(code, at: current))", path: path)
        }
        guard isFolder(path) else {
            throw SymbolicateError(.io, "cannot create the \(what): it is not a folder after mkdir", path: path)
        }
    }

    /// What errno `code` means for `path`, naming the path to look at.
    public static func reason(_ code: Int32, at path: String) -> String {
        let parent = PathParts.parent(path)
        switch code {
        case ENOENT:
            if let missing = firstMissingComponent(of: parent) { return "the folder \(missing) does not exist" }
            return "\(path) does not exist"
        case ENOTDIR:
            if let file = firstFileComponent(of: path) { return "\(file) is a file, not a folder" }
            return "a part of \(path) is a file, not a folder"
        case EACCES, EPERM: return "no permission to write in \(parent) (check its owner and mode)"
        case EROFS: return "\(parent) is on a read-only file system"
        case ENOSPC, EDQUOT: return "no space left on the device holding \(parent)"
        default: return "\(path): \(Errno(rawValue: code).description)"
        }
    }

    /// Why an operation on `path` failed, for an error Foundation threw: its POSIX cause when it
    /// carries one, else its Cocoa code in words; a SymbolicateError's own message.
    public static func reason(_ error: any Error, at path: String) -> String {
        if let error = error as? SymbolicateError { return error.message }
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return reason(Int32(underlying.code), at: path)
        }
        if ns.domain == NSPOSIXErrorDomain { return reason(Int32(ns.code), at: path) }
        if ns.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: ns.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: return reason(ENOENT, at: path)
            case .fileReadNoPermission, .fileWriteNoPermission: return reason(EACCES, at: path)
            case .fileWriteVolumeReadOnly: return reason(EROFS, at: path)
            case .fileWriteOutOfSpace: return reason(ENOSPC, at: path)
            case .fileWriteFileExists: return "\(path) already exists"
            default: break
            }
        }
        // No cause in the error: say what the file system shows.
        if let missing = firstMissingComponent(of: path) { return "the folder \(missing) does not exist" }
        if let file = firstFileComponent(of: PathParts.parent(path)) { return "\(file) is a file, not a folder" }
        return "\(path): \(ns.localizedFailureReason ?? "the operation failed (\(ns.domain) \(ns.code))")"
    }

    static func isFolder(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// The shortest prefix of `path` that does not exist, or nil.
    static func firstMissingComponent(of path: String) -> String? {
        firstPrefix(of: path) { prefix in
            var st = stat()
            return lstat(prefix, &st) != 0 && errno == ENOENT
        }
    }

    /// The shortest prefix of `path` that exists and is not a folder, or nil.
    static func firstFileComponent(of path: String) -> String? {
        firstPrefix(of: path) { prefix in
            var st = stat()
            return stat(prefix, &st) == 0 && st.st_mode & S_IFMT != S_IFDIR
        }
    }

    /// The shortest of `path`'s prefixes (`/a`, `/a/b`, ...; `./a`, ... for a relative path)
    /// for which `test` is true, or nil.
    private static func firstPrefix(of path: String, where test: (String) -> Bool) -> String? {
        var current = PathParts.isAbsolute(path) ? "" : "."
        for part in PathParts.split(path) {
            current += "/" + part
            if test(current) { return current }
        }
        return nil
    }
}
