// A compare-and-swap PUT: PutObject with `If-Match: ETAG`, which S3 (and moto, MinIO, Ceph)
// honour since conditional writes arrived in 2024. It replaces an object only while the object
// is still the version the caller read, so two writers that read the same version cannot both
// win; the loser gets `.preconditionFailed` and reads again. Stored reports use it to
// re-symbolicate without losing a concurrent update or resurrecting a deleted report.

extension S3Client {
    /// Stores `bytes` at `key` when the object there has ETag `etag`. Throws `.preconditionFailed`
    /// when it has another (someone wrote it since), `.noSuchKey` when it is gone. Returns the new
    /// ETag. (S3 may also answer 409 ConditionalRequestConflict to two racing conditional writes:
    /// that arrives as `.requestRejected` with `httpStatus` 409, and means the same as 412.)
    @discardableResult
    public func putObject(
        bucket: String, key: String, bytes: [UInt8], contentType: String? = nil, ifMatch etag: String
    ) throws(ObjectStorageError) -> String? {
        let clock = ContinuousClock()
        let start = clock.now
        do throws(ObjectStorageError) {
            try S3Location.validate(bucket: bucket)
            guard !key.isEmpty, key.utf8.count <= S3Client.maxKeyLength else {
                throw ObjectStorageError(
                    .invalidLocation, "an object key must be 1-\(S3Client.maxKeyLength) bytes", bucket: bucket, key: key
                )
            }
            let request = S3Request(
                operation: "PutObject", method: "PUT", bucket: bucket, key: key,
                headers: [
                    ("Content-Type", contentType ?? "application/octet-stream"), ("If-Match", EntityTag.quoted(etag)),
                ],
                body: .bytes(bytes), payloadHash: SHA256Hex.of(bytes))
            let (response, attempts) = try send(request)
            guard (200..<300).contains(response.status) else {
                var error = failure(response, request, attempts: attempts)
                if error.code == .preconditionFailed {
                    error.message = "the object changed since it was read (If-Match \(etag)): read it again"
                }
                throw error
            }
            let elapsed = clock.now - start
            metrics.record(operation: "PutObject", failed: false, seconds: Self.seconds(elapsed))
            return response.entityTag
        } catch {
            metrics.record(operation: "PutObject", failed: true, seconds: Self.seconds(clock.now - start))
            throw error
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
