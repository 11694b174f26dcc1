// ArchiveReader: the one reader of .zip, .tar (plain, gzip, bzip2, xz, zstd) and cpio archives,
// over libarchive. It iterates the members of an archive file and streams each member's data in
// chunks, so a member of any size is read with a fixed amount of memory and nothing is unpacked
// to disk. C types stay inside this target.
//
// Zips are read through their central directory (libarchive's seekable zip reader, which the
// file's seek callback enables), in the order of their local headers. A zip that does not end
// with its own end record (ZipCentralDirectory.locate: cut short, by an interrupted download or
// copy) is read from its local headers, as a stream, up to the cut, and then ends with a fatal
// `.truncated` error: whatever followed the cut is lost, and nothing else would say so when the
// cut falls between two members. The stream goes on after the file's last byte with an empty end
// record, so that libarchive, which reads ahead of a data descriptor, still reads the last whole
// member before the cut and then finds the end. Whatever fails once libarchive has asked for bytes
// past the file's end, and whatever it reads from there (a header or data cut in two), is the cut:
// never a member, and nothing after it is looked for (a zip stored in the cut member holds local
// headers too). Two zips back to back are read as the first one cut short: loudly, not in silence.
// Where the central directory adds up, each local header is first checked against its entry
// (ZipCentralDirectory): a header whose name disagrees is a damaged header of the member the
// directory names, and the member's size is the directory's.
// libarchive cannot go on after a damaged local header or a broken compressed stream; under the
// `.recoverable` policy the reader then resumes at the next local header (ArchiveReader+Resume),
// so a damaged member fails alone, by name, and every member after it is still read.
// A tar has no directory. A header whose checksum fails is a damaged member, which libarchive
// passes over a block at a time to the next header that reads (under `.recoverable`); a tar that
// ends inside a member, or without its end-of-archive blocks, was cut, and ends with `.truncated`
// as a zip cut short does (`tarEnded`, and the end check in `nextMember`).
//
// Archives come from strangers, so what to do with what is odd in them is the caller's explicit
// `Policy`: member names that climb out of a folder (`..`, absolute paths) are refused (the whole
// archive) or sanitized; a damaged member is fatal or lets the caller go on to the next one; and
// limits against expansion bombs (entry count; uncompressed bytes against the archive's size),
// counted as data is actually read, so a header that lies about its size is caught too.

internal import CArchive
internal import Compression
import Foundation
import SymbolicateModel

public final class ArchiveReader {
    /// Limits against expansion bombs.
    public struct Limits: Sendable {
        public var maxEntries: Int
        /// Uncompressed bytes may reach `expansionRatio` times the archive's size, or
        /// `expansionFloor`, whichever is larger.
        public var expansionRatio: Int64
        public var expansionFloor: Int64

        public init(maxEntries: Int = 100_000, expansionRatio: Int64 = 20, expansionFloor: Int64 = 1 << 30) {
            self.maxEntries = maxEntries
            self.expansionRatio = expansionRatio
            self.expansionFloor = expansionFloor
        }

        /// No limit: for callers that bound each member themselves.
        public static let none = Limits(maxEntries: .max, expansionRatio: 0, expansionFloor: .max)
    }

    public struct Policy: Sendable {
        public enum Names: Sendable {
            /// An unsafe member name refuses the whole archive (`.unsafeName`, fatal).
            case refuseUnsafe
            /// Names are given as `ArchiveNames.sanitize` makes them ("" when nothing is left).
            case sanitize
        }

        public enum MemberErrors: Sendable {
            /// Any damaged member ends the archive.
            case fatal
            /// A damaged member throws a non-fatal error when libarchive can go on after it.
            case recoverable
        }

        public var names: Names
        public var memberErrors: MemberErrors
        public var limits: Limits

        public init(names: Names, memberErrors: MemberErrors, limits: Limits) {
            self.names = names
            self.memberErrors = memberErrors
            self.limits = limits
        }
    }

    public enum EntryType: Sendable { case file, directory, symlink, other }

    public struct Entry: Sendable {
        /// The name, as the policy gives it (refused when unsafe, or sanitized).
        public var name: String
        /// The name as stored in the archive (`member-N` when it cannot be decoded).
        public var storedName: String
        /// The size the header declares, when it declares one.
        public var size: Int64?
        public var type: EntryType
        public var isEncrypted: Bool
    }

