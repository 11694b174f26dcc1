// Going on after damage in a zip. libarchive stops reading an archive for good after a local
// header it cannot parse (a damaged name or extra-field length) or a broken compressed stream:
// its reader's state becomes fatal, and the seekable reader cannot be told to skip an entry.
// Under the `.recoverable` policy the ArchiveReader then opens a new libarchive reader on the
// same file, as a stream, starting at the next local file header, and goes on from there:
//
// - after a damaged header, the next header after the damaged one: the damaged member's own
//   header is the first local header signature at or after the data of the member before it;
// - after damaged data, the first header after the data of the damaged member.
//
// Finding a header is finding its signature (APPNOTE.TXT 4.3.7, `local file header signature`
// 0x04034b50), as libarchive's own streaming reader does when it resynchronizes; everything
// else is still libarchive's parsing. A signature that happens to occur inside compressed data
// starts a reader whose first header fails in turn, and the search moves on past it, so every
// resumption makes progress; at most `maxResumptions` are made for one archive.
// When the zip's central directory adds up, no signature is searched for: reading resumes at
// the local header of the directory's next entry.

internal import CArchive
import Foundation
import SymbolicateModel

extension ArchiveReader {
    enum Resumption {
        /// A header failed; `from` is where the data of the member before it starts.
        case header(from: Int64)
        /// A member's data failed; `from` is where that data starts.
        case data(from: Int64)
        /// At a local header the central directory places (nil: the damaged member was the last).
        case directoryEntry(at: Int64?)
    }

    static let maxResumptions = 1_000

    /// "PK\u{3}\u{4}": the signature's bytes as they stand in the file.
    static let localFileHeaderSignature = withUnsafeBytes(
        of: ContentKind.zipLocalFileHeaderSignature.littleEndian, Array.init)

    /// Arranges for `next` to resume after a failure libarchive cannot go on from; false when
    /// that is not possible (not a zip, a policy that makes damage fatal, too many resumptions).
    /// With a central directory, reading resumes at the directory's next entry instead.
    func scheduleResume(after failure: Resumption) -> Bool {
        guard policy.memberErrors == .recoverable, resumptions < Self.maxResumptions else { return false }
        if let directory = centralDirectory {
            let next = directoryCursor < directory.members.count ? directory.members[directoryCursor].offset : nil
            position = .resuming(.directoryEntry(at: next))
            return true
        }
        guard
            (carchive_format(handle) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_ZIP
        else { return false }
        position = .resuming(failure)
        return true
    }

    /// Replaces the libarchive reader by one that starts at the next local header; false when
    /// there is none (the damaged member was the last).
    func resume(_ resumption: Resumption) throws(ArchiveError) -> Bool {
        resumptions += 1
        let start: Int64?
        switch resumption {
        case .header(let from):
            // The failed header is the first one at or after `from`; resume at the one after it.
            start = Self.localHeader(in: path, from: from).flatMap { Self.localHeader(in: path, from: $0 + 1) }
        case .data(let from):
            start = Self.localHeader(in: path, from: from)
        case .directoryEntry(let at):
            start = at
        }
        guard let start else { return false }
        var descriptor: Int32 = -1
        let a = try Self.openStream(path, at: start, pastEnd: isCutShort ? pastEnd.pointer : nil, into: &descriptor)
        carchive_read_free(handle)
        if streamDescriptor >= 0 { close(streamDescriptor) }
        handle = a
        streamDescriptor = descriptor
        base = start
        lastDataStart = start
        lastDataEnd = start
        return true
    }

    /// An empty end of central directory record (APPNOTE.TXT 4.3.16): what a stream over a zip
    /// that was cut short goes on with after the file's last byte.
    static let emptyEndRecord: [UInt8] =
        withUnsafeBytes(of: ZipCentralDirectory.endOfCentralDirectorySignature.littleEndian, Array.init)
        + [UInt8](repeating: 0, count: ZipCentralDirectory.endOfCentralDirectoryLength - 4)

    /// A libarchive reader of the zip at `path` as a stream from `start`: no seeking, so
    /// libarchive reads local headers one after another. A zip that was cut short (`pastEnd`
    /// given) goes on after its last byte with an empty end record: libarchive reads ahead of a
    /// member's data descriptor (24 bytes, for the next signature) and would otherwise fail the
    /// last whole member before the cut; `pastEnd` says when it has asked for bytes past the end.
    /// `descriptor` receives the file descriptor, the caller's to close.
    static func openStream(
        _ path: String, at start: Int64, pastEnd: UnsafeMutablePointer<Int32>?, into descriptor: inout Int32
    ) throws(ArchiveError) -> OpaquePointer {
        guard let a = carchive_read_new() else {
            throw ArchiveError(.resources, "cannot allocate an archive reader", path: path, fatal: true)
        }
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0, lseek(file, off_t(start), SEEK_SET) == off_t(start) else {
            let reason = Errno.current.description
            if file >= 0 { close(file) }
            carchive_read_free(a)
            throw ArchiveError(.cannotOpen, "cannot open the archive: \(reason)", path: path, fatal: true)
        }
        carchive_read_support_format_zip_streamable(a)
        let status = UTF8Locale.run {
            if let pastEnd {
                carchive_read_open_fd_trailed(a, file, 64 * 1024, emptyEndRecord, emptyEndRecord.count, pastEnd)
            } else {
                carchive_read_open_fd(a, file, 64 * 1024)
            }
        }
        guard status == ARCHIVE_OK else {
            let detail = Self.errorString(a)
            carchive_read_free(a)
            close(file)
            throw ArchiveError(
                .cannotOpen, "cannot open the archive: \(detail)", detail: detail, path: path, fatal: true)
        }
        descriptor = file
        return a
    }

    /// The offset of the first local file header signature at or after `offset`, or nil.
    static func localHeader(in path: String, from offset: Int64) -> Int64? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let signature = localFileHeaderSignature
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var position = offset
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(position)) }
            guard count >= signature.count else { return nil }
            var i = 0
            while i + signature.count <= count {
                if chunk[i] == signature[0], chunk[i + 1] == signature[1], chunk[i + 2] == signature[2],
                    chunk[i + 3] == signature[3]
                {
                    return position + Int64(i)
                }
                i += 1
            }
            // Overlap by three bytes so a signature across two chunks is found.
            position += Int64(count - (signature.count - 1))
        }
    }
}
