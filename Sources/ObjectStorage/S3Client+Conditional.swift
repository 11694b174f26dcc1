// A compare-and-swap PUT: PutObject with `If-Match: ETAG`, which S3 (and moto, MinIO, Ceph)
// honour since conditional writes arrived in 2024. It replaces an object only while the object
// is still the version the caller read, so two writers that read the same version cannot both
// win; the loser gets `.preconditionFailed` and reads again. Stored reports use it to
// re-symbolicate without losing a concurrent update or resurrecting a deleted report.
//
// And its pair for removal: DeleteObject with `If-Match: ETAG` (S3's conditional deletes, 2025),
// which removes an object only while it is the version the caller read, so a cleanup that
// decided on an old version never removes a newer one written since.

extension S3Client {
    /// Stores `bytes` at `key` when the object there has ETag `etag`. Throws `.preconditionFailed`
    /// when it has another (someone wrote it since), `.noSuchKey` when it is gone. Returns the new
    /// ETag. (S3 may also answer 409 ConditionalRequestConflict to two racing conditional writes:
    /// that arrives as `.requestRejected` with `httpStatus` 409, and means the same as 412.)
    @discardableResult
    public func putObject(
        bucket: String, key: String, bytes: [UInt8], contentType: String? = nil, ifMatch etag: String
    ) throws(ObjectStorageError) -> String? {
        try measure("PutObject") { () throws(ObjectStorageError) -> String? in
            let request = S3Request(
                operation: "PutObject", method: "PUT", bucket: bucket, key: try checked(key, bucket: bucket),
                headers: [
                    ("Content-Type", contentType ?? "application/octet-stream"), ("If-Match", EntityTag.quoted(etag)),
                ],
                body: .bytes(bytes), payloadHash: SHA256Hex.of(bytes))
            return try sendConditional(request, etag: etag).entityTag
        }
    }

    /// Deletes `key` when the object there has ETag `etag`. Throws `.preconditionFailed` when it
    /// has another (someone wrote it since), `.noSuchKey` when it is gone; a 409 that outlasts the
    /// retries means the same as 412, as for the PUT.
    public func deleteObject(bucket: String, key: String, ifMatch etag: String) throws(ObjectStorageError) {
        try measure("DeleteObject") { () throws(ObjectStorageError) -> Void in
            let request = S3Request(
                operation: "DeleteObject", method: "DELETE", bucket: bucket, key: try checked(key, bucket: bucket),
                headers: [("If-Match", EntityTag.quoted(etag))])
            _ = try sendConditional(request, etag: etag)
        }
    }

    private func sendConditional(_ request: S3Request, etag: String) throws(ObjectStorageError) -> HTTPResponse {
        let (response, attempts) = try send(request)
        guard (200..<300).contains(response.status) else {
            var error = failure(response, request, attempts: attempts)
            if error.code == .preconditionFailed {
                error.message = "the object changed since it was read (If-Match \(etag)): read it again"
            }
            throw error
        }
        return response
    }
}
