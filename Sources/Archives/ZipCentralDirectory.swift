// ZipCentralDirectory: the names, sizes and local-header offsets a zip's central directory
// gives its members, so that a member whose local header is damaged is still named by what the
// directory says, and a local header that disagrees with its directory entry is caught before
// libarchive reads a wrong name (and takes compressed bytes for part of it). This is an index
// of the directory only: libarchive still parses every header it reads and all the data.
//
// Records and fields by APPNOTE.TXT's names: the end of central directory record (4.3.16), the
// Zip64 end of central directory locator and record (4.3.15, 4.3.14), central directory file
// headers (4.3.12) with the Zip64 extended information extra field (4.5.3), and local file
// headers (4.3.7). Every read is bounds-checked. `locate` decides whether the file ends with its
// own end record at all (a zip that does not was cut short); a directory that does not add up is
// not used (nil), and the reader then trusts libarchive alone.

import Foundation
import SymbolicateModel

struct ZipCentralDirectory {
    struct Member {
        /// Offset of the member's local file header in the file.
        var offset: Int64
        var nameBytes: [UInt8]
        /// The name as UTF-8 (invalid bytes repaired), for naming a member whose header is damaged.
        var name: String
        var uncompressedSize: Int64
    }

    /// Members in the order of their local headers (as libarchive's seekable reader visits them),
    /// one per offset.
    let members: [Member]

    static let endOfCentralDirectorySignature = ContentKind.zipEndOfCentralDirectorySignature
    static let zip64EndOfCentralDirectoryLocatorSignature: UInt32 = 0x0706_4B50
    static let zip64EndOfCentralDirectorySignature: UInt32 = 0x0606_4B50
    static let centralFileHeaderSignature: UInt32 = 0x0201_4B50
    static let localFileHeaderSignature = ContentKind.zipLocalFileHeaderSignature
    static let zip64ExtendedInformationID: UInt16 = 0x0001
    static let endOfCentralDirectoryLength = 22
    static let zip64LocatorLength = 20
    static let zip64EndOfCentralDirectoryLength = 56
    static let centralFileHeaderLength = 46
    static let localFileHeaderLength = 30
    static let maxCommentLength = 0xFFFF
    /// A larger directory is not read into memory (libarchive alone reads such an archive).
    static let maxDirectoryBytes: Int64 = 256 << 20

    /// Where a zip's central directory lies, as its end records give it.
    struct Location {
        var size: Int64
        var offset: Int64
    }

    /// The central directory of the zip at `path`, which begins with a local header (nothing comes
    /// before the zip), as the end of the file places it: nil when the file does not end with its
    /// zip's end record. That is a zip cut short (an interrupted download or copy), even when the
    /// cut leaves an end record of something else near the end of the file: one of a zip stored
    /// inside it, or the record's signature inside compressed data. The end record is the last
    /// signature whose record and comment fit in the file, with no other zip record after its
    /// comment (a second zip appended to the first is not this zip's end). It is the file's own
    /// only when its directory (and zip64 end records, when a zip64 locator stands right before
    /// it) lie right before it, where its offsets say: the directory's offset plus size is where
    /// the record (or the zip64 end record) begins, and the directory, unless empty, begins with a
    /// central file header. libarchive's seekable reader checks much less (the last signature in
    /// the last 16 KiB whose directory ends before it), and would read an inner zip's directory as
    /// the file's.
    static func locate(path: String) -> Location? {
        withFile(path) { descriptor, fileSize in locate(descriptor, fileSize: fileSize) }
    }

    private static func locate(_ descriptor: Int32, fileSize: Int64) -> Location? {
        let tailLength = Int(min(fileSize, Int64(endOfCentralDirectoryLength + maxCommentLength)))
        guard tailLength >= endOfCentralDirectoryLength,
            let tail = pread(descriptor, count: tailLength, at: fileSize - Int64(tailLength))
        else { return nil }
        var end = tail.count - endOfCentralDirectoryLength
        while end >= 0 {
            if tail.u32(end) == endOfCentralDirectorySignature, let commentLength = tail.u16(end + 20),
                end + endOfCentralDirectoryLength + Int(commentLength) <= tail.count
            {
                let after = end + endOfCentralDirectoryLength + Int(commentLength)
                guard !holdsZipRecord(tail[after...]) else { return nil }
                let recordAt = fileSize - Int64(tail.count - end)
                return directory(endingAt: recordAt, record: Array(tail[end...]), descriptor)
            }
            end -= 1
        }
        return nil
    }

