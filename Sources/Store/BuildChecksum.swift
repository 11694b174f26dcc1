// BuildChecksum: the checksum of a build file, recorded when the build is published (a catalog
// row, a bucket entry) and compared whenever the file is read whole (`verify`, a server's first
// open, a replica's fetch into its cache). SQLite notices a damaged page header, but not a flipped
// bit in a name or an address range: only the checksum turns that into "damaged" instead of a
// wrong answer.
//
// It guards against damage (a disk, a copy, a hand), not against someone who can write the store:
// whoever can replace a build file can replace its catalog row or bucket entry too. So imports
// record zlib's CRC-32, the checksum of zip, gzip and PNG: it finds every flipped bit and every
// burst of up to 32, and misses other damage once in 2^32, in a fraction of SHA-256's time (even
// with SHA instructions), which matters because it is the import's last step, on one core, after
// the last page is written. Rows and entries of releases that recorded the file's SHA-256 keep it
// and are checked by it.

import Compression
import Foundation
import SymbolicateModel

public enum BuildChecksum: Sendable, Hashable {
    /// zlib's CRC-32 of the file's bytes: what an import records.
    case crc32(UInt32)
    /// The file's SHA-256, lowercase hex: what releases before recorded (the `sha256` column or field).
    case sha256(String)

    /// The checksum of the file at `path`, as an import records it.
    static func of(file path: String) throws -> BuildChecksum {
        .crc32(try crc32(file: path))
    }

    /// The recorded form: `crc32:` and 8 lowercase hex digits (a SHA-256 is recorded in a column
    /// and field of its own, as 64 digits).
    var recorded: String {
        switch self {
        case .crc32(let value):
            let digits = String(value, radix: 16)
            return "crc32:" + String(repeating: "0", count: 8 - digits.count) + digits
        case .sha256(let digest): return digest
        }
    }

    /// A recorded CRC-32 (`crc32:` and 8 hex digits); nil for anything else, which is then no
    /// checksum rather than a damaged file.
    init?(recorded: String) {
        guard recorded.hasPrefix("crc32:") else { return nil }
        let digits = recorded.dropFirst(6)
        guard digits.count == 8, let value = UInt32(digits, radix: 16) else { return nil }
        self = .crc32(value)
    }

    /// A recorded SHA-256 (64 hex digits, either case); nil for anything else.
    init?(sha256 digest: String) {
        guard let key = BlobKey(.sha256, digest) else { return nil }
        self = .sha256(key.digest)
    }

    /// A row's or an entry's checksum: its `checksum`, else its `sha256` (releases before), else
    /// none; a value of neither form is no checksum too (unreadable, not damage).
    static func stored(_ recorded: String?, sha256: String?) -> BuildChecksum? {
        recorded.flatMap(BuildChecksum.init(recorded:)) ?? sha256.flatMap(BuildChecksum.init(sha256:))
    }

    /// What it is called in messages.
    var algorithm: String {
        switch self {
        case .crc32: return "CRC-32"
        case .sha256: return "SHA-256"
        }
    }

    /// The file at `path` checksummed as `self` was.
    func recomputed(file path: String) throws -> BuildChecksum {
        switch self {
        case .crc32: return .crc32(try BuildChecksum.crc32(file: path))
        case .sha256: return .sha256(try BlobStore.key(ofFile: path).key.digest)
        }
    }

    /// Throws `.io` naming both checksums when the file at `path` is not the one published with
    /// `expected` (nil: nothing recorded, nothing to compare).
    static func check(_ path: String, expected: BuildChecksum?, what: String) throws {
        guard let expected else { return }
        let found = try expected.recomputed(file: path)
        guard found == expected else {
            throw SymbolicateError(
                .io,
                "\(what) is damaged: its \(expected.algorithm) is \(found.recorded) and it was published as "
                    + "\(expected.recorded); import the build again",
                path: path)
        }
    }

    /// The CRC-32 of the file at `path`, read a piece at a time.
    static func crc32(file path: String) throws -> UInt32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SymbolicateError.system("cannot open the build file", path: path) }
        defer { close(fd) }
        var crc: UInt32 = 0
        _ = try BlobStore.readPieces(fd, path: path) { crc = Zlib.crc32(crc, $0) }
        return crc
    }
}
