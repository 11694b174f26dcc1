// The one wrapper around libcurl: HTTP requests for the S3 client, over the CCurl shim that
// dlopens libcurl.so.4 the first time a transport is made (so commands that never touch a bucket
// never load libcurl or its TLS stack). One easy handle per request in flight, taken from a pool
// and put back, so connections (and TLS sessions) are reused across requests. Redirects are not
// followed here: a redirected S3 request must be signed again for its new host, which the client
// does. C types stay inside this file.

internal import CCurl
import SymbolicateModel

#if canImport(Glibc)
    import Glibc
#endif

/// How long a request may take: to connect, in total, and how slow it may get before it is
/// given up (fewer than `lowSpeedBytesPerSecond` for `lowSpeedSeconds`).
public struct TransportTimeouts: Sendable, Equatable {
    public var connectSeconds: Double
    public var totalSeconds: Double
    public var lowSpeedBytesPerSecond: Int
    public var lowSpeedSeconds: Int

    public init(
        connectSeconds: Double = 5, totalSeconds: Double = 900, lowSpeedBytesPerSecond: Int = 1024,
        lowSpeedSeconds: Int = 30
    ) {
        self.connectSeconds = connectSeconds
        self.totalSeconds = totalSeconds
        self.lowSpeedBytesPerSecond = lowSpeedBytesPerSecond
        self.lowSpeedSeconds = lowSpeedSeconds
    }
}

/// One HTTP request as the transport sends it: the URL is complete (encoded path and query).
struct HTTPRequest {
    enum Body {
        case none
        case bytes([UInt8])
        /// `size` bytes of an open file from offset 0, read with pread (so a retry reads it again).
        case file(descriptor: Int32, size: Int64)
    }

    var method: String
    var url: String
    var headers: [(String, String)]
    var body: Body = .none
}

/// Where a successful (2xx) response body goes. Error bodies always go to memory.
enum ResponseDestination {
    case memory(limit: Int)
    case file(descriptor: Int32)
}

struct HTTPResponse {
    var status: Int
    /// Header names in lowercase, in the order received.
    var headers: [(String, String)]
    /// The body when it went to memory, or an error body.
    var body: [UInt8]
    var bytesReceived: Int64

    func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
}

/// A request that got no HTTP answer.
struct TransportFailure: Error {
    enum Kind { case unreachable, timeout, tls, tooLarge, io, other }
    var kind: Kind
    var message: String
    /// Whether trying again may help (a refused connection may; a bad certificate will not).
    var retryable: Bool
}

/// The libcurl transport. Thread-safe: each `perform` uses its own handle.
final class CurlTransport: Sendable {
    /// Error bodies larger than this are cut: only the S3 error document at their start matters.
    static let errorBodyLimit = 64 * 1024

    private let idle = Locked<[CurlHandle]>([])

    /// Loads libcurl; throws a clear error when it is not installed.
    init() throws(ObjectStorageError) {
        guard symbolicate_curl_load() != 0 else {
            throw ObjectStorageError(
                .libraryMissing, "object storage needs libcurl4: apt-get install libcurl4",
                cause: String(cString: symbolicate_curl_load_error()))
        }
    }

    /// The loaded libcurl's version ("7.88.1").
    var libraryVersion: String { String(cString: symbolicate_curl_version()) }

    func perform(
        _ request: HTTPRequest, destination: ResponseDestination, timeouts: TransportTimeouts, caBundle: String? = nil
    ) throws(TransportFailure) -> HTTPResponse {
        let handle: CurlHandle
        do {
            handle = try idle.withLock { handles throws(TransportFailure) in
                if let last = handles.popLast() { return last }
                return try CurlHandle()
            }
        }
        defer { idle.withLock { $0.append(handle) } }
        return try handle.perform(request, destination: destination, timeouts: timeouts, caBundle: caBundle)
    }
}

/// One CURL easy handle and its error buffer. Used by one thread at a time: taken from the
/// transport's pool for one request and put back after it.
// @unchecked: a CURL easy handle, owned by the one thread that took it from the pool.
final class CurlHandle: @unchecked Sendable {
    private let easy: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init() throws(TransportFailure) {
        guard let easy = symbolicate_curl_easy_init() else {
            throw TransportFailure(kind: .other, message: "curl_easy_init failed", retryable: false)
        }
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        symbolicate_curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }

    func perform(
        _ request: HTTPRequest, destination: ResponseDestination, timeouts: TransportTimeouts, caBundle: String?
    ) throws(TransportFailure) -> HTTPResponse {
        // reset clears the options of the previous request but keeps its connections.
        symbolicate_curl_easy_reset(easy)
        errorBuffer[0] = 0
        let transfer = Transfer(destination: destination, body: request.body)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }

        var headerList: UnsafeMutablePointer<curl_slist>? = nil
        // No "Expect: 100-continue": one round trip less per PUT; S3 answers a refused PUT after the body.
        for line in request.headers.map({ "\($0.0): \($0.1)" }) + ["Expect:"] {
            headerList = symbolicate_curl_slist_append(headerList, line)
        }
        defer { symbolicate_curl_slist_free_all(headerList) }

        var rc = CURLE_OK
        func set(_ result: CURLcode) { if rc == CURLE_OK { rc = result } }
        set(symbolicate_curl_setopt_string(easy, CURLOPT_URL, request.url))
        set(symbolicate_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(symbolicate_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(symbolicate_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        // S3 keys may hold "/./" and "/../", and the signature covers the path as given: libcurl must
        // not squash dot segments (RFC 3986 section 5.2.4), or another object is read and the signature fails.
        set(symbolicate_curl_setopt_long(easy, CURLOPT_PATH_AS_IS, 1))
        set(symbolicate_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        set(symbolicate_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(timeouts.connectSeconds * 1000)))
        set(symbolicate_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(timeouts.totalSeconds * 1000)))
        set(symbolicate_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, timeouts.lowSpeedBytesPerSecond))
        set(symbolicate_curl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, timeouts.lowSpeedSeconds))
        // TLS peers are always verified; a private CA (MinIO, Ceph behind an internal CA) is trusted
        // through a bundle file, never by turning verification off.
        if let caBundle { set(symbolicate_curl_setopt_string(easy, CURLOPT_CAINFO, caBundle)) }
        set(symbolicate_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
        set(symbolicate_curl_setopt_data_function(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback))
        set(symbolicate_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context.toOpaque()))
        set(symbolicate_curl_setopt_data_function(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback))
        set(symbolicate_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context.toOpaque()))
        switch request.method {
        case "GET":
            set(symbolicate_curl_setopt_long(easy, CURLOPT_HTTPGET, 1))
        case "HEAD":
            set(symbolicate_curl_setopt_long(easy, CURLOPT_NOBODY, 1))
        case "PUT", "POST":
            let size: Int64
            switch request.body {
            case .none: size = 0
            case .bytes(let bytes): size = Int64(bytes.count)
            case .file(_, let fileSize): size = fileSize
            }
            set(symbolicate_curl_setopt_long(easy, CURLOPT_UPLOAD, 1))
            set(symbolicate_curl_setopt_off(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(size)))
            set(symbolicate_curl_setopt_data_function(easy, CURLOPT_READFUNCTION, curlReadCallback))
            set(symbolicate_curl_setopt_pointer(easy, CURLOPT_READDATA, context.toOpaque()))
            // An upload is a PUT to libcurl; a POST (the upload client's) says so.
            if request.method == "POST" { set(symbolicate_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, "POST")) }
        default:
            set(symbolicate_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method))
        }
        guard rc == CURLE_OK else {
            throw TransportFailure(
                kind: .other,
                message: "libcurl refused an option: " + String(cString: symbolicate_curl_easy_strerror(rc)),
                retryable: false)
        }

        let result = symbolicate_curl_easy_perform(easy)
        if let failure = transfer.failure { throw failure }
        guard result == CURLE_OK else { throw failure(result) }
        var status = 0
        symbolicate_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(
            status: status, headers: transfer.headers, body: transfer.body, bytesReceived: transfer.bytesReceived)
    }

    private func failure(_ code: CURLcode) -> TransportFailure {
        let detail =
            errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: symbolicate_curl_easy_strerror(code))
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR:
            return TransportFailure(kind: .unreachable, message: detail, retryable: true)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            return TransportFailure(kind: .tls, message: detail, retryable: false)
        case CURLE_OPERATION_TIMEDOUT:
            return TransportFailure(kind: .timeout, message: detail, retryable: true)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM:
            return TransportFailure(kind: .other, message: detail, retryable: true)
        default:
            // Certificates that do not verify, malformed URLs, unsupported protocols: trying again will not help.
            return TransportFailure(kind: .other, message: detail, retryable: false)
        }
    }
}