    /// Whether `bytes` hold the signature of a zip header or record ("PK" and 1 2, 3 4, 5 6, 6 6,
    /// 6 7 or 7 8).
    private static func holdsZipRecord(_ bytes: ArraySlice<UInt8>) -> Bool {
        let kinds: Set<[UInt8]> = [[1, 2], [3, 4], [5, 6], [6, 6], [6, 7], [7, 8]]
        var i = bytes.startIndex
        while i + 4 <= bytes.endIndex {
            if bytes[i] == 0x50, bytes[i + 1] == 0x4B, kinds.contains([bytes[i + 2], bytes[i + 3]]) { return true }
            i += 1
        }
        return false
    }

    /// The directory the end record at `recordAt` describes, when it lies right before it. A zip64
    /// locator right before the record makes it a zip64 zip, whatever the record's 32-bit fields
    /// hold (Info-ZIP writing to a pipe leaves them real; 65,535 members without zip64 count
    /// 0xFFFF), as libarchive decides.
    private static func directory(endingAt recordAt: Int64, record: [UInt8], _ descriptor: Int32) -> Location? {
        guard let size32 = record.u32(12), let offset32 = record.u32(16) else { return nil }
        var size = Int64(size32)
        var offset = Int64(offset32)
        var directoryEnd = recordAt
        let locatorAt = recordAt - Int64(zip64LocatorLength)
        if locatorAt >= 0, let locator = pread(descriptor, count: zip64LocatorLength, at: locatorAt),
            locator.u32(0) == zip64EndOfCentralDirectoryLocatorSignature
        {
            // Zip64: the zip64 record right before the locator.
            guard let zip64At = locator.u64(8),
                zip64At >= 0, zip64At <= locatorAt - Int64(zip64EndOfCentralDirectoryLength),
                let zip64 = pread(descriptor, count: zip64EndOfCentralDirectoryLength, at: zip64At),
                zip64.u32(0) == zip64EndOfCentralDirectorySignature, let recordSize = zip64.u64(4),
                recordSize <= locatorAt, zip64At + 12 + recordSize == locatorAt, let s = zip64.u64(40),
                let o = zip64.u64(48)
            else { return nil }
            (size, offset, directoryEnd) = (s, o, zip64At)
        }
        guard size >= 0, offset >= 0, size <= directoryEnd, offset == directoryEnd - size else { return nil }
        if size > 0 {
            guard let signature = pread(descriptor, count: 4, at: offset),
                signature.u32(0) == centralFileHeaderSignature
            else { return nil }
        }
        return Location(size: size, offset: offset)
    }

    /// The members the directory at `location` lists, or nil when it does not add up. The
    /// directory is read to its end, as libarchive reads it: the end record's entry counts are
    /// not what lists the members.
    static func read(path: String, at location: Location) -> ZipCentralDirectory? {
        withFile(path) { descriptor, fileSize in read(descriptor, fileSize: fileSize, at: location) }
    }

