// Blobs from and to files: a symbol file can be 2 GB, so it goes into the blob store a piece at a
// time, never whole in memory. On a folder the file is copied into a temporary file beside the
// blob while it is hashed, then renamed to the name its SHA-256 gives (so the name cannot disagree
// with the bytes); on a bucket it is hashed, then sent in one PUT from the file. `check` reads a
// stored blob back the same way and says whether its bytes still hash to its name.

import Digest
import Foundation
import SymbolicateModel
import SystemSupport

extension BlobStore {
    /// Bytes read at once while hashing or copying.
    static let pieceSize = 1 << 20

    /// The SHA-256 key and size of the file at `path`, read a piece at a time.
    public static func key(ofFile path: String) throws -> (key: BlobKey, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw fileError("cannot open", errno, path) }
        defer { close(fd) }
        return try hash(fd, path: path, copyingTo: nil)
    }

    /// Stores the file at `path` under its SHA-256 and answers the key and size. A blob already
    /// stored under that name with the same size is left as it is.
    @discardableResult
    public func putFile(_ path: String) throws -> (key: BlobKey, size: Int64) {
        if let folder = backend as? FolderBlobBackend { return try folder.putFile(path) }
        let (key, size) = try BlobStore.key(ofFile: path)
        if try self.size(key) == size { return (key, size) }
        if let bucket = backend as? BucketBlobBackend {
            do {
                try bucket.client.uploadObject(
                    bucket: bucket.location.bucket, key: bucket.location.key(key.path), fromFile: path)
            } catch {
                throw SymbolicateError(storage: error)
            }
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw BlobStore.fileError("cannot read", errno, path)
            }
            try put([UInt8](data), as: key)
        }
        return (key, size)
    }

    /// Whether the blob `key` still hashes to its name: nil when it is not stored at all.
    public func check(_ key: BlobKey) throws -> Bool? {
        let temporary = NSTemporaryDirectory() + "/symbolicate-blob-check-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(temporary) }
        let local: String
        if let folder = backend as? FolderBlobBackend {
            local = folder.root + "/" + key.path
            guard try size(key) != nil else { return nil }
        } else {
            guard try backend.download(key.path, to: temporary) else { return nil }
            local = temporary
        }
        return try BlobStore.key(ofFile: local).key == key
    }

    /// Hashes what `fd` holds from its current offset to its end, writing each piece to
    /// `destination` as well when one is given.
    static func hash(_ fd: Int32, path: String, copyingTo destination: TemporaryFile?) throws -> (
        key: BlobKey, size: Int64
    ) {
        var digest = SHA256()
        let total = try readPieces(fd, path: path) { piece in
            digest.update(piece)
            try destination?.write(piece)
        }
        guard let key = BlobKey(.sha256, hexString(digest.finalize())) else {
            throw SymbolicateError(.internal, "a SHA-256 digest is not 64 hex digits")
        }
        return (key, total)
    }

    /// Reads the file `fd` (at `path`, for errors) to its end a piece at a time, handing each
    /// piece to `body`; returns the bytes read.
    static func readPieces(_ fd: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        var buffer = [UInt8](repeating: 0, count: pieceSize)
        var total: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fileError("cannot read", errno, path)
            }
            if n == 0 { return total }
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            total += Int64(n)
        }
    }

    static func fileError(_ what: String, _ code: Int32, _ path: String) -> SymbolicateError {
        SymbolicateError.system("\(what) the file", path: path, errno: Errno(rawValue: code))
    }
}

extension FolderBlobBackend {
    /// Copies the file into `blobs/sha256/` while hashing it, then renames the copy to its name.
    func putFile(_ path: String) throws -> (key: BlobKey, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BlobStore.fileError("cannot open", errno, path) }
        defer { close(fd) }
        let staging = root + "/blobs/" + BlobAlgorithm.sha256.rawValue
        try Folders.create(staging, what: "blob folder")
        let temporary = try TemporaryFile(in: staging, suffix: ".blob")
        let (key, size) = try BlobStore.hash(fd, path: path, copyingTo: temporary)
        let target = root + "/" + key.path
        if try self.size(key.path) == size {
            temporary.discard()
            return (key, size)
        }
        try Folders.create(PathParts.parent(target), what: "blob folder")
        try temporary.commit(to: target)
        return (key, size)
    }
}
