// ArchiveWriter: writes `--output-archive FILE.zip | FILE.tar | FILE.tar.gz | FILE.tgz` through
// libarchive's write API. Members are appended one at a time as workers finish them, so the
// archive never has to be held in memory. It writes into a file descriptor the caller opened: the
// caller decides where the bytes go (Batch writes through OutputFile, so a regular file is
// written under a temporary name and renamed once complete, and a device or pipe in place).
// Lives beside ArchiveReader so that one target alone talks to libarchive.

internal import CArchive
import Foundation
import SymbolicateModel

public struct ArchiveWriter: ~Copyable {
    public enum Kind: Sendable {
        case zip, tar, tarGzip

        /// The kind named by a file name's extension, or nil.
        public init?(fileName: String) {
            let lower = fileName.lowercased()
            if lower.hasSuffix(".zip") {
                self = .zip
            } else if lower.hasSuffix(".tar.gz") || lower.hasSuffix(".tgz") {
                self = .tarGzip
            } else if lower.hasSuffix(".tar") {
                self = .tar
            } else {
                return nil
            }
        }
    }

    private let handle: OpaquePointer
    public let destination: String
    private var finished = false

    private static let statusOK: Int32 = 0
    private static let statusWarn: Int32 = -20
    private static let regularFileType: UInt32 = 0o100000

    /// A writer of the archive kind `destination`'s extension names, writing into `fileDescriptor`
    /// (which stays the caller's to close); `destination` names the archive in errors.
    public init(destination: String, fileDescriptor: Int32) throws(SymbolicateError) {
        guard let kind = Kind(fileName: destination) else {
            throw SymbolicateError(
                .badInput, "the output archive must end in .zip, .tar, .tar.gz or .tgz", path: destination)
        }
        if let missing = ArchiveLibrary.missing {
            throw SymbolicateError(.notFound, missing, path: destination)
        }
        guard let handle = carchive_write_new() else {
            throw SymbolicateError(.internal, "cannot allocate an archive writer", path: destination)
        }
        switch kind {
        case .zip:
            carchive_write_set_format_zip(handle)
        case .tar:
            carchive_write_set_format_pax_restricted(handle)
        case .tarGzip:
            carchive_write_set_format_pax_restricted(handle)
            carchive_write_add_filter_gzip(handle)
        }
        guard carchive_write_open_fd(handle, fileDescriptor) == Self.statusOK else {
            let message = Self.message(handle)
            carchive_write_free(handle)
            throw SymbolicateError(.io, "cannot create the output archive: \(message)", path: destination)
        }
        self.handle = handle
        self.destination = destination
    }

    deinit {
        if !finished { carchive_write_free(handle) }
    }

    /// Appends one regular file member.
    public mutating func add(path: String, bytes: [UInt8]) throws(SymbolicateError) {
        try addHeader(path: path, size: Int64(bytes.count))
        try write(bytes[...], member: path)
    }

    /// Appends one regular file member with the contents of the file at `file`, a megabyte at a
    /// time (a 2 GB DWARF file never sits in memory).
    public mutating func add(path: String, file: String) throws(SymbolicateError) {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SymbolicateError.system("cannot open", path: file) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw SymbolicateError.system("cannot read", path: file)
        }
        try addHeader(path: path, size: Int64(status.st_size))
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var left = Int64(status.st_size)
        while left > 0 {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                if n < 0 { throw SymbolicateError.system("cannot read", path: file) }
                throw SymbolicateError(.io, "the file ended early (it changed while it was read)", path: file)
            }
            try write(buffer[0..<n], member: path)
            left -= Int64(n)
        }
    }

    private mutating func write(_ bytes: ArraySlice<UInt8>, member path: String) throws(SymbolicateError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                carchive_write_data(handle, buffer.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            guard written > 0 else {
                throw SymbolicateError(
                    .io, "cannot write \(path) into the output archive: \(Self.message(handle))", path: destination)
            }
            offset += written
        }
    }

    private mutating func addHeader(path: String, size: Int64) throws(SymbolicateError) {
        guard let entry = carchive_entry_new() else {
            throw SymbolicateError(.internal, "cannot allocate an archive entry", path: destination)
        }
        defer { carchive_entry_free(entry) }
        carchive_entry_set_pathname_utf8(entry, path)
        carchive_entry_set_filetype(entry, Self.regularFileType)
        carchive_entry_set_perm(entry, 0o644)
        carchive_entry_set_size(entry, size)
        carchive_entry_set_mtime(entry, time(nil), 0)
        // Names are UTF-8; libarchive converts them through the thread's locale (UTF8Locale).
        let status = UTF8Locale.run { carchive_write_header(handle, entry) }
        guard status == Self.statusOK || status == Self.statusWarn else {
            throw SymbolicateError(
                .io, "cannot add \(path) to the output archive: \(Self.message(handle))", path: destination)
        }
    }

    /// Writes the archive's trailer; the caller then commits or discards its file.
    public mutating func finish() throws(SymbolicateError) {
        finished = true
        let closeStatus = carchive_write_close(handle)
        let message = Self.message(handle)
        carchive_write_free(handle)
        guard closeStatus == Self.statusOK else {
            throw SymbolicateError(.io, "cannot complete the output archive: \(message)", path: destination)
        }
    }

    private static func message(_ handle: OpaquePointer) -> String {
        guard let text = carchive_error_string(handle) else { return "unknown libarchive error" }
        return String(cString: text)
    }
}
