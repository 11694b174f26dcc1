// BucketTransfer: `batch` inputs and outputs at s3:// URLs, for runs whose machines share no disk
// (a Kubernetes Indexed Job: pod i runs `batch --shard i/N s3://in/ -o s3://out/`).
//
// An input `s3://BUCKET/KEY` that is an object (a report or an archive) is fetched into a staging
// folder under its own name; `s3://BUCKET/PREFIX/` (or a PREFIX with objects under it and no object
// of its own) is fetched as a folder named after the prefix's last part, each object at its key
// relative to the prefix. The run then reads them as it reads local inputs, so names, shards and
// archive streaming are what they would be for the same files on disk, on every pod alike. A
// sharded run downloads only its own reports from a prefix; an empty file keeps each other
// shard's name in the walk (and every archive is fetched, since its members are sharded).
// An output folder `-o s3://BUCKET/PREFIX` is written in the staging folder and each output is
// uploaded to PREFIX/<its name> after the run (with `--resume`, an empty marker stands in the
// staging folder for each object already under PREFIX, so those reports count as done); `--output-archive`, `--summary` and `--report-list`
// at `s3://BUCKET/KEY` are written locally and uploaded by one PUT each. Objects are written
// whole or not at all (one PUT), so a reader never sees part of an output.
//
// The staging folder lives under the cache folder (`--cache`) and is removed when the run ends.

import Archives
import Foundation
import ObjectStorage
import SymbolicateModel
import SystemSupport

public final class BucketTransfer {
    /// Where inputs are fetched to and outputs written before they go up.
    public let staging: String
    private let client: S3Client
    /// Local file or folder -> the s3:// location it is uploaded to after the run; for a folder,
    /// the relative paths of the markers `--resume` left there (never uploaded).
    private var uploads: [(local: String, location: S3Location, folder: Bool, markers: Set<String>)] = []
    private var staged = 0
    /// Each fetched input's local path and the URL it came from, to name files by their URLs.
    private var fetched: [(local: String, url: String)] = []
    /// Keys under an input prefix that name no file (only slashes, dots): not fetched.
    public private(set) var unfetchable: [String] = []

    /// True when `text` is an `s3://` URL rather than a local path.
    public static func isBucketURL(_ text: String) -> Bool { S3Location.isBucketLocation(text) }

    /// A transfer staging under `scratchParent` (created), with the S3 settings of the standard AWS
    /// variables unless `configuration` is given.
    public init(scratchParent: String, configuration: S3Configuration? = nil) throws(SymbolicateError) {
        do throws(ObjectStorageError) {
            var settings = configuration
            if settings == nil { settings = try S3Configuration.fromEnvironment() }
            guard let settings else { throw ObjectStorageError(.invalidConfiguration, "no object storage settings") }
            client = try S3Client(configuration: settings)
        } catch {
            throw SymbolicateError(storage: error)
        }
        var random = SystemRandomNumberGenerator()
        staging = scratchParent + "/batch-\(getpid())-\(String(random.next() & 0xffff_ffff, radix: 16))"
        try makeFolder(staging, "the staging folder for s3:// inputs and outputs")
    }

    deinit {
        try? FileManager.default.removeItem(atPath: staging)
    }

    // MARK: Inputs