    private static func read(_ descriptor: Int32, fileSize: Int64, at location: Location) -> ZipCentralDirectory? {
        let (size, offset) = (location.size, location.offset)
        guard size <= maxDirectoryBytes, offset <= fileSize - size else { return nil }
        guard let directory = pread(descriptor, count: Int(size), at: offset) else { return nil }
        var members: [Member] = []
        var at = 0
        while at < directory.count {
            guard directory.u32(at) == centralFileHeaderSignature, let compressed32 = directory.u32(at + 20),
                let uncompressed32 = directory.u32(at + 24), let nameLength = directory.u16(at + 28),
                let extraLength = directory.u16(at + 30), let commentLength = directory.u16(at + 32),
                let local32 = directory.u32(at + 42)
            else { return nil }
            let nameStart = at + centralFileHeaderLength
            let extraStart = nameStart + Int(nameLength)
            let next = extraStart + Int(extraLength) + Int(commentLength)
            guard next <= directory.count else { return nil }
            var uncompressed = Int64(uncompressed32)
            var local = Int64(local32)
            // Zip64 extended information: only the fields whose 32-bit value is 0xFFFFFFFF, in order.
            var field = extraStart
            while field + 4 <= extraStart + Int(extraLength), let id = directory.u16(field),
                let length = directory.u16(field + 2)
            {
                if id == zip64ExtendedInformationID {
                    var value = field + 4
                    if uncompressed32 == 0xFFFF_FFFF, let v = directory.u64(value) {
                        (uncompressed, value) = (v, value + 8)
                    }
                    if compressed32 == 0xFFFF_FFFF { value += 8 }
                    if local32 == 0xFFFF_FFFF, let v = directory.u64(value) { local = v }
                }
                field += 4 + Int(length)
            }
            let nameBytes = Array(directory[nameStart..<extraStart])
            members.append(
                Member(
                    offset: local, nameBytes: nameBytes, name: String(decoding: nameBytes, as: UTF8.self),
                    uncompressedSize: uncompressed))
            at = next
        }
        members.sort { $0.offset < $1.offset }
        var unique: [Member] = []
        for m in members where unique.last?.offset != m.offset { unique.append(m) }
        // A zip with data before it (a self-extracting one) has offsets libarchive corrects and
        // this index does not: used only when the first member's local header is where it says.
        if let first = unique.first {
            guard first.offset < fileSize, let signature = pread(descriptor, count: 4, at: first.offset),
                signature.u32(0) == localFileHeaderSignature
            else { return nil }
        }
        return ZipCentralDirectory(members: unique)
    }

    /// Why `member`'s local header disagrees with its directory entry, or nil when it agrees.
    static func localHeaderProblem(of member: Member, in path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "cannot read its local header" }
        defer { close(descriptor) }
        guard let header = pread(descriptor, count: localFileHeaderLength, at: member.offset),
            header.u32(0) == localFileHeaderSignature, let nameLength = header.u16(26)
        else { return "no local file header where the central directory places it" }
        guard Int(nameLength) == member.nameBytes.count else {
            return "the local header's name length disagrees with the central directory"
        }
        guard let name = pread(descriptor, count: Int(nameLength), at: member.offset + Int64(localFileHeaderLength)),
            name == member.nameBytes
        else { return "the local header's name disagrees with the central directory" }
        return nil
    }

    /// `body`'s answer for the file at `path`, open for reading, and its size; nil when the file
    /// cannot be opened.
    private static func withFile<T>(_ path: String, _ body: (_ descriptor: Int32, _ fileSize: Int64) -> T?) -> T? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return body(descriptor, Int64(info.st_size))
    }

    /// Exactly `count` bytes at `offset`, or nil.
    private static func pread(_ descriptor: Int32, count: Int, at offset: Int64) -> [UInt8]? {
        guard count >= 0, offset >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes {
                Foundation.pread(
                    descriptor, $0.baseAddress.map { $0 + done }, count - done, off_t(offset) + off_t(done))
            }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }
}

extension Array where Element == UInt8 {
    /// Little-endian fields, nil past the end.
    fileprivate func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at + 2 <= count else { return nil }
        return UInt16(self[at]) | UInt16(self[at + 1]) << 8
    }

    fileprivate func u32(_ at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= count else { return nil }
        return (0..<4).reduce(0) { $0 | UInt32(self[at + $1]) << (8 * $1) }
    }

    fileprivate func u64(_ at: Int) -> Int64? {
        guard at >= 0, at + 8 <= count else { return nil }
        let value = (0..<8).reduce(UInt64(0)) { $0 | UInt64(self[at + $1]) << (8 * $1) }
        return value > UInt64(Int64.max) ? nil : Int64(value)
    }
}
