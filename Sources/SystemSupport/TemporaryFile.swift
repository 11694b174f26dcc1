// TemporaryFile: a file the store writes under a private name (`.tmp-<random>...`) before it
// either becomes a build file (fsync, rename, fsync of the folder) or disappears. The creating
// process holds an flock on it for its whole life, which is how a later process tells a live
// import's file from one left by an import that was killed: only the dead one can be locked, and
// `removeStale` deletes exactly those. No pid files, no clocks, no guessing. OutputFile uses the
// same file, under another prefix, for command outputs.

import CLinux
import Foundation
import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

package final class TemporaryFile {
    package static let prefix = ".tmp-"

    package let path: String
    private let fd: Int32
    private var finished = false

    /// Creates and locks a new empty file in `directory`, named `prefix`, a random part, `suffix`.
    package init(in directory: String, prefix: String = TemporaryFile.prefix, suffix: String) throws(SymbolicateError) {
        var attempt = 0
        while true {
            let name = prefix + String(UInt64.random(in: 0...UInt64.max), radix: 16) + suffix
            let path = directory + "/" + name
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 {
                let code = errno
                attempt += 1
                if code == EEXIST, attempt < 8 { continue }
                throw TemporaryFile.error("cannot create a temporary file", code, path)
            }
            // A cleaner may have locked and unlinked the file between open and flock: make sure
            // the locked inode is still the one at `path`.
            var mine = stat()
            var there = stat()
            if flock(fd, LOCK_EX) == 0, fstat(fd, &mine) == 0, stat(path, &there) == 0,
                mine.st_ino == there.st_ino, mine.st_dev == there.st_dev
            {
                self.path = path
                self.fd = fd
                return
            }
            close(fd)
            attempt += 1
            if attempt >= 8 { throw SymbolicateError(.io, "cannot lock a temporary file", path: path) }
        }
    }

    deinit {
        if !finished { unlink(path) }
        close(fd)
    }

    var fileDescriptor: Int32 { fd }

    /// Sets the permission bits (best effort: the file is usable whatever they are).
    func setMode(_ mode: mode_t) {
        _ = fchmod(fd, mode)
    }

    package var size: Int64 {
        var st = stat()
        return fstat(fd, &st) == 0 ? Int64(st.st_size) : 0
    }

    /// Appends bytes (used to spool archive members).
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        let code = OutputFile.writeAll(fd, bytes)
        if code != 0 { throw TemporaryFile.error("cannot write", code, path) }
    }

    /// Starts the disk's writing of what was written so far, without waiting: a file written
    /// over a second or more then leaves its final `sync` little to wait for. Best effort.
    package func startWriteback() {
        _ = clinux_start_writeback(fd)
    }

    /// Flushes the file's data to disk.
    package func sync() throws {
        guard fsync(fd) == 0 else { throw TemporaryFile.error("cannot sync", errno, path) }
    }

    /// Makes the file durable and moves it to `destination` (replacing what is there), then
    /// makes the rename durable; `durable: false` skips both syncs. The file is no longer
    /// temporary afterwards.
    package func commit(to destination: String, durable: Bool = true) throws(SymbolicateError) {
        if durable {
            guard fsync(fd) == 0 else { throw TemporaryFile.error("cannot sync", errno, path) }
        }
        guard rename(path, destination) == 0 else { throw TemporaryFile.error("cannot rename into place", errno, path) }
        finished = true
        if durable { TemporaryFile.syncDirectory(of: destination) }
    }

    /// Removes the file now rather than when the object goes away.
    package func discard() {
        guard !finished else { return }
        unlink(path)
        finished = true
    }

    package static func syncDirectory(of path: String) {
        let dfd = open(PathParts.parent(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { return }
        fsync(dfd)
        close(dfd)
    }

    /// Deletes the temporary files in `directory` whose creator is gone (nobody holds their lock);
    /// returns their names. Files of running imports are left alone.
    package static func removeStale(in directory: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let present = Set(names)
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) {
            let path = directory + "/" + name
            // SQLite side files (-journal, -wal, -shm) go with their main file.
            if let dash = name.range(of: ".sqlite-") {
                let main = String(name[..<dash.lowerBound]) + ".sqlite"
                if !present.contains(main) || !FileManager.default.fileExists(atPath: directory + "/" + main) {
                    if unlink(path) == 0 { removed.append(name) }
                }
                continue
            }
            let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0, unlink(path) == 0 {
                removed.append(name)
            }
            close(fd)
        }
        return removed
    }

    private static func error(_ what: String, _ code: Int32, _ path: String) -> SymbolicateError {
        SymbolicateError(.io, "\(what): \(Errno(rawValue: code))", path: path, cause: Errno(rawValue: code))
    }
}