    /// Fetches the object or prefix at `url` and answers the local path to read instead. With a
    /// `shard`, the reports under a prefix that belong to other shards are not downloaded: an
    /// empty file stands in for each, so the run still sees every name (shards hand out output
    /// names over all files alike) and passes it over unread. Archives are fetched whole by every
    /// shard, which reads its own members.
    public func fetchInput(_ url: String, shard: Shard? = nil) throws(SymbolicateError) -> String {
        let location = try Self.location(url)
        staged += 1
        let root = staging + "/in-\(staged)"
        let key = String(location.prefix.dropLast())
        // An object of that name, unless the URL ends in `/` (a prefix for certain).
        if !url.hasSuffix("/"), !key.isEmpty,
            try storage({ () throws(ObjectStorageError) in
                try client.headObject(bucket: location.bucket, key: key)
            }) != nil
        {
            let local = root + "/" + Self.lastPart(key)
            try makeFolder(root)
            _ = try storage { () throws(ObjectStorageError) in
                try client.downloadObject(bucket: location.bucket, key: key, to: local)
            }
            fetched.append((local, url))
            return local
        }
        let listing = try storage { () throws(ObjectStorageError) in
            try client.listAllObjects(bucket: location.bucket, prefix: location.prefix)
        }
        guard !listing.objects.isEmpty else {
            throw SymbolicateError(.notFound, "no object and no objects under this prefix", path: url)
        }
        let folder = root + "/" + (key.isEmpty ? location.bucket : Self.lastPart(key))
        for object in listing.objects {
            guard let relative = location.relativeKey(object.key), let safe = ArchiveNames.sanitize(relative),
                !object.key.hasSuffix("/")
            else {
                if !object.key.hasSuffix("/") { unfetchable.append("s3://\(location.bucket)/\(object.key)") }
                continue
            }
            let local = folder + "/" + safe
            try makeFolder(PathParts.parent(local))
            if let shard, !OutputPaths.isArchiveName(safe), !shard.contains(safe) {
                guard FileManager.default.createFile(atPath: local, contents: nil) else {
                    throw SymbolicateError(.io, "cannot create the stand-in for another shard's report", path: local)
                }
                continue
            }
            _ = try storage { () throws(ObjectStorageError) in
                try client.downloadObject(bucket: location.bucket, key: object.key, to: local)
            }
        }
        fetched.append((folder, url.hasSuffix("/") ? String(url.dropLast()) : url))
        return folder
    }

    /// `path` with a fetched input's local place replaced by its URL (a staged path as is
    /// elsewhere), so summaries name `s3://in/set/x.crash`, the same on every machine.
    public func originalName(_ path: String) -> String {
        for (local, url) in fetched {
            guard let rest = PathParts.relative(path, under: local),
                rest.isEmpty || rest.utf8.first == UInt8(ascii: "/") || rest.utf8.first == UInt8(ascii: ":")
            else { continue }
            return url + rest
        }
        return path
    }

    /// The summary with every file it names called by its URL (see `originalName`).
    public func renamingFiles(in summary: BatchSummary) -> BatchSummary {
        var out = summary
        for n in out.unparsable.indices { out.unparsable[n].example = originalName(out.unparsable[n].example) }
        for n in out.unreadable.indices { out.unreadable[n].example = originalName(out.unreadable[n].example) }
        for n in out.missingImages.indices { out.missingImages[n].example = originalName(out.missingImages[n].example) }
        for n in out.crashGroups.indices { out.crashGroups[n].example = originalName(out.crashGroups[n].example) }
        for n in out.skippedFiles.indices { out.skippedFiles[n].path = originalName(out.skippedFiles[n].path) }
        out.inputErrors = out.inputErrors.map { error in
            fetched.reduce(error) { $0.replacingOccurrences(of: $1.local, with: $1.url) }
        }
        return out
    }

    // MARK: Outputs

    /// A local folder to write outputs in; its files go to the prefix `url` names in `publish()`.
    /// With `resume`, every object already under the prefix gets an empty marker file at its
    /// name, so `batch --resume` counts its report as done; markers are never uploaded.
    public func outputFolder(_ url: String, resume: Bool = false) throws(SymbolicateError) -> String {
        let location = try Self.location(url)
        staged += 1
        let local = staging + "/out-\(staged)"
        try makeFolder(local)
        var markers: Set<String> = []
        if resume {
            let listing = try storage { () throws(ObjectStorageError) in
                try client.listAllObjects(bucket: location.bucket, prefix: location.prefix)
            }
            for object in listing.objects {
                guard let relative = location.relativeKey(object.key), let safe = ArchiveNames.sanitize(relative) else {
                    continue
                }
                try makeFolder(PathParts.parent(local + "/" + safe))
                guard FileManager.default.createFile(atPath: local + "/" + safe, contents: nil) else {
                    throw SymbolicateError(
                        .io, "cannot create a marker for an output already stored", path: local + "/" + safe)
                }
                markers.insert(safe)
            }
        }
        uploads.append((local, location, true, markers))
        return local
    }

