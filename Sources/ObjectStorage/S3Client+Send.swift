// How the S3 client sends one operation: sign, send through libcurl, retry what may pass with
// backoff, follow redirects by signing again for the new address, and turn a final refusal into
// an ObjectStorageError that names the bucket and key and says what to do.

import Digest

#if canImport(Glibc)
    import Glibc
#endif

/// One S3 operation as the client builds it, before it has an address.
struct S3Request {
    var operation: String
    var method: String
    var bucket: String
    /// The object key; empty for bucket-level requests (ListObjectsV2, HeadBucket).
    var key: String
    var query: [(String, String)] = []
    var headers: [(String, String)] = []
    var body: HTTPRequest.Body = .none
    var payloadHash: String = SignatureV4.emptyPayloadHash
    var destination: ResponseDestination = .memory(limit: CurlTransport.errorBodyLimit)
    /// The key errors name when `key` is empty (a listing's prefix).
    var describedKey: String? = nil
}

extension S3Client {
    /// Sends `request` until it gets an answer worth returning (any HTTP status but a retryable one
    /// or a followed redirect) or the attempts run out. Returns the answer and the attempts made.
    func send(_ request: S3Request) throws(ObjectStorageError) -> (HTTPResponse, Int) {
        let policy = configuration.retry
        var address = configuration.address(bucket: request.bucket, key: request.key)
        var query = request.query
        var attempts = 0
        var redirects = 0
        var random = SystemRandomNumberGenerator()
        while true {
            attempts += 1
            metrics.recordAttempt(operation: request.operation)
            if case .file(let descriptor) = request.destination {
                // A retry starts the download again from the first byte.
                guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
                    throw ioError(
                        "cannot rewind the download file", bucket: request.bucket, key: request.key,
                        operation: request.operation)
                }
            }
            let signer = SignatureV4(credentials: configuration.credentials, region: configuration.region)
            let signed = signer.sign(
                SignatureV4.Request(
                    method: request.method, host: address.host, encodedPath: address.encodedPath, query: query,
                    headers: request.headers, payloadHash: request.payloadHash),
                at: SigningTime.now())
            let queryString = SignatureV4.canonicalQuery(query)
            let url =
                address.scheme + "://" + address.host + address.encodedPath
                + (queryString.isEmpty ? "" : "?" + queryString)
            let http = HTTPRequest(method: request.method, url: url, headers: signed.headers, body: request.body)

            let response: HTTPResponse
            do {
                response = try transport.perform(
                    http, destination: request.destination, timeouts: configuration.timeouts,
                    caBundle: configuration.caBundle)
            } catch {
                guard error.retryable, attempts < policy.maxAttempts else {
                    throw transportError(
                        error, request, endpoint: address.scheme + "://" + address.host, attempts: attempts)
                }
                pause(policy.delay(beforeRetry: attempts, using: &random))
                continue
            }

            if [301, 302, 307, 308].contains(response.status), let location = response.header("location"),
                redirects < S3Client.maxRedirects, let target = RedirectTarget(location, from: address),
                target.scheme == "https" || address.scheme == "http"  // never from TLS down to plain HTTP
            {
                redirects += 1
                attempts -= 1  // a redirect is not a failed attempt
                address = (target.scheme, target.host, target.encodedPath)
                query = target.query
                continue
            }
            let s3Code = response.status >= 400 ? S3XML.errorDocument(response.body)?.code : nil
            if RetryPolicy.isRetryable(status: response.status, s3Code: s3Code), attempts < policy.maxAttempts {
                pause(policy.delay(beforeRetry: attempts, using: &random))
                continue
            }
            return (response, attempts)
        }
    }

    /// The error for a final answer that is not a success.
    func failure(_ response: HTTPResponse, _ request: S3Request, attempts: Int) -> ObjectStorageError {
        let document = S3XML.errorDocument(response.body)
        let code = document?.code
        let operation = request.operation
        let key = request.key.isEmpty ? request.describedKey : request.key
        func error(_ kind: ObjectStorageError.Code, _ message: String) -> ObjectStorageError {
            var detail = message
            if let serverMessage = document?.message, !serverMessage.isEmpty {
                detail += "; the server says: " + serverMessage
            }
            return ObjectStorageError(
                kind, detail, operation: operation, bucket: request.bucket, key: key, httpStatus: response.status,
                s3Code: code, requestID: document?.requestID ?? response.header("x-amz-request-id"))
        }
        let endpoint = configuration.endpoint?.description ?? "AWS"
        switch (response.status, code) {
        case (_, "InvalidAccessKeyId"):
            return error(
                .invalidCredentials,
                "\(endpoint) does not know the access key \(configuration.credentials.accessKeyID): check AWS_ACCESS_KEY_ID (and AWS_ENDPOINT_URL when the bucket is not on AWS)"
            )
        case (_, "SignatureDoesNotMatch"):
            return error(
                .invalidCredentials,
                "the request's signature does not match: check AWS_SECRET_ACCESS_KEY for the access key \(configuration.credentials.accessKeyID)"
            )
        case (_, "ExpiredToken"), (_, "InvalidToken"), (_, "TokenRefreshRequired"):
            return error(
                .invalidCredentials,
                "the session token is expired or invalid: renew AWS_SESSION_TOKEN (and the keys issued with it)")
        case (_, "RequestTimeTooSkewed"):
            return error(
                .invalidConfiguration, "this machine's clock is too far from the server's: synchronize it (NTP)")
        case (_, "NoSuchBucket"),
            (404, nil) where request.key.isEmpty:
            return error(
                .noSuchBucket,
                "the bucket \(request.bucket) does not exist at \(endpoint): create it, or correct the store location and AWS_ENDPOINT_URL"
            )
        case (_, "NoSuchKey"), (404, nil):
            return error(.noSuchKey, "there is no object at this key")
        case (_, "PermanentRedirect"), (_, "AuthorizationHeaderMalformed"), (301, _):
            let region = document?.region ?? response.header("x-amz-bucket-region")
            if let region, region != configuration.region {
                return error(
                    .wrongRegion,
                    "the bucket is in region \(region), not \(configuration.region): set AWS_REGION=\(region)")
            }
            return error(
                .wrongRegion,
                "the bucket is not at this address (region \(configuration.region)): set AWS_REGION to the bucket's region"
            )
        case (let status, _) where [302, 307, 308].contains(status) && response.header("location") != nil:
            return error(
                .requestRejected,
                "the server redirected to \(response.header("location") ?? ""), which is not followed (from https to http, or more than \(S3Client.maxRedirects) redirects): point AWS_ENDPOINT_URL at the final address"
            )
        case (403, "AccessDenied"):
            return error(
                .accessDenied,
                "the credentials are not allowed to do this: grant s3:\(operation) on the bucket to \(configuration.credentials.accessKeyID)"
            )
        case (403, _):
            return error(
                .accessDenied,
                "the server refused the request (no details in a \(request.method) answer): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and that they may use s3:\(operation) on the bucket"
            )
        case (412, _):
            return error(.preconditionFailed, "an object already exists at this key (the upload is create-only)")
        case (let status, _) where RetryPolicy.isRetryable(status: status, s3Code: code):
            return error(
                .serverError,
                "the server answered \(status)\(code.map { " " + $0 } ?? "") to all \(attempts) attempts: try again later, and check the object store's health"
            )
        default:
            return error(.requestRejected, "the server refused the request (HTTP \(response.status))")
        }
    }

    private func transportError(_ error: TransportFailure, _ request: S3Request, endpoint: String, attempts: Int)
        -> ObjectStorageError
    {
        let key = request.key.isEmpty ? request.describedKey : request.key
        let tries = attempts == 1 ? "" : " (\(attempts) attempts)"
        let kind: ObjectStorageError.Code
        let message: String
        switch error.kind {
        case .unreachable, .other:
            kind = .unreachable
            message =
                "cannot reach \(endpoint)\(tries): check AWS_ENDPOINT_URL (or the network) and that the object store is running"
        case .timeout:
            kind = .timeout
            message = "\(endpoint) did not answer in time\(tries): check the object store's health and the network"
        case .tls:
            kind = .untrustedServer
            message =
                "the TLS certificate of \(endpoint) does not verify: if it comes from a private authority, set AWS_CA_BUNDLE to that authority's PEM file; otherwise check AWS_ENDPOINT_URL's host name"
        case .tooLarge:
            kind = .tooLarge
            message = error.message + ": read it into a file instead"
        case .io:
            kind = .io
            message = error.message
        }
        return ObjectStorageError(
            kind, message, operation: request.operation, bucket: request.bucket, key: key, cause: error.message)
    }

    private func pause(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// Where a redirect's Location points: an absolute URL, or a path on the same host.
struct RedirectTarget {
    var scheme: String
    var host: String
    var encodedPath: String
    /// Decoded, so the signer encodes them again exactly once.
    var query: [(String, String)]

    init?(_ location: String, from address: (scheme: String, host: String, encodedPath: String)) {
        var rest = Substring(location)
        if rest.hasPrefix("https://") || rest.hasPrefix("http://") {
            let scheme = rest.hasPrefix("https://") ? "https" : "http"
            rest = rest.dropFirst(scheme.count + 3)
            let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            self.scheme = scheme
            host = String(rest[..<hostEnd])
            rest = rest[hostEnd...]
            guard !host.isEmpty else { return nil }
        } else if rest.hasPrefix("/") {
            scheme = address.scheme
            host = address.host
        } else {
            return nil
        }
        let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
        encodedPath = rest[..<queryStart].isEmpty ? "/" : String(rest[..<queryStart])
        query = []
        if queryStart < rest.endIndex {
            for pair in rest[rest.index(after: queryStart)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = S3XML.percentDecode(String(parts[0])) else { return nil }
                let value = parts.count > 1 ? S3XML.percentDecode(String(parts[1])) : ""
                guard let value else { return nil }
                query.append((name, value))
            }
        }
    }
}

/// Hex SHA-256 of a payload, as x-amz-content-sha256 carries it.
enum SHA256Hex {
    static func of(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }

    /// The digest of `size` bytes of a file from offset 0; nil when reading fails.
    static func of(descriptor: Int32, size: Int64) -> String? {
        var hash = SHA256()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let wanted = Int(min(Int64(chunk), size - offset))
            let got = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            hash.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += Int64(got)
        }
        return hexString(hash.finalize())
    }
}
