// S3Client: the object operations a bucket-backed store needs (GetObject into memory or a file,
// PutObject from bytes or a file with an optional create-only condition, HeadObject, DeleteObject,
// ListObjectsV2), each signed with Signature V4 and sent through libcurl. Every attempt is signed
// afresh (a retry after a pause needs a current x-amz-date); failures that may pass are retried
// with backoff; redirects are followed by signing the request again for its new address; and a
// refusal becomes an ObjectStorageError that names the bucket and key and says what to do.
// Operations are synchronous and the client is safe to share between threads.

import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#endif

/// What HEAD (and a finished GET or PUT) tells about an object.
public struct ObjectInfo: Sendable, Equatable {
    public var size: Int64
    /// The entity tag without its quotes.
    public var etag: String?
    /// The Last-Modified header as the server wrote it.
    public var lastModified: String?
    public var contentType: String?
}

public final class S3Client: Sendable {
    /// GetObject into memory refuses objects larger than this unless told otherwise.
    public static let defaultMemoryLimit = 256 << 20
    /// Redirects followed for one request, at most.
    static let maxRedirects = 5
    /// S3's own limit on key length (UTF-8 bytes).
    static let maxKeyLength = 1024

    public let configuration: S3Configuration
    public let metrics: ObjectStorageMetrics
    let transport: CurlTransport

    /// Loads libcurl (the first client in a process does) and keeps `configuration`.
    public init(configuration: S3Configuration, metrics: ObjectStorageMetrics = ObjectStorageMetrics())
        throws(ObjectStorageError)
    {
        self.configuration = configuration
        self.metrics = metrics
        self.transport = try CurlTransport()
    }

    // MARK: Operations

    /// The whole object in memory; `.noSuchKey` / `.noSuchBucket` when it is not there, `.tooLarge`
    /// past `maxBytes`.
    public func getObject(bucket: String, key: String, maxBytes: Int = S3Client.defaultMemoryLimit)
        throws(ObjectStorageError) -> (body: [UInt8], info: ObjectInfo)
    {
        try measure("GetObject") { () throws(ObjectStorageError) -> (body: [UInt8], info: ObjectInfo) in
            let request = S3Request(
                operation: "GetObject", method: "GET", bucket: bucket, key: try checked(key, bucket: bucket),
                destination: .memory(limit: maxBytes))
            let (response, attempts) = try send(request)
            guard (200..<300).contains(response.status) else { throw failure(response, request, attempts: attempts) }
            return (response.body, info(response, size: Int64(response.body.count)))
        }
    }