    public let path: String
    public let policy: Policy
    var handle: OpaquePointer
    let archiveSize: Int64
    /// The file descriptor of a reader opened as a stream (libarchive does not close it), else -1.
    var streamDescriptor: Int32 = -1
    /// Where in the file the current libarchive reader started (0, or a resumption point).
    var base: Int64 = 0
    /// Where the data of the last member whose header was read starts, in the file.
    var lastDataStart: Int64 = 0
    /// Where the last member whose data was read or skipped to its end ends, in the file.
    var lastDataEnd: Int64 = 0
    /// Where the reader stands between calls, which is what `next` does first.
    var position = Position.atHeader
    var resumptions = 0
    /// A zip's central directory, when it adds up; members are checked against it in order.
    var centralDirectory: ZipCentralDirectory?
    /// True for a zip (a file that begins with a local file header) that does not end with its
    /// own end record: it is read as a stream, up to the cut.
    let isCutShort: Bool
    /// Set by the stream of a zip cut short once libarchive has asked for bytes past the file's
    /// end: whatever fails from then on fails at the cut.
    let pastEnd = CFlag()
    /// A gzip-compressed archive (libarchive does not check the CRC-32 its members end with).
    private let isGzip: Bool
    /// Whether a gzip-compressed archive's checksums have been checked (at its end).
    private var gzipChecked = false
    /// The directory entry of the next local header to be read.
    var directoryCursor = 0
    /// The last member whose header was read, to place a member whose name is lost.
    public private(set) var previousName: String?
    /// Headers read so far (the current member's number, from 1).
    public private(set) var memberIndex = 0
    private var entries = 0
    /// Uncompressed bytes read or skipped so far.
    public private(set) var expandedBytes: Int64 = 0

    /// The reader's state between calls. Each case says what `next` does first.
    enum Position {
        /// Before a member's header: `next` reads it.
        case atHeader
        /// In the data of `entry`, `read` bytes of it so far: `next` skips the rest, then reads
        /// the next header.
        case inMember(Entry, read: Int64)
        /// A damaged tar header was reported and libarchive can go on: the blocks it passes over
        /// until the next header that reads are the damaged member's, not members.
        case passingOverDamage
        /// After a failure libarchive cannot go on from: `next` opens a reader past it first.
        case resuming(Resumption)
        /// The member the archive was cut in has been reported: nothing follows it; `next`
        /// reports the cut itself.
        case cut
        /// Nothing more: the cut was reported, or a fatal error was thrown.
        case ended
    }

    /// The member whose data is being read, if one is.
    private var current: Entry? {
        if case .inMember(let entry, _) = position { return entry }
        return nil
    }

    // archive_entry.h's AE_IFMT, AE_IFREG, AE_IFDIR, AE_IFLNK (casts, so not imported).
    private static let fileTypeMask: UInt32 = 0o170000
    private static let regularFile: UInt32 = 0o100000
    private static let directory: UInt32 = 0o040000
    private static let symbolicLink: UInt32 = 0o120000
    private static let blockSize = 64 * 1024

    public init(path: String, policy: Policy) throws(ArchiveError) {
        self.path = path
        self.policy = policy
        var info = stat()
        archiveSize = stat(path, &info) == 0 ? Int64(info.st_size) : 0
        if let missing = ArchiveLibrary.missing {
            throw ArchiveError(.libraryMissing, missing, path: path, fatal: true)
        }
        let prefix = Self.prefix(of: path, count: 4)
        isGzip = ContentKind.sniff(prefix) == .gzip
        var location: ZipCentralDirectory.Location?
        if prefix == Self.localFileHeaderSignature {
            location = ZipCentralDirectory.locate(path: path)
            isCutShort = location == nil
        } else {
            isCutShort = false
        }
        if isCutShort {
            handle = try Self.openStream(path, at: 0, pastEnd: pastEnd.pointer, into: &streamDescriptor)
            return
        }
        guard let a = carchive_read_new() else {
            throw ArchiveError(.resources, "cannot allocate an archive reader", path: path, fatal: true)
        }
        carchive_read_support_filter_all(a)
        // Seekable and streaming zip readers both; the seekable one wins when the file has a
        // central directory.
        carchive_read_support_format_zip(a)
        carchive_read_support_format_tar(a)
        carchive_read_support_format_gnutar(a)
        carchive_read_support_format_cpio(a)
        let status = UTF8Locale.run { carchive_read_open_filename(a, path, Self.blockSize) }
        guard status == ARCHIVE_OK else {
            let detail = Self.errorString(a)
            carchive_read_free(a)
            throw ArchiveError(
                .cannotOpen, "cannot open the archive: \(detail)", detail: detail, path: path, fatal: true)
        }
        handle = a
        if let location { centralDirectory = ZipCentralDirectory.read(path: path, at: location) }
    }

