// ArchiveReader: streams the members of a .zip, .tar, .tar.gz or .tgz through libarchive, one
// member at a time, so an archive of any size is read with a fixed amount of memory and never
// unpacked to disk. It is the only Batch file that touches libarchive's read API; C types stay
// inside it. Zip is read in streaming mode (local headers, not the central directory), which
// keeps memory flat even for archives of millions of members.
//
// libarchive's results map to three outcomes: a member (possibly with a warning), a member
// that failed but after which reading can go on (ARCHIVE_FAILED / ARCHIVE_WARN on data), and a
// fatal error after which nothing more can be read from this archive.

internal import CArchive
import SymbolicateModel

/// One member's header, as read from the archive.
struct ArchiveMember: Sendable {
    /// The member's path as stored (not yet sanitized).
    var path: String
    var isRegularFile: Bool
    var isEncrypted: Bool
    /// The size the header states, when it states one.
    var declaredSize: Int64?
}

/// A failure reading an archive: `fatal` means the rest of the archive cannot be read.
struct ArchiveReadError: Error, Sendable, CustomStringConvertible {
    var message: String
    var fatal: Bool
    var description: String { message }
}

struct ArchiveReader: ~Copyable {
    private let handle: OpaquePointer
    let path: String
    private var memberIndex = 0

    // libarchive status codes (archive.h); the macros do not import into Swift.
    private static let statusEOF: Int32 = 1
    private static let statusOK: Int32 = 0
    private static let statusRetry: Int32 = -10
    private static let statusWarn: Int32 = -20
    private static let statusFailed: Int32 = -25
    private static let statusFatal: Int32 = -30
    private static let regularFileType: UInt32 = 0o100000

    init(path: String) throws(ArchiveReadError) {
        guard let handle = archive_read_new() else {
            throw ArchiveReadError(message: "cannot allocate an archive reader", fatal: true)
        }
        archive_read_support_filter_all(handle)
        archive_read_support_format_tar(handle)
        archive_read_support_format_gnutar(handle)
        archive_read_support_format_zip_streamable(handle)
        archive_read_support_format_cpio(handle)
        guard archive_read_open_filename(handle, path, 1 << 16) == Self.statusOK else {
            let message = Self.message(handle)
            archive_read_free(handle)
            throw ArchiveReadError(message: "cannot open the archive: \(message)", fatal: true)
        }
        self.handle = handle
        self.path = path
    }

    deinit {
        archive_read_free(handle)
    }

    /// Bytes of the archive file consumed so far (compressed), for progress.
    var bytesConsumed: Int64 {
        archive_filter_bytes(handle, -1)
    }

    /// The next member; nil at the end. A member whose header is damaged but after which the
    /// archive goes on throws a non-fatal error; the caller may call `next` again.
    mutating func next() throws(ArchiveReadError) -> ArchiveMember? {
        var entry: OpaquePointer? = nil
        var status = archive_read_next_header(handle, &entry)
        var retries = 0
        while status == Self.statusRetry && retries < 3 {
            status = archive_read_next_header(handle, &entry)
            retries += 1
        }
        memberIndex += 1
        switch status {
        case Self.statusEOF:
            return nil
        case Self.statusOK, Self.statusWarn:
            guard let entry else { throw ArchiveReadError(message: "member header without an entry", fatal: true) }
            return member(entry)
        case Self.statusFailed:
            throw ArchiveReadError(message: "damaged header of member \(memberIndex): \(Self.message(handle))", fatal: false)
        default:
            let what = memberIndex == 1 ? "not a readable archive" : "cannot read past member \(memberIndex - 1)"
            throw ArchiveReadError(message: "\(what): \(Self.message(handle))", fatal: true)
        }
    }

    /// The current member's bytes, at most `limit` of them. Throws when the data is damaged
    /// (fatal when the archive cannot go on) or longer than `limit` (not fatal).
    mutating func readData(limit: Int) throws(ArchiveReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { buffer in
                archive_read_data(handle, buffer.baseAddress, buffer.count)
            }
            if n == 0 { return bytes }
            if n < 0 {
                let fatal = Int32(truncatingIfNeeded: n) == Self.statusFatal
                throw ArchiveReadError(message: "damaged data: \(Self.message(handle))", fatal: fatal)
            }
            let count = min(n, chunk.count)
            guard bytes.count + count <= limit else {
                throw ArchiveReadError(message: "larger than the \(limit >> 20) MiB limit for one report", fatal: false)
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    private func member(_ entry: OpaquePointer) -> ArchiveMember {
        var name: String? = nil
        if let utf8 = archive_entry_pathname_utf8(entry) {
            name = String(cString: utf8)
        } else if let raw = archive_entry_pathname(entry) {
            name = String(cString: raw)  // invalid UTF-8 is repaired, never trapped on
        }
        let size: Int64? = archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : nil
        return ArchiveMember(
            path: name ?? "member-\(memberIndex)",
            isRegularFile: UInt32(archive_entry_filetype(entry)) == Self.regularFileType,
            isEncrypted: archive_entry_is_encrypted(entry) > 0,
            declaredSize: size)
    }

    private static func message(_ handle: OpaquePointer) -> String {
        guard let text = archive_error_string(handle) else { return "unknown libarchive error" }
        return String(cString: text)
    }
}
