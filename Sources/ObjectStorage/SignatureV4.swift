// AWS Signature Version 4 for S3, written here rather than taken from libcurl. Measured with
// curl 7.88.1 --aws-sigv4 against Tests/ObjectStorageTests/Fixtures/flaky-s3.py (botocore checks
// the signature): a plain GET fails unless the caller adds x-amz-content-sha256 itself, and a query
// whose parameters are not already in sorted order (`?prefix=p%2F&list-type=2`, or ListObjectsV2's
// `list-type=2&continuation-token=...`) fails even then. The steps follow AWS's
// "Create a signed AWS API request" (canonical request -> string to sign -> signing key ->
// signature) with S3's two rules: the path is URI-encoded once and never normalized, and the
// payload's SHA-256 is sent as x-amz-content-sha256. ObjectStorageTests checks every step against
// vectors computed by botocore (Fixtures/sigv4-vectors.py).

import Digest
import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#endif

/// The keys a request is signed with, as AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
/// AWS_SESSION_TOKEN give them.
public struct AWSCredentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// A temporary credential's token; sent (and signed) as x-amz-security-token.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// A moment in UTC, as Signature V4 writes it: `20130524T000000Z` and the date `20130524`.
public struct SigningTime: Sendable, Equatable {
    public let secondsSince1970: Int
    /// ISO 8601 basic format, the x-amz-date header.
    public let amzDate: String
    /// YYYYMMDD, the first part of the credential scope.
    public let dateStamp: String

    public init(secondsSince1970: Int) {
        self.secondsSince1970 = secondsSince1970
        var seconds = time_t(secondsSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        dateStamp = pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2)
        amzDate = dateStamp + "T" + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "Z"
    }

    /// The current time.
    public static func now() -> SigningTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return SigningTime(secondsSince1970: Int(now.tv_sec))
    }
}

public struct SignatureV4: Sendable {
    /// The hex SHA-256 of an empty payload (GET, HEAD, DELETE).
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let algorithm = "AWS4-HMAC-SHA256"
    /// Headers a proxy or libcurl may add, change or drop: never signed (botocore's list).
    static let unsignedHeaders: Set<String> = [
        "connection", "expect", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "user-agent", "x-amzn-trace-id", "authorization",
    ]

    public var credentials: AWSCredentials
    public var region: String
    public var service: String = "s3"

    /// What is signed: everything about an HTTP request that S3 checks.
    public struct Request: Sendable {
        public var method: String
        /// `host` or `host:port` (the port only when it is not the scheme's default).
        public var host: String
        /// The path as sent, already URI-encoded (see `encodePath`).
        public var encodedPath: String
        /// Query parameters, not encoded; the signer encodes and sorts them.
        public var query: [(String, String)] = []
        /// Further headers to send and sign (Content-Type, If-None-Match, x-amz-meta-*, Range).
        public var headers: [(String, String)] = []
        /// The hex SHA-256 of the body.
        public var payloadHash: String = SignatureV4.emptyPayloadHash
    }

    /// The signer's output: the headers to send, and the intermediate texts for tests and debugging.
    public struct Signed: Sendable {
        public var canonicalRequest: String
        public var stringToSign: String
        public var authorization: String
        /// Every header the request must carry: the caller's, host, x-amz-content-sha256,
        /// x-amz-date, x-amz-security-token when there is a session token, and Authorization.
        public var headers: [(String, String)]
    }

    public func sign(_ request: Request, at time: SigningTime) -> Signed {
        var headers = request.headers.filter { name, _ in
            let lower = name.lowercased()
            return lower != "host" && lower != "x-amz-date" && lower != "x-amz-content-sha256"
                && lower != "x-amz-security-token" && lower != "authorization"
        }
        headers.append(("Host", request.host))
        headers.append(("x-amz-content-sha256", request.payloadHash))
        headers.append(("x-amz-date", time.amzDate))
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }

        // Lowercase names, values trimmed with inner runs of spaces collapsed, repeated names joined by
        // commas, sorted by name.
        var canonicalHeaders: [String: String] = [:]
        for (name, value) in headers {
            let lower = name.lowercased()
            guard !SignatureV4.unsignedHeaders.contains(lower) else { continue }
            let trimmed = SignatureV4.trimHeaderValue(value)
            if let existing = canonicalHeaders[lower] {
                canonicalHeaders[lower] = existing + "," + trimmed
            } else {
                canonicalHeaders[lower] = trimmed
            }
        }
        let names = canonicalHeaders.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        var canonicalRequest = request.method + "\n" + request.encodedPath + "\n"
        canonicalRequest += SignatureV4.canonicalQuery(request.query) + "\n"
        for name in names { canonicalRequest += name + ":" + (canonicalHeaders[name] ?? "") + "\n" }
        canonicalRequest += "\n" + signedHeaders + "\n" + request.payloadHash

        let scope = "\(time.dateStamp)/\(region)/\(service)/aws4_request"
        let stringToSign =
            SignatureV4.algorithm + "\n" + time.amzDate + "\n" + scope + "\n"
            + SHA256.hex(Array(canonicalRequest.utf8))

        var key = hmacSHA256(
            key: Array(("AWS4" + credentials.secretAccessKey).utf8), message: Array(time.dateStamp.utf8))
        key = hmacSHA256(key: key, message: Array(region.utf8))
        key = hmacSHA256(key: key, message: Array(service.utf8))
        key = hmacSHA256(key: key, message: Array("aws4_request".utf8))
        let signature = hexString(hmacSHA256(key: key, message: Array(stringToSign.utf8)))

        let authorization =
            SignatureV4.algorithm + " Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        headers.append(("Authorization", authorization))
        return Signed(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, authorization: authorization,
            headers: headers)
    }

    /// The query string both signed and sent: names and values URI-encoded (RFC 3986 unreserved
    /// characters kept, everything else %XX, `/` included), sorted by name and then value.
    public static func canonicalQuery(_ query: [(String, String)]) -> String {
        var pairs: [(name: String, value: String)] = []
        for (name, value) in query {
            pairs.append((uriEncode(name, keepSlash: false), uriEncode(value, keepSlash: false)))
        }
        // Encoded text is ASCII, so String's order is byte order here.
        pairs.sort { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        var parts: [String] = []
        for pair in pairs { parts.append(pair.name + "=" + pair.value) }
        return parts.joined(separator: "&")
    }

    /// An object path (`/bucket/key` or `/key`) URI-encoded once, `/` kept: S3 neither decodes nor
    /// normalizes it, so `a//b/./c` names a different object than `a/b/c`.
    public static func encodePath(_ path: String) -> String { uriEncode(path, keepSlash: true) }

    /// AWS's UriEncode: UTF-8 bytes, A-Z a-z 0-9 - . _ ~ as they are, every other byte %XX (uppercase).
    public static func uriEncode(_ text: String, keepSlash: Bool) -> String {
        ASCII.percentEncoded(text, keeping: keepSlash ? [UInt8(ascii: "/")] : [])
    }

    static func trimHeaderValue(_ value: String) -> String {
        var out = ""
        var pendingSpace = false
        for character in value {
            if character == " " || character == "\t" {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(character)
            }
        }
        return out
    }
}
