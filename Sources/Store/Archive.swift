// ArchiveReader: the one place the store talks to libarchive. Iterates the entries of a .zip or a
// .tar (plain, gzip, bzip2, xz or zstd) from a path, giving each entry's name, declared size and
// type, and streams its data in chunks so a 2 GB dSYM member never has to fit in memory.
//
// Archives come from users and may be hostile. An entry named with `..` or an absolute path is
// refused (we never extract by name, but such an archive is not one we should trust), and so is
// an expansion bomb: more than `maxEntries` entries, or more uncompressed bytes than both
// `expansionRatio` times the archive's size and `expansionFloor`. Sizes are counted as data is
// actually read, so a header that lies about its size is caught too.

internal import CArchive
import Foundation
import SymbolicateModel

final class ArchiveReader {
    struct Limits: Sendable {
        var maxEntries = 100_000
        var expansionRatio: Int64 = 20
        var expansionFloor: Int64 = 1 << 30
        /// Members up to this size are read into memory; larger ones are spooled to a file.
        var memberMemoryLimit = 16 << 20
    }

    enum EntryType: Sendable { case file, directory, symlink, other }

    struct Entry: Sendable {
        var name: String
        /// The size the header declares, when it declares one.
        var size: Int64?
        var type: EntryType
    }

    let path: String
    private let handle: OpaquePointer
    private let limits: Limits
    private let archiveSize: Int64
    private var entries = 0
    /// Uncompressed bytes read or skipped so far.
    private(set) var expandedBytes: Int64 = 0
    private var current: Entry?
    private var currentRead: Int64 = 0

    init(path: String, limits: Limits = Limits()) throws {
        self.path = path
        self.limits = limits
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        archiveSize = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        guard let a = archive_read_new() else {
            throw SymbolicateError(.internal, "libarchive could not allocate a reader", path: path)
        }
        handle = a
        archive_read_support_filter_all(a)
        archive_read_support_format_zip(a)
        archive_read_support_format_tar(a)
        if archive_read_open_filename(a, path, 64 * 1024) != ARCHIVE_OK {
            throw failure("cannot open the archive")
        }
    }

    deinit { archive_read_free(handle) }

    /// True for the first bytes of a zip, a tar, or a gzip / bzip2 / xz / zstd stream.
    static func looksLikeArchive(prefix p: [UInt8]) -> Bool {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            p.count >= offset + magic.count && p[offset..<offset + magic.count].elementsEqual(magic)
        }
        return starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) || starts([0x50, 0x4B, 0x07, 0x08])
            || starts([0x1F, 0x8B]) || starts([0x42, 0x5A, 0x68]) || starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00])
            || starts([0x28, 0xB5, 0x2F, 0xFD]) || starts(Array("ustar".utf8), at: 257)
    }

    /// Largest number of uncompressed bytes this archive may expand to.
    var expansionLimit: Int64 {
        max(limits.expansionFloor, archiveSize.multipliedReportingOverflow(by: limits.expansionRatio).partialValue)
    }

    /// Compressed bytes consumed so far (for progress).
    var compressedBytesRead: Int64 { archive_filter_bytes(handle, -1) }
    var compressedBytesTotal: Int64 { archiveSize }

    /// The next entry, or nil at the end. Skips what is left of the previous entry's data.
    func next() throws -> Entry? {
        if current != nil { try skipRest() }
        var entryPointer: OpaquePointer?
        let rc = archive_read_next_header(handle, &entryPointer)
        if rc == ARCHIVE_EOF { return nil }
        guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN, let e = entryPointer else {
            throw failure("the archive is damaged")
        }
        entries += 1
        guard entries <= limits.maxEntries else {
            throw SymbolicateError(
                .limit, "the archive has more than \(limits.maxEntries) entries; refusing it as an expansion bomb",
                path: path)
        }
        let name = archive_entry_pathname_utf8(e).map { String(cString: $0) }
            ?? archive_entry_pathname(e).map { String(cString: $0) } ?? ""
        try ArchiveReader.checkName(name, archive: path)
        let size: Int64? = archive_entry_size_is_set(e) != 0 ? archive_entry_size(e) : nil
        let type: EntryType
        switch UInt32(archive_entry_filetype(e)) & 0o170000 {
        case 0o100000: type = .file
        case 0o040000: type = .directory
        case 0o120000: type = .symlink
        default: type = .other
        }
        if let size, size > 0 { try account(declared: size, name: name) }
        let entry = Entry(name: name, size: size, type: type)
        current = entry
        currentRead = 0
        return entry
    }

    /// Reads up to `buffer.count` bytes of the current entry's data; 0 at its end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let entry = current, let base = buffer.baseAddress else { return 0 }
        let n = archive_read_data(handle, base, buffer.count)
        guard n >= 0 else { throw failure("the archive is damaged in \(entry.name)") }
        currentRead += Int64(n)
        // Data beyond what the header declared counts now; declared bytes were counted already.
        if currentRead > (entry.size ?? 0) {
            let extra = min(Int64(n), currentRead - (entry.size ?? 0))
            try account(declared: extra, name: entry.name)
        }
        return n
    }

    /// Skips the rest of the current entry, counting the bytes a header did not declare.
    private func skipRest() throws {
        guard let entry = current else { return }
        current = nil
        if entry.size != nil {
            guard archive_read_data_skip(handle) == ARCHIVE_OK else {
                throw failure("the archive is damaged in \(entry.name)")
            }
            return
        }
        current = entry
        defer { current = nil }
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while try scratch.withUnsafeMutableBytes({ try read(into: $0) }) > 0 {}
    }

    private func account(declared bytes: Int64, name: String) throws {
        expandedBytes += bytes
        guard expandedBytes <= expansionLimit else {
            throw SymbolicateError(
                .limit,
                "the archive expands to more than \(expansionLimit) bytes (\(limits.expansionRatio)x its size) "
                    + "at \(name); refusing it as an expansion bomb",
                path: path)
        }
    }

    /// Refuses names that would climb out of an extraction folder.
    static func checkName(_ name: String, archive: String) throws {
        let parts = name.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        if name.hasPrefix("/") || name.hasPrefix("\\") || parts.contains("..") || name.contains("\0")
            || (name.count >= 2 && name.dropFirst().first == ":" && name.first?.isLetter == true)
        {
            throw SymbolicateError(
                .badInput, "the archive holds an entry with an unsafe path (\(name)); refusing the archive",
                path: archive)
        }
    }

    private func failure(_ what: String) -> SymbolicateError {
        let detail = archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
        return SymbolicateError(.badInput, "\(what): \(detail)", path: path)
    }
}
