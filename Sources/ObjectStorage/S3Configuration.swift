// S3Configuration: credentials, region, endpoint, timeouts and retries of an S3 client, read from
// the variables every AWS SDK and the AWS CLI read (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL,
// AWS_CA_BUNDLE), so a
// deployment configures symbolicate like its other tools. With an endpoint (MinIO, Ceph, R2, a
// local stand-in) requests are path-style, `ENDPOINT/BUCKET/KEY`, which those services expect;
// on AWS itself they are virtual-hosted, `https://BUCKET.s3.REGION.amazonaws.com/KEY`.

import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#endif

/// Where requests go: `http` or `https` and `host[:port]`.
public struct S3Endpoint: Sendable, Equatable, CustomStringConvertible {
    public var scheme: String
    /// `host` or `host:port`, as the Host header carries it.
    public var host: String

    public init(scheme: String, host: String) {
        self.scheme = scheme
        self.host = host
    }

    /// Parses `http(s)://HOST[:PORT][/]`.
    public init(parsing url: String) throws(ObjectStorageError) {
        func refuse(_ why: String) -> ObjectStorageError {
            ObjectStorageError(
                .invalidConfiguration,
                "the endpoint URL \"\(url)\" \(why): set AWS_ENDPOINT_URL to http(s)://HOST[:PORT], e.g. http://127.0.0.1:9000"
            )
        }
        let scheme: String
        if url.hasPrefix("https://") {
            scheme = "https"
        } else if url.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw refuse("does not begin with http:// or https://")
        }
        var rest = url.dropFirst(scheme.count + 3)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty else { throw refuse("has no host") }
        guard !rest.contains("/") else { throw refuse("has a path (buckets are added to it)") }
        guard !rest.contains("@"), !rest.contains("?"), !rest.contains("#"), !rest.contains(" ") else {
            throw refuse("holds user information, a query or spaces")
        }
        self.init(scheme: scheme, host: String(rest))
    }

    public var description: String { scheme + "://" + host }
}

public struct S3Configuration: Sendable {
    public static let defaultRegion = "us-east-1"

    public var credentials: AWSCredentials
    public var region: String
    /// A custom endpoint; nil means AWS.
    public var endpoint: S3Endpoint?
    /// `ENDPOINT/BUCKET/KEY` rather than `BUCKET.ENDPOINT/KEY`; on whenever an endpoint is set.
    public var pathStyle: Bool
    public var timeouts: TransportTimeouts
    public var retry: RetryPolicy
    /// A PEM file of certificate authorities to trust instead of the system's (AWS_CA_BUNDLE).
    public var caBundle: String?

    public init(
        credentials: AWSCredentials, region: String = S3Configuration.defaultRegion, endpoint: S3Endpoint? = nil,
        pathStyle: Bool? = nil, timeouts: TransportTimeouts = TransportTimeouts(), retry: RetryPolicy = RetryPolicy(),
        caBundle: String? = nil
    ) {
        self.credentials = credentials
        self.region = region
        self.endpoint = endpoint
        self.pathStyle = pathStyle ?? (endpoint != nil)
        self.timeouts = timeouts
        self.retry = retry
        self.caBundle = caBundle
    }

    /// The configuration the standard AWS variables describe. `environment` looks a variable up
    /// (the process environment by default); empty values count as unset.
    public static func fromEnvironment(
        _ environment: (String) -> String? = { name in getenv(name).map { String(cString: $0) } }
    ) throws(ObjectStorageError) -> S3Configuration {
        func value(_ name: String) -> String? {
            guard let text = environment(name), !text.isEmpty else { return nil }
            return text
        }
        guard let accessKey = value("AWS_ACCESS_KEY_ID"), let secretKey = value("AWS_SECRET_ACCESS_KEY") else {
            throw ObjectStorageError(
                .invalidConfiguration,
                "object storage needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones)"
            )
        }
        let credentials = AWSCredentials(
            accessKeyID: accessKey, secretAccessKey: secretKey, sessionToken: value("AWS_SESSION_TOKEN"))
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? defaultRegion
        let endpoint = try (value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")).map {
            (url: String) throws(ObjectStorageError) -> S3Endpoint in try S3Endpoint(parsing: url)
        }
        let caBundle = value("AWS_CA_BUNDLE")
        if let caBundle, access(caBundle, R_OK) != 0 {
            let errno = Errno.current
            throw ObjectStorageError(
                .invalidConfiguration,
                "AWS_CA_BUNDLE names \(caBundle), which cannot be read: point it at a PEM file of certificate authorities",
                cause: errno.description, errno: errno)
        }
        return S3Configuration(credentials: credentials, region: region, endpoint: endpoint, caBundle: caBundle)
    }

    /// Scheme, host and encoded path of an object (or, with an empty key, of the bucket).
    func address(bucket: String, key: String) -> (scheme: String, host: String, encodedPath: String) {
        let encodedKey = SignatureV4.encodePath(key)
        // Dotted bucket names do not match AWS's wildcard certificate as a subdomain: path-style for them.
        if pathStyle || bucket.contains(".") {
            let endpoint = self.endpoint ?? S3Endpoint(scheme: "https", host: "s3.\(region).amazonaws.com")
            let path = key.isEmpty ? "/" + bucket : "/" + bucket + "/" + encodedKey
            return (endpoint.scheme, endpoint.host, path)
        }
        if let endpoint {
            return (endpoint.scheme, bucket + "." + endpoint.host, "/" + encodedKey)
        }
        return ("https", "\(bucket).s3.\(region).amazonaws.com", "/" + encodedKey)
    }
}