/// What the callbacks of one transfer share with `perform`: the response as it arrives, the
/// upload's position, and the first local failure (which makes the callback abort the transfer).
private final class Transfer {
    let destination: ResponseDestination
    let upload: HTTPRequest.Body
    var uploadOffset = 0
    var status = 0
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var bytesReceived: Int64 = 0
    var failure: TransportFailure?

    init(destination: ResponseDestination, body: HTTPRequest.Body) {
        self.destination = destination
        self.upload = body
    }

    func header(_ line: UnsafeRawBufferPointer) {
        // Bytes, not Characters: "\r\n" is one Character in Swift.
        var end = line.count
        while end > 0, line[end - 1] == 0x0a || line[end - 1] == 0x0d { end -= 1 }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<end]), as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            // A new status line (after 100 Continue, say): the headers so far were another response's.
            let fields = text.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headers.removeAll()
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].lowercased()
            let value = text[text.index(after: colon)...].trimmingSpaces()
            headers.append((name, value))
        }
    }

    func write(_ data: UnsafeRawBufferPointer) -> Bool {
        bytesReceived += Int64(data.count)
        if (200..<300).contains(status), case .file(let descriptor) = destination {
            var rest = data
            while !rest.isEmpty {
                let written = Glibc.write(descriptor, rest.baseAddress, rest.count)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = TransportFailure(
                        kind: .io, message: "cannot write the download: " + Errno.current.description,
                        retryable: false)
                    return false
                }
                rest = UnsafeRawBufferPointer(rebasing: rest[written...])
            }
            return true
        }
        let limit: Int
        if (200..<300).contains(status), case .memory(let memoryLimit) = destination {
            limit = memoryLimit
        } else {
            limit = CurlTransport.errorBodyLimit
        }
        if body.count + data.count > limit {
            if (200..<300).contains(status) {
                failure = TransportFailure(
                    kind: .tooLarge, message: "the object is larger than \(limit) bytes", retryable: false)
                return false
            }
            body.append(contentsOf: data.prefix(max(0, limit - body.count)))
            return true
        }
        body.append(contentsOf: data)
        return true
    }

    /// Fills `buffer` with the next bytes of the upload; nil when reading the file failed.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        switch upload {
        case .none:
            return 0
        case .bytes(let bytes):
            let count = min(buffer.count, bytes.count - uploadOffset)
            guard count > 0 else { return 0 }
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[uploadOffset..<uploadOffset + count]))
            }
            uploadOffset += count
            return count
        case .file(let descriptor, let size):
            let wanted = Int(min(Int64(buffer.count), size - Int64(uploadOffset)))
            guard wanted > 0 else { return 0 }
            while true {
                let got = pread(descriptor, buffer.baseAddress, wanted, off_t(uploadOffset))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else {
                    let reason =
                        got < 0 ? Errno.current.description : "the file is shorter than when the upload began"
                    failure = TransportFailure(
                        kind: .io, message: "cannot read the upload: " + reason, retryable: false)
                    return nil
                }
                uploadOffset += got
                return got
            }
        }
    }
}

private let curlHeaderCallback:
    @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        transfer.header(UnsafeRawBufferPointer(start: data, count: size * count))
        return size * count
    }

private let curlWriteCallback:
    @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        // Returning fewer bytes than given makes libcurl stop with CURLE_WRITE_ERROR.
        return transfer.write(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
    }

private let curlReadCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int =
    {
        data, size, count, context in
        guard let data, let context else { return Int(CURL_READFUNC_ABORT) }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.read(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
            ?? Int(CURL_READFUNC_ABORT)
    }

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
