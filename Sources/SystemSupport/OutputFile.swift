// OutputFile: how every command writes a named output (`-o`, `batch --summary`, `batch
// --output-archive`, the files of a batch output folder). A regular file, or a path where nothing
// is yet, is written to a locked temporary file beside it and renamed into place once complete,
// so a failed run leaves neither half an output nor a damaged old one. Anything else (a device,
// a FIFO, a socket, or a symbolic link to one of these) is opened and written in place: renaming
// over it would replace `/dev/null` or a pipe with a regular file. A symbolic link to a regular
// file keeps being a link: the rename goes over the file it points to.
//
// `writeAll` is the one loop over write(2) that every writer here and in the CLI uses; it
// reports errno instead of trapping, so a full disk or a closed pipe is an error a caller can
// turn into a message.

import Foundation
import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

public final class OutputFile {
    /// The path as the caller named it (used in messages).
    public let path: String
    private let target: Target
    private var done = false

    private enum Target {
        /// Written under a temporary name, renamed over `destination` by `commit`.
        case replacing(TemporaryFile, destination: String)
        /// A device, FIFO or socket, written where it is.
        case inPlace(Int32)
    }

    /// Opens `path` for writing: in place when it is not a regular file, else through a
    /// temporary file beside it. `temporaryPrefix` names that temporary (a leading dot hides it).
    public init(path: String, temporaryPrefix: String? = nil) throws(SymbolicateError) {
        self.path = path
        var st = stat()
        if stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            if st.st_mode & S_IFMT == S_IFDIR {
                throw SymbolicateError(.conflict, "is a folder; name a file to write the output to", path: path)
            }
            // No O_CREAT, no O_TRUNC: the thing exists and is not a file to truncate.
            let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { throw OutputFile.error("cannot open the output", errno, path) }
            target = .inPlace(fd)
            return
        }
        // A regular file (through any links) or nothing yet: the rename goes over the real file.
        var destination = path
        if stat(path, &st) == 0, let resolved = realpath(path, nil) {
            destination = String(cString: resolved)
            free(resolved)
        }
        let folder = PathParts.parent(destination)
        let name = PathParts.name(destination)
        let temporary: TemporaryFile
        do {
            temporary = try TemporaryFile(
                in: folder, prefix: temporaryPrefix ?? ".\(name).partial-", suffix: "")
        } catch {
            guard Folders.isFolder(folder) else {
                let missing = Folders.firstFileComponent(of: folder) == nil
                let why = Folders.reason(missing ? ENOENT : ENOTDIR, at: destination)
                throw SymbolicateError(
                    .io,
                    "cannot create the output: \(why); \(missing ? "create it or write elsewhere" : "write elsewhere")",
                    path: path)
            }
            throw SymbolicateError(.io, "cannot create the output: \(error.message)", path: path)
        }
        // An existing file keeps its permissions.
        if stat(destination, &st) == 0 { temporary.setMode(st.st_mode & 0o7777) }
        target = .replacing(temporary, destination: destination)
    }

    deinit {
        if case .inPlace(let fd) = target { close(fd) }
    }

    /// The descriptor to write to (for writers that take one, such as libarchive's).
    public var fileDescriptor: Int32 {
        switch target {
        case .replacing(let temporary, _): return temporary.fileDescriptor
        case .inPlace(let fd): return fd
        }
    }

    /// Appends `bytes`.
    public func write(_ bytes: [UInt8]) throws(SymbolicateError) {
        let code = bytes.withUnsafeBytes { OutputFile.writeAll(fileDescriptor, $0) }
        if code != 0 { throw OutputFile.error("cannot write the output", code, path) }
    }

    /// Completes the output: renames the temporary into place (`durable` syncs the data and the
    /// folder first, which a batch writing thousands of files can skip). Nothing to do in place.
    public func commit(durable: Bool = true) throws(SymbolicateError) {
        guard !done else { return }
        done = true
        guard case .replacing(let temporary, let destination) = target else { return }
        do {
            try temporary.commit(to: destination, durable: durable)
        } catch {
            temporary.discard()
            throw SymbolicateError(error.code, error.message, path: path)
        }
    }

    /// Drops the output: the temporary goes away, whatever was at the path stays as it was.
    public func discard() {
        done = true
        if case .replacing(let temporary, _) = target { temporary.discard() }
    }

    /// Writes a whole output to `path` (see the type's description).
    public static func write(_ bytes: [UInt8], to path: String) throws(SymbolicateError) {
        let file = try OutputFile(path: path)
        do {
            try file.write(bytes)
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR. Returns 0, or the errno
    /// of the write that failed (ENOSPC, EIO, EPIPE, ...).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            offset += n
        }
        return 0
    }

    static func error(_ what: String, _ code: Int32, _ path: String) -> SymbolicateError {
        SymbolicateError(.io, "\(what): \(Errno(rawValue: code))", path: path, cause: Errno(rawValue: code))
    }
}