    /// A local file name to write one output file at (an archive, a summary); it goes to the
    /// object `url` names in `publish()`. The local name keeps the key's last part, whose
    /// extension says an archive's kind.
    public func outputFile(_ url: String) throws(SymbolicateError) -> String {
        let location = try Self.location(url)
        guard !location.prefix.isEmpty else {
            throw SymbolicateError(.badInput, "name an object, not a whole bucket: s3://BUCKET/KEY", path: url)
        }
        staged += 1
        let folder = staging + "/file-\(staged)"
        try makeFolder(folder)
        let local = folder + "/" + Self.lastPart(String(location.prefix.dropLast()))
        uploads.append((local, location, false, []))
        return local
    }

    /// Uploads what was written to the outputs' local places: a folder's files under its prefix
    /// (by their relative paths), a file as its object. A local file that was never written (no
    /// `--report-list` lines, say) is no error: nothing goes up for it. Answers the objects written.
    @discardableResult
    public func publish() throws(SymbolicateError) -> Int {
        var written = 0
        for upload in uploads {
            if upload.folder {
                var files: [(path: String, relative: String)] = []
                FolderWalk.walk(upload.local, options: .physical) { entry in
                    if entry.kind == .file, !upload.markers.contains(entry.relativePath) {
                        files.append((entry.path, entry.relativePath))
                    }
                    return .proceed
                }
                for file in files.sorted(by: { $0.relative < $1.relative }) {
                    try put(file.path, bucket: upload.location.bucket, key: upload.location.key(file.relative))
                    written += 1
                }
            } else if FileManager.default.fileExists(atPath: upload.local) {
                try put(upload.local, bucket: upload.location.bucket, key: String(upload.location.prefix.dropLast()))
                written += 1
            }
        }
        return written
    }

    private func put(_ local: String, bucket: String, key: String) throws(SymbolicateError) {
        _ = try storage { () throws(ObjectStorageError) in
            try client.uploadObject(bucket: bucket, key: key, fromFile: local)
        }
    }

    // MARK: Single objects

    /// The bytes of the object at `url` (a summary to merge), at most `maxBytes`.
    public func read(_ url: String, maxBytes: Int = 256 << 20) throws(SymbolicateError) -> [UInt8] {
        let (bucket, key) = try Self.object(url)
        return try storage { () throws(ObjectStorageError) in
            try client.getObject(bucket: bucket, key: key, maxBytes: maxBytes).body
        }
    }

    /// Stores `bytes` as the object at `url`, in one PUT.
    public func write(_ bytes: [UInt8], to url: String, contentType: String? = nil) throws(SymbolicateError) {
        let (bucket, key) = try Self.object(url)
        _ = try storage { () throws(ObjectStorageError) in
            try client.putObject(bucket: bucket, key: key, bytes: bytes, contentType: contentType)
        }
    }

    /// The bucket and key of the single object `url` names (`s3://BUCKET/KEY`, not a bucket alone).
    private static func object(_ url: String) throws(SymbolicateError) -> (bucket: String, key: String) {
        let location = try location(url)
        let key = String(location.prefix.dropLast())
        guard !key.isEmpty else {
            throw SymbolicateError(.badInput, "name an object, not a whole bucket: s3://BUCKET/KEY", path: url)
        }
        return (location.bucket, key)
    }

    // MARK: Helpers

    static func location(_ url: String) throws(SymbolicateError) -> S3Location {
        do throws(ObjectStorageError) {
            return try S3Location(parsing: url)
        } catch {
            throw SymbolicateError(storage: error)
        }
    }

    static func lastPart(_ key: String) -> String {
        let part = PathParts.last(key) ?? key
        return part == "." || part == ".." || part.isEmpty ? "object" : part
    }

    private func makeFolder(_ path: String, _ what: String = "a staging folder") throws(SymbolicateError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw SymbolicateError(.io, "cannot create \(what)", path: path)
        }
    }

    private func storage<Result>(_ body: () throws(ObjectStorageError) -> Result) throws(SymbolicateError) -> Result {
        do throws(ObjectStorageError) {
            return try body()
        } catch {
            throw SymbolicateError(storage: error)
        }
    }
}
