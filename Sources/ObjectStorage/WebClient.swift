// A plain HTTP client over the same libcurl transport as the S3 client, for talking to a
// `symbolicate serve` (the upload command): one request, its answer in memory, and the
// transport's failures as ObjectStorageError (unreachable, timeout, TLS), so callers decide about
// retries from one type. libcurl is loaded when the first client is made.

import SymbolicateModel

/// An HTTP answer: status, headers (names in lowercase) and body.
public struct WebResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? { headers.first { $0.0 == name.lowercased() }?.1 }
}

public final class WebClient: Sendable {
    private let transport: CurlTransport
    private let timeouts: TransportTimeouts
    private let caBundle: String?

    /// `caBundle`: a PEM file of the authorities to trust instead of the system's.
    public init(timeouts: TransportTimeouts = TransportTimeouts(), caBundle: String? = nil) throws(ObjectStorageError) {
        transport = try CurlTransport()
        self.timeouts = timeouts
        self.caBundle = caBundle
    }

    /// Sends one request (`url` complete and encoded); answers whatever status came back, and
    /// throws only when no answer came (or it was larger than `limit`).
    public func send(
        _ method: String, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        limit: Int = 16 << 20
    ) throws(ObjectStorageError) -> WebResponse {
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body.map { .bytes($0) } ?? .none)
        return try perform(request, destination: .memory(limit: limit))
    }

    /// GETs `url` and writes a 2xx answer's body to the open file `descriptor` (never into
    /// memory); any other answer's body (cut at 64 KB) is the response's. Throws only when no
    /// answer came.
    public func download(_ url: String, to descriptor: Int32, headers: [(String, String)] = [])
        throws(ObjectStorageError) -> WebResponse
    {
        try perform(HTTPRequest(method: "GET", url: url, headers: headers), destination: .file(descriptor: descriptor))
    }

    private func perform(_ request: HTTPRequest, destination: ResponseDestination) throws(ObjectStorageError)
        -> WebResponse
    {
        let method = request.method
        let url = request.url
        do {
            let response = try transport.perform(
                request, destination: destination, timeouts: timeouts, caBundle: caBundle)
            return WebResponse(status: response.status, headers: response.headers, body: response.body)
        } catch {
            let code: ObjectStorageError.Code
            switch error.kind {
            case .unreachable: code = .unreachable
            case .timeout: code = .timeout
            case .tls: code = .untrustedServer
            case .tooLarge: code = .tooLarge
            case .io, .other: code = .io
            }
            throw ObjectStorageError(code, "\(method) \(url): \(error.message)", operation: method)
        }
    }
}
