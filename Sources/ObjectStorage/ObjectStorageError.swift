// ObjectStorageError: what went wrong talking to a bucket, in swift-nio's shape: a code for
// programs (a struct around a private enum, so codes can be added without breaking callers), a
// message for people that says what to do, and where it happened (operation, bucket, key), plus
// what the server said (HTTP status, S3 error code, request id) and the underlying cause.

import SymbolicateModel

public struct ObjectStorageError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case libraryMissing = "library_missing"
            case invalidLocation = "invalid_location"
            case invalidConfiguration = "invalid_configuration"
            case invalidCredentials = "invalid_credentials"
            case accessDenied = "access_denied"
            case noSuchBucket = "no_such_bucket"
            case noSuchKey = "no_such_key"
            case preconditionFailed = "precondition_failed"
            case wrongRegion = "wrong_region"
            case unreachable
            case timeout
            case untrustedServer = "untrusted_server"
            case serverError = "server_error"
            case requestRejected = "request_rejected"
            case badResponse = "bad_response"
            case tooLarge = "too_large"
            case io
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// libcurl (libcurl.so.4) could not be loaded.
        public static let libraryMissing = Code(.libraryMissing)
        /// A bucket location (`s3://BUCKET[/PREFIX]`) or object key is malformed.
        public static let invalidLocation = Code(.invalidLocation)
        /// The environment does not configure object storage (no credentials, a bad endpoint URL).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The server refused the credentials: unknown access key, wrong secret, expired token.
        public static let invalidCredentials = Code(.invalidCredentials)
        /// The credentials are valid but not allowed to do this.
        public static let accessDenied = Code(.accessDenied)
        public static let noSuchBucket = Code(.noSuchBucket)
        public static let noSuchKey = Code(.noSuchKey)
        /// A conditional request's condition did not hold: `If-None-Match: *` on a key that exists.
        public static let preconditionFailed = Code(.preconditionFailed)
        /// The bucket lives in another region than the one configured.
        public static let wrongRegion = Code(.wrongRegion)
        /// No connection to the endpoint (refused, unresolvable, TLS handshake failed), after retries.
        public static let unreachable = Code(.unreachable)
        /// The connect, total or low-speed timeout ran out, after retries.
        public static let timeout = Code(.timeout)
        /// The endpoint's TLS certificate does not verify against the trusted authorities.
        public static let untrustedServer = Code(.untrustedServer)
        /// The server kept answering 5xx (or 503 SlowDown) until the retries ran out.
        public static let serverError = Code(.serverError)
        /// Any other refusal (a 4xx that is none of the above).
        public static let requestRejected = Code(.requestRejected)
        /// The server's answer could not be understood (a listing that is not ListBucketResult XML).
        public static let badResponse = Code(.badResponse)
        /// An object is larger than the caller allowed to read into memory.
        public static let tooLarge = Code(.tooLarge)
        /// Reading or writing a local file failed.
        public static let io = Code(.io)

        public var description: String { kind.rawValue }
    }

    public var code: Code
    /// For people: what happened and what to do about it.
    public var message: String
    /// The S3 operation (`GetObject`, `PutObject`, `HeadObject`, `DeleteObject`, `ListObjectsV2`).
    public var operation: String?
    public var bucket: String?
    public var key: String?
    /// The last HTTP status the server answered with, when it answered.
    public var httpStatus: Int?
    /// The `<Code>` of S3's error document (`NoSuchBucket`, `SignatureDoesNotMatch`, ...).
    public var s3Code: String?
    /// S3's request id (`x-amz-request-id`), for the provider's support.
    public var requestID: String?
    /// The lower-level error, when there is one (libcurl's message, errno).
    public var cause: String?
    /// The system's error number, when a system call failed (a local file could not be written).
    public var errno: Errno?

    public init(
        _ code: Code, _ message: String, operation: String? = nil, bucket: String? = nil, key: String? = nil,
        httpStatus: Int? = nil, s3Code: String? = nil, requestID: String? = nil, cause: String? = nil,
        errno: Errno? = nil
    ) {
        self.code = code
        self.message = message
        self.operation = operation
        self.bucket = bucket
        self.key = key
        self.httpStatus = httpStatus
        self.s3Code = s3Code
        self.requestID = requestID
        self.cause = cause
        self.errno = errno
    }

    /// `s3://bucket/key` (or `s3://bucket`), the object the error is about.
    public var location: String? {
        guard let bucket else { return nil }
        guard let key, !key.isEmpty else { return "s3://\(bucket)" }
        return "s3://\(bucket)/\(key)"
    }

    public var description: String {
        var text = ""
        if let location { text += location + ": " }
        if let operation { text += operation + ": " }
        text += message
        var details: [String] = []
        if let httpStatus { details.append("HTTP \(httpStatus)") }
        if let s3Code { details.append(s3Code) }
        if let cause { details.append(cause) }
        if let requestID { details.append("request id \(requestID)") }
        if !details.isEmpty { text += " (" + details.joined(separator: ", ") + ")" }
        return text
    }
}

extension ObjectStorageError: ErrorWithCause {
    public var underlyingError: (any Error)? { errno }
}