    /// The first `count` bytes of the file (fewer when it is shorter or cannot be read).
    private static func prefix(of path: String, count: Int) -> [UInt8] {
        guard let file = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? file.close() }
        return (try? file.read(upToCount: count)).map { [UInt8]($0) } ?? []
    }

    deinit {
        carchive_read_free(handle)
        if streamDescriptor >= 0 { close(streamDescriptor) }
    }

    /// True for the first bytes of a zip, a tar, or a gzip / bzip2 / xz / zstd stream.
    public static func looksLikeArchive(prefix p: [UInt8]) -> Bool {
        ContentKind.sniff(p)?.isArchive ?? false
    }

    /// Largest number of uncompressed bytes this archive may expand to.
    public var expansionLimit: Int64 {
        let limits = policy.limits
        return max(
            limits.expansionFloor, archiveSize.multipliedReportingOverflow(by: limits.expansionRatio).partialValue)
    }

    /// Compressed bytes consumed so far (for progress).
    public var compressedBytesRead: Int64 { min(archiveSize, base + carchive_filter_bytes(handle, -1)) }
    /// The archive file's size.
    public var compressedBytesTotal: Int64 { archiveSize }

    /// The next member, or nil at the end. Skips what is left of the previous member's data.
    /// A damaged header throws; the error says whether `next` may be called again. A zip that
    /// ends without its central directory throws `.truncated` (fatal) at its end, after every
    /// member before the cut.
    public func next() throws(ArchiveError) -> Entry? {
        if case .ended = position { return nil }
        let wasCut: Bool
        if case .cut = position { wasCut = true } else { wasCut = false }
        if let entry = try nextMember() { return entry }
        if isCutShort || wasCut { throw truncation(membersRead: memberIndex - 1) }
        return nil
    }

    /// A zip without its end record, or a tar without its end-of-archive blocks: the file was cut.
    private func truncation(membersRead: Int) -> ArchiveError {
        position = .ended
        let end =
            isTar ? "the tar ends without its end-of-archive blocks" : "the zip ends without its central directory"
        return ArchiveError(
            .truncated,
            "\(end): it was cut short (an interrupted download or copy?), after \(membersRead) whole "
                + "\(membersRead == 1 ? "member" : "members"); any after the cut are missing",
            path: path, fatal: true)
    }

    /// A tar's block: its headers, its members' padded data and its end-of-archive marker (two
    /// zero blocks) come in these.
    private static let tarBlock: Int64 = 512

    /// True when libarchive reads the file as a tar (ustar, pax, GNU). A tar has no directory:
    /// only its end-of-archive marker tells a whole tar from one cut at a member's end, which
    /// libarchive reads to the cut as if it were whole. Reading the marker consumes at least one
    /// block, where an end of file at a member's end consumes at most that member's padding.
    private var isTar: Bool {
        (carchive_format(handle) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR
    }

    /// True when a tar's header or data failed, for good, because the file ended: libarchive
    /// fails that way only once it has consumed every byte of the file (a compressed tar's
    /// decompressor ran out of input), or, for a header, when less than a block is left of it.
    /// Damage in a whole tar fails earlier, or (a header) in a way libarchive can go on from.
    private func tarEnded(status: Int32, header: Bool) -> Bool {
        guard isTar, status == ARCHIVE_FATAL else { return false }
        return base + carchive_filter_bytes(handle, -1) + (header ? Self.tarBlock : 1) > archiveSize
    }

    private func nextMember() throws(ArchiveError) -> Entry? {
        if current != nil { try skipRest() }
        var passingOverDamage = false
        switch position {
        case .cut, .ended: return nil
        case .resuming(let resumption):
            position = .atHeader
            guard try resume(resumption) else { return nil }
        case .passingOverDamage:
            position = .atHeader
            passingOverDamage = true
        case .atHeader, .inMember: break
        }
        var expected: ZipCentralDirectory.Member?
        if let directory = centralDirectory {
            guard directoryCursor < directory.members.count else { return nil }
            let member = directory.members[directoryCursor]
            directoryCursor += 1
            if let problem = ZipCentralDirectory.localHeaderProblem(of: member, in: path) {
                // libarchive would read the wrong name (and data for it): the member is not
                // given to libarchive at all, and reading resumes at the next directory entry.
                memberIndex += 1
                let recoverable = scheduleResume(after: .header(from: member.offset))
                try fail(
                    .damagedHeader, "damaged header of member \(memberIndex): \(problem)", detail: problem,
                    member: member.name, recoverable: recoverable)
            }
            expected = member
        }
        var entryPointer: OpaquePointer?
        var consumedBefore = carchive_filter_bytes(handle, 0)
        var status = UTF8Locale.run { carchive_read_next_header(handle, &entryPointer) }
        // Each retry consumes what it rejected (a tar's reader, a block); one that does not would
        // never end, so it ends the passing over.
        while status == ARCHIVE_RETRY && passingOverDamage && carchive_filter_bytes(handle, 0) > consumedBefore {
            consumedBefore = carchive_filter_bytes(handle, 0)
            status = UTF8Locale.run { carchive_read_next_header(handle, &entryPointer) }
        }
        memberIndex += 1
        if status == ARCHIVE_EOF {
            if isTar, memberIndex > 1, carchive_filter_bytes(handle, 0) - consumedBefore < Self.tarBlock {
                throw truncation(membersRead: memberIndex - 1)
            }
            try checkGzipAtTheEnd()
            return nil
        }
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let e = entryPointer else {
            let detail = Self.errorString(handle)
            // No header can be read where the file was cut (libarchive finds none, or half of one):
            // that is the cut, not damage, when libarchive asked for bytes past the end, or when no
            // local header follows the one that failed (the first after the member before it).
            if isCutShort,
                pastEnd.isSet
                    || Self.localHeader(in: path, from: failedHeaderSearch).flatMap({
                        Self.localHeader(in: path, from: $0 + 1)
                    }) == nil
            {
                throw truncation(membersRead: memberIndex - 1)
            }
            if tarEnded(status: status, header: true) { throw truncation(membersRead: memberIndex - 1) }
            if status == ARCHIVE_RETRY {
                // A header libarchive rejects (a tar's checksum) and can go on from, a block at a
                // time, to the next header that reads; not when the retry consumed nothing.
                let progressed = carchive_filter_bytes(handle, 0) > consumedBefore
                if progressed && policy.memberErrors == .recoverable { position = .passingOverDamage }
                try fail(
                    .damagedHeader, "damaged header of member \(memberIndex): \(detail)", detail: detail,
                    member: expected?.name, recoverable: progressed)
            }
            if status == ARCHIVE_FAILED || scheduleResume(after: .header(from: failedHeaderSearch)) {
                try fail(
                    .damagedHeader, "damaged header of member \(memberIndex): \(detail)", detail: detail,
                    member: expected?.name, recoverable: true)
            }
            let what = memberIndex == 1 ? "not a readable archive" : "cannot read past member \(memberIndex - 1)"
            try fail(.damagedHeader, "\(what): \(detail)", detail: detail, recoverable: false)
        }
        lastDataStart = base + carchive_filter_bytes(handle, 0)
        // A header that ends past the file's last byte was read from the cut and what the stream
        // adds after it: not a member.
        if isCutShort, lastDataStart > archiveSize { throw truncation(membersRead: memberIndex - 1) }
        if let member = expected, let directory = centralDirectory {
            // The header libarchive read must be the one checked; when it is not (the archive
            // holds headers the directory does not list), the directory is no longer followed.
            let nextOffset =
                directoryCursor < directory.members.count ? directory.members[directoryCursor].offset : Int64.max
            let headerEnd = member.offset + Int64(ZipCentralDirectory.localFileHeaderLength + member.nameBytes.count)
            if lastDataStart < headerEnd || lastDataStart > nextOffset {
                centralDirectory = nil
                expected = nil
            }
        }
        entries += 1
        guard entries <= policy.limits.maxEntries else {
            throw ArchiveError(
                .tooManyEntries,
                "the archive has more than \(policy.limits.maxEntries) entries; refusing it as an expansion bomb",
                path: path, fatal: true)
        }
        let stored = UTF8Locale.run { Self.name(e) } ?? "member-\(memberIndex)"
        let name: String
        switch policy.names {
        case .refuseUnsafe:
            guard ArchiveNames.isSafe(stored) else {
                throw ArchiveError(
                    .unsafeName, "the archive holds an entry with an unsafe path (\(stored)); refusing the archive",
                    path: path, member: stored, fatal: true)
            }
            name = stored
        case .sanitize:
            name = ArchiveNames.sanitize(stored) ?? ""
        }
        let size: Int64? =
            expected?.uncompressedSize ?? (carchive_entry_size_is_set(e) != 0 ? carchive_entry_size(e) : nil)
        let type: EntryType
        switch UInt32(carchive_entry_filetype(e)) & Self.fileTypeMask {
        case Self.regularFile: type = .file
        case Self.directory: type = .directory
        case Self.symbolicLink: type = .symlink
        default: type = .other
        }
        previousName = stored
        if let size, size > 0 { try account(size, member: stored) }
        let entry = Entry(
            name: name, storedName: stored, size: size, type: type, isEncrypted: carchive_entry_is_encrypted(e) > 0)
        position = .inMember(entry, read: 0)
        return entry
    }

    /// Reads up to `buffer.count` bytes of the current member's data; 0 at its end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        guard case .inMember(let entry, let readSoFar) = position, let base = buffer.baseAddress else { return 0 }
        let n = carchive_read_data(handle, base, buffer.count)
        guard n >= 0 else {
            position = .atHeader
            let detail = Self.errorString(handle)
            let status = Int32(truncatingIfNeeded: n)
            try failData(
                of: entry, "damaged data: \(detail)", detail: detail, atTheCut: tarEnded(status: status, header: false),
                recoverable: status != ARCHIVE_FATAL || scheduleResume(after: .data(from: lastDataStart)))
        }
        if n == 0 {
            lastDataEnd = self.base + carchive_filter_bytes(handle, 0)
            // Data that ends past the file's last byte was read from the cut and what the stream
            // adds after it.
            if isCutShort, lastDataEnd > archiveSize {
                position = .atHeader
                try failData(of: entry, "damaged data", detail: "", atTheCut: false, recoverable: true)
            }
            return 0
        }
        let currentRead = readSoFar + Int64(n)
        position = .inMember(entry, read: currentRead)
        // Data beyond what the header declared counts now; declared bytes were counted already.
        if currentRead > (entry.size ?? 0) {
            let extra = min(Int64(n), currentRead - (entry.size ?? 0))
            try account(extra, member: entry.storedName)
        }
        return n
    }

    /// At the end of a gzip-compressed archive, its members' CRC-32 and lengths, which libarchive
    /// passes over: a gzip stream damaged in transit or on disk can inflate without an error, and
    /// its members would be read with damaged bytes and nothing to say so. The file is inflated a
    /// second time to check them, once, when the archive has been read to its end.
    private func checkGzipAtTheEnd() throws(ArchiveError) {
        guard isGzip, !gzipChecked else { return }
        gzipChecked = true
        guard let problem = Zlib.gzipFileProblem(atPath: path) else { return }
        throw ArchiveError(
            .damagedData,
            "the archive's gzip data is damaged (\(problem)): the members read from it may hold damaged bytes",
            detail: "gzip check failed: \(problem)", path: path, fatal: true)
    }

    /// The current member's data, at most `limit` bytes; longer members throw `.memberTooLarge`
    /// (not fatal: the next member can still be read).
    public func readAll(limit: Int) throws(ArchiveError) -> [UInt8] {
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let n = try read(into: chunk)
            if n == 0 { return bytes }
            guard bytes.count + n <= limit else {
                throw ArchiveError(
                    .memberTooLarge, "larger than the \(limit >> 20) MiB limit for one member", path: path,
                    member: current?.storedName, fatal: false)
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
        }
    }

    /// Where to look for a header that failed: it follows the data of the member before it, which
    /// ends at `lastDataEnd` when that data was read to its end (a local header signature inside
    /// that data is not the failed header), and else starts at `lastDataStart`.
    private var failedHeaderSearch: Int64 { max(lastDataStart, lastDataEnd) }

    /// Skips the rest of the current member, counting the bytes a header did not declare.
    private func skipRest() throws(ArchiveError) {
        guard let entry = current else { return }
        if entry.size != nil {
            position = .atHeader
            let status = carchive_read_data_skip(handle)
            guard status == ARCHIVE_OK else {
                let detail = Self.errorString(handle)
                try failData(
                    of: entry, "damaged data: \(detail)", detail: detail,
                    atTheCut: tarEnded(status: status, header: false),
                    recoverable: status != ARCHIVE_FATAL || scheduleResume(after: .data(from: lastDataStart)))
            }
            lastDataEnd = base + carchive_filter_bytes(handle, 0)
            return
        }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 1)
        defer { scratch.deallocate() }
        while try read(into: scratch) > 0 {}
        if current != nil { position = .atHeader }
    }

    private func account(_ bytes: Int64, member: String) throws(ArchiveError) {
        expandedBytes += bytes
        let limit = expansionLimit
        guard expandedBytes <= limit else {
            let limits = policy.limits
            let rule =
                limit == limits.expansionFloor
                ? "the floor for any archive; \(limits.expansionRatio) times its \(archiveSize) bytes is less"
                : "\(limits.expansionRatio) times its \(archiveSize) bytes"
            throw ArchiveError(
                .expansionBomb,
                "the archive expands to more than \(limit) bytes (\(rule)) at \(member); refusing it as an expansion bomb",
                path: path, member: member, fatal: true)
        }
    }

    /// Throws a damaged-data error for `entry`. A member whose data failed at the cut (in a zip
    /// cut short, once libarchive asked for bytes past the file's end; in a tar, `atTheCut`) is
    /// the member the cut falls in: nothing after it is read (a local header inside its data, of
    /// a zip stored in it, is no member), and a policy that makes damage fatal hears of the cut
    /// itself, not of data that fails to decode.
    private func failData(
        of entry: Entry, _ message: String, detail: String, atTheCut: Bool, recoverable: @autoclosure () -> Bool
    ) throws(ArchiveError) -> Never {
        if atTheCut || (isCutShort && pastEnd.isSet) {
            position = .cut
            if policy.memberErrors == .fatal { throw truncation(membersRead: memberIndex - 1) }
            try fail(
                .damagedData, "cut short inside its data", detail: detail, member: entry.storedName, recoverable: true)
        }
        try fail(.damagedData, message, detail: detail, member: entry.storedName, recoverable: recoverable())
    }

    /// Throws a damaged-member error, fatal unless libarchive can go on and the policy lets it.
    private func fail(
        _ code: ArchiveError.Code, _ message: String, detail: String, member: String? = nil, recoverable: Bool
    ) throws(ArchiveError) -> Never {
        let fatal = !(recoverable && policy.memberErrors == .recoverable)
        if fatal { position = .ended }
        var error = ArchiveError(code, message, detail: detail, path: path, member: member, fatal: fatal)
        error.memberIndex = memberIndex
        error.previousMember = previousName
        throw error
    }

    /// The member's name as UTF-8 (libarchive converts through the thread's locale, hence
    /// UTF8Locale), else as stored (invalid UTF-8 is repaired, never trapped on).
    private static func name(_ entry: OpaquePointer) -> String? {
        if let utf8 = carchive_entry_pathname_utf8(entry) { return String(cString: utf8) }
        if let raw = carchive_entry_pathname(entry) { return String(cString: raw) }
        return nil
    }

    static func errorString(_ handle: OpaquePointer) -> String {
        carchive_error_string(handle).map { String(cString: $0) } ?? "unknown libarchive error"
    }
}

/// One C int that outlives the libarchive readers that write it.
final class CFlag {
    let pointer = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    init() { pointer.initialize(to: 0) }

    deinit { pointer.deallocate() }

    var isSet: Bool { pointer.pointee != 0 }
}