    /// Streams the object into the file at `path`: written to a temporary file beside it and renamed
    /// over `path` when complete, so `path` never holds part of an object.
    @discardableResult
    public func downloadObject(bucket: String, key: String, to path: String) throws(ObjectStorageError) -> ObjectInfo {
        try measure("GetObject") { () throws(ObjectStorageError) -> ObjectInfo in
            let key = try checked(key, bucket: bucket)
            var suffix = SystemRandomNumberGenerator()
            let temporary = path + ".part-\(getpid())-\(String(suffix.next() & 0xffff_ffff, radix: 16))"
            let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw ioError(
                    "cannot create \(temporary) for the download", bucket: bucket, key: key, operation: "GetObject")
            }
            var complete = false
            defer {
                close(descriptor)
                if !complete { unlink(temporary) }
            }
            let request = S3Request(
                operation: "GetObject", method: "GET", bucket: bucket, key: key,
                destination: .file(descriptor: descriptor))
            let (response, attempts) = try send(request)
            guard (200..<300).contains(response.status) else { throw failure(response, request, attempts: attempts) }
            if let expected = response.header("content-length").flatMap({ Int64($0) }),
                expected != response.bytesReceived
            {
                throw ObjectStorageError(
                    .unreachable, "the download ended after \(response.bytesReceived) of \(expected) bytes: try again",
                    operation: "GetObject", bucket: bucket, key: key)
            }
            guard fsync(descriptor) == 0, rename(temporary, path) == 0 else {
                throw ioError("cannot write \(path)", bucket: bucket, key: key, operation: "GetObject")
            }
            complete = true
            return info(response, size: response.bytesReceived)
        }
    }

    /// Stores `bytes` at `key` in one PUT. With `createOnly`, the PUT carries `If-None-Match: *` and
    /// fails with `.preconditionFailed` when the key exists. (Should an earlier attempt of the same
    /// call have succeeded without its answer arriving, the retry sees that object: callers that
    /// write immutable content may treat `.preconditionFailed` as done.) Returns the new ETag.
    @discardableResult
    public func putObject(
        bucket: String, key: String, bytes: [UInt8], contentType: String? = nil, createOnly: Bool = false
    ) throws(ObjectStorageError) -> String? {
        try measure("PutObject") { () throws(ObjectStorageError) -> String? in
            let request = S3Request(
                operation: "PutObject", method: "PUT", bucket: bucket, key: try checked(key, bucket: bucket),
                headers: putHeaders(contentType: contentType, createOnly: createOnly), body: .bytes(bytes),
                payloadHash: SHA256Hex.of(bytes))
            let (response, attempts) = try send(request)
            guard (200..<300).contains(response.status) else { throw failure(response, request, attempts: attempts) }
            return response.entityTag
        }
    }

    /// Stores the file at `path` at `key` in one PUT (read twice: once for its SHA-256, which the
    /// signature covers, and once to send it). See `putObject` for `createOnly`.
    @discardableResult
    public func uploadObject(
        bucket: String, key: String, fromFile path: String, contentType: String? = nil, createOnly: Bool = false
    ) throws(ObjectStorageError) -> String? {
        try measure("PutObject") { () throws(ObjectStorageError) -> String? in
            let key = try checked(key, bucket: bucket)
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ioError("cannot open \(path) for the upload", bucket: bucket, key: key, operation: "PutObject")
            }
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                throw ioError("cannot read \(path)", bucket: bucket, key: key, operation: "PutObject")
            }
            guard let hash = SHA256Hex.of(descriptor: descriptor, size: Int64(status.st_size)) else {
                throw ioError("cannot read \(path)", bucket: bucket, key: key, operation: "PutObject")
            }
            let request = S3Request(
                operation: "PutObject", method: "PUT", bucket: bucket, key: key,
                headers: putHeaders(contentType: contentType, createOnly: createOnly),
                body: .file(descriptor: descriptor, size: Int64(status.st_size)), payloadHash: hash)
            let (response, attempts) = try send(request)
            guard (200..<300).contains(response.status) else { throw failure(response, request, attempts: attempts) }
            return response.entityTag
        }
    }

    /// The object's size and tags, or nil when there is no object at `key`.
    public func headObject(bucket: String, key: String) throws(ObjectStorageError) -> ObjectInfo? {
        try measure("HeadObject") { () throws(ObjectStorageError) -> ObjectInfo? in
            let request = S3Request(
                operation: "HeadObject", method: "HEAD", bucket: bucket, key: try checked(key, bucket: bucket))
            let (response, attempts) = try send(request)
            if response.status == 404 {
                // A HEAD answer has no body to say which is missing: ask the bucket.
                try bucketMustExist(bucket)
                return nil
            }
            guard (200..<300).contains(response.status) else { throw failure(response, request, attempts: attempts) }
            let size = response.header("content-length").flatMap { Int64($0) } ?? 0
            return info(response, size: size)
        }
    }

    /// Deletes the object at `key`; deleting a key that does not exist succeeds, as in S3.
    public func deleteObject(bucket: String, key: String) throws(ObjectStorageError) {
        try measure("DeleteObject") { () throws(ObjectStorageError) -> Void in
            let request = S3Request(
                operation: "DeleteObject", method: "DELETE", bucket: bucket, key: try checked(key, bucket: bucket))
            let (response, attempts) = try send(request)
            guard (200..<300).contains(response.status) else { throw failure(response, request, attempts: attempts) }
        }
    }

    /// One page of ListObjectsV2: keys under `prefix` in UTF-8 order, grouped at `delimiter` when
    /// given; pass the page's `nextContinuationToken` back to get the next page.
    public func listObjects(
        bucket: String, prefix: String = "", delimiter: String? = nil, continuationToken: String? = nil,
        startAfter: String? = nil, maxKeys: Int? = nil
    ) throws(ObjectStorageError) -> ListPage {
        try measure("ListObjectsV2") { () throws(ObjectStorageError) -> ListPage in
            try S3Location.validate(bucket: bucket)
            var query: [(String, String)] = [("list-type", "2"), ("encoding-type", "url")]
            if !prefix.isEmpty { query.append(("prefix", prefix)) }
            if let delimiter { query.append(("delimiter", delimiter)) }
            if let continuationToken { query.append(("continuation-token", continuationToken)) }
            if let startAfter { query.append(("start-after", startAfter)) }
            if let maxKeys { query.append(("max-keys", String(maxKeys))) }
            let request = S3Request(
                operation: "ListObjectsV2", method: "GET", bucket: bucket, key: "", query: query,
                destination: .memory(limit: 64 << 20), describedKey: prefix)
            let (response, attempts) = try send(request)
            guard (200..<300).contains(response.status) else { throw failure(response, request, attempts: attempts) }
            do throws(S3XML.Malformed) {
                return try S3XML.listPage(response.body)
            } catch {
                throw ObjectStorageError(
                    .badResponse, "the listing is not a ListBucketResult the client can read: \(error.reason)",
                    operation: "ListObjectsV2", bucket: bucket, key: prefix, httpStatus: response.status)
            }
        }
    }

    /// Every page of a listing, joined; `pageSize` keys a page at the most (nil: the server's
    /// default, 1,000 on S3).
    public func listAllObjects(bucket: String, prefix: String = "", delimiter: String? = nil, pageSize: Int? = nil)
        throws(ObjectStorageError) -> ListPage
    {
        var all = ListPage()
        var token: String? = nil
        repeat {
            let page = try listObjects(
                bucket: bucket, prefix: prefix, delimiter: delimiter, continuationToken: token, maxKeys: pageSize)
            all.objects += page.objects
            all.commonPrefixes += page.commonPrefixes
            token = page.isTruncated ? page.nextContinuationToken : nil
        } while token != nil
        return all
    }

    /// Creates the bucket (in the configured region); a bucket this account already owns is no error.
    /// For setting up a store and for tests; S3 limits how often buckets may be created.
    public func createBucket(_ bucket: String) throws(ObjectStorageError) {
        try measure("CreateBucket") { () throws(ObjectStorageError) -> Void in
            try S3Location.validate(bucket: bucket)
            var body: [UInt8] = []
            if configuration.region != S3Configuration.defaultRegion {
                body = Array(
                    ("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                        + "<LocationConstraint>\(configuration.region)</LocationConstraint></CreateBucketConfiguration>")
                        .utf8)
            }
            let request = S3Request(
                operation: "CreateBucket", method: "PUT", bucket: bucket, key: "", body: .bytes(body),
                payloadHash: SHA256Hex.of(body))
            let (response, attempts) = try send(request)
            if (200..<300).contains(response.status) { return }
            if S3XML.errorDocument(response.body)?.code == "BucketAlreadyOwnedByYou" { return }
            throw failure(response, request, attempts: attempts)
        }
    }

    // MARK: Helpers

    func measure<Result>(
        _ operation: String, _ body: () throws(ObjectStorageError) -> Result
    ) throws(ObjectStorageError) -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let result = try body()
            metrics.record(operation: operation, failed: false, seconds: seconds(clock.now - start))
            return result
        } catch {
            metrics.record(operation: operation, failed: true, seconds: seconds(clock.now - start))
            throw error
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    func checked(_ key: String, bucket: String) throws(ObjectStorageError) -> String {
        try S3Location.validate(bucket: bucket)
        guard !key.isEmpty, key.utf8.count <= S3Client.maxKeyLength, !key.utf8.contains(0) else {
            throw ObjectStorageError(
                .invalidLocation, "an object key must be 1-\(S3Client.maxKeyLength) bytes without NUL",
                bucket: bucket, key: key)
        }
        return key
    }

    private func putHeaders(contentType: String?, createOnly: Bool) -> [(String, String)] {
        var headers: [(String, String)] = [("Content-Type", contentType ?? "application/octet-stream")]
        if createOnly { headers.append(("If-None-Match", "*")) }
        return headers
    }

    private func info(_ response: HTTPResponse, size: Int64) -> ObjectInfo {
        ObjectInfo(
            size: size, etag: response.entityTag,
            lastModified: response.header("last-modified"), contentType: response.header("content-type"))
    }

    /// After a HEAD 404: throws `.noSuchBucket` when the bucket itself is missing.
    private func bucketMustExist(_ bucket: String) throws(ObjectStorageError) {
        let request = S3Request(operation: "HeadBucket", method: "HEAD", bucket: bucket, key: "")
        let (response, attempts) = try send(request)
        guard (200..<300).contains(response.status) else { throw failure(response, request, attempts: attempts) }
    }

    func ioError(_ what: String, bucket: String, key: String, operation: String) -> ObjectStorageError {
        let errno = Errno.current
        return ObjectStorageError(
            .io, what + ": check the folder exists and is writable", operation: operation, bucket: bucket, key: key,
            cause: errno.description, errno: errno)
    }
}
