// The two places a BlobStore keeps its objects, as the symbol store has two: a folder (the store's
// own folder for a folder store: written under a temporary name and renamed, so a reader never
// sees half a blob, and listed by walking the tree with each file's change time), and a bucket
// (the store's bucket and prefix: one PUT per object, which S3 makes whole, listed by prefix with
// each object's Last-Modified).

import Foundation
import ObjectStorage
import SymbolicateModel
import SystemSupport

/// Objects as files under a folder.
public struct FolderBlobBackend: BlobBackend {
    public let root: String

    public init(root: String) { self.root = root }

    public var locationDescription: String { root }

    private func file(_ path: String) -> String { root + "/" + path }

    public func write(_ bytes: [UInt8], to path: String) throws {
        let target = file(path)
        try Folders.create(PathParts.parent(target), what: "blob folder")
        try OutputFile.write(bytes, to: target)
    }

    public func read(_ path: String, maxBytes: Int) throws -> [UInt8]? {
        guard let size = try size(path) else { return nil }
        guard size <= maxBytes else {
            throw SymbolicateError(.limit, "\(path) is \(size) bytes, more than the \(maxBytes) read at once")
        }
        guard let data = FileManager.default.contents(atPath: file(path)) else { return nil }
        return [UInt8](data)
    }

    public func download(_ path: String, to destination: String) throws -> Bool {
        guard try size(path) != nil else { return false }
        unlink(destination)
        if link(file(path), destination) == 0 { return true }
        do {
            try FileManager.default.copyItem(atPath: file(path), toPath: destination)
        } catch {
            throw SymbolicateError(.io, "cannot copy \(path) to \(destination): \(error.localizedDescription)")
        }
        return true
    }

    public func size(_ path: String) throws -> Int64? {
        var status = stat()
        guard stat(file(path), &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw SymbolicateError.system("cannot read \(file(path))")
        }
        return (status.st_mode & S_IFMT) == S_IFREG ? Int64(status.st_size) : nil
    }

    public func list(prefix: String) throws -> [BlobEntry] {
        let folder = file(prefix.hasSuffix("/") ? String(prefix.dropLast()) : PathParts.parent(prefix))
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var entries: [BlobEntry] = []
        let base = String(folder.dropFirst(root.count + 1))
        while let relative = walker.nextObject() as? String {
            let path = base + "/" + relative
            guard path.hasPrefix(prefix), PathParts.last(path)?.hasPrefix(".") != true else { continue }
            var status = stat()
            guard stat(file(path), &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec))
            entries.append(BlobEntry(path: path, size: Int64(status.st_size), modified: modified))
        }
        return entries
    }

    public func delete(_ path: String) throws {
        guard unlink(file(path)) == 0 || errno == ENOENT else {
            throw SymbolicateError.system("cannot remove \(file(path))")
        }
    }
}

/// Objects in a bucket, under a location's prefix.
public struct BucketBlobBackend: BlobBackend {
    public let client: S3Client
    public let location: S3Location

    public init(client: S3Client, location: S3Location) {
        self.client = client
        self.location = location
    }

    public var locationDescription: String { location.description }

    private func run<T>(_ body: () throws(ObjectStorageError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw SymbolicateError(storage: error)
        }
    }

    public func write(_ bytes: [UInt8], to path: String) throws {
        try run { () throws(ObjectStorageError) in
            _ = try client.putObject(bucket: location.bucket, key: location.key(path), bytes: bytes)
        }
    }

    public func read(_ path: String, maxBytes: Int) throws -> [UInt8]? {
        do {
            return try client.getObject(bucket: location.bucket, key: location.key(path), maxBytes: maxBytes).body
        } catch  where error.code == .noSuchKey {
            return nil
        } catch {
            throw SymbolicateError(storage: error)
        }
    }

    public func download(_ path: String, to destination: String) throws -> Bool {
        do {
            try client.downloadObject(bucket: location.bucket, key: location.key(path), to: destination)
            return true
        } catch  where error.code == .noSuchKey {
            return false
        } catch {
            throw SymbolicateError(storage: error)
        }
    }

    public func size(_ path: String) throws -> Int64? {
        try run { () throws(ObjectStorageError) in
            try client.headObject(bucket: location.bucket, key: location.key(path))?.size
        }
    }

    public func list(prefix: String) throws -> [BlobEntry] {
        let page = try run { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: location.key(prefix))
        }
        return page.objects.compactMap { object in
            guard let path = S3Location.relativeKey(object.key, under: location.prefix) else { return nil }
            let modified = object.lastModified.flatMap(BucketStore.parseDate) ?? Date()
            return BlobEntry(path: path, size: object.size, modified: modified)
        }
    }

    public func delete(_ path: String) throws {
        try run { () throws(ObjectStorageError) in
            try client.deleteObject(bucket: location.bucket, key: location.key(path))
        }
    }
}
