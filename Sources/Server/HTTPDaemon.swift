// The libmicrohttpd wrapper: starts a daemon (epoll, internal thread pool) on a socket we opened,
// turns its callbacks into `Exchange` objects, reads bodies into memory or a file within a limit
// (a multipart/form-data body through libmicrohttpd's post processor, keeping the one file part),
// suspends connections whose handler runs on a worker queue, and sends `HTTPResponse`s. C types
// stay in this file; the context object crosses C as an `Unmanaged` pointer retained from start
// to stop, and each exchange is retained from the URI callback (the request line, before headers)
// to the completion callback. `HTTPLimits` keeps the request target within what libmicrohttpd's
// per-connection memory holds, so that a target over them is answered (414), not left hanging.

internal import CMicroHTTPD
import Dispatch
import Foundation
import Store
import SymbolicateModel
import SystemSupport

/// The request target's limits, and libmicrohttpd's memory per connection they are measured
/// against. libmicrohttpd 0.9.75 reads the request line and headers into that memory and keeps a
/// record of every query argument and header in what is left. A request whose query arguments do
/// not fit is never answered: the access callback is not called and the connection waits until
/// the header watchdog (or the idle timeout) closes it. So the server reads the target as the
/// request line arrives (`requestLine`), and one over these limits has its query hidden from
/// libmicrohttpd and is answered 414. Measured with the 32 KB below: 300 arguments fit beside an
/// 8 KB request line (400 do not), 200 beside 16 KB, 100 beside 24 KB; so 100 arguments in at most
/// 8192 bytes fit with room left for the headers (headers that do not fit get libmicrohttpd's own
/// 431 page, at once). A request line longer than the memory itself gets libmicrohttpd's own 414
/// page before the server sees it.
enum HTTPLimits {
    /// libmicrohttpd's memory per connection (MHD_OPTION_CONNECTION_MEMORY_LIMIT).
    static let connectionMemory = 32 << 10
    /// Longest request target (path and query, as sent) answered otherwise than 414.
    static let maxTargetBytes = 8192
    /// Most query arguments (`&`-separated) a request may have.
    static let maxQueryArguments = 100

    /// Why a target is over the limits, or nil.
    static func problem(_ target: String) -> String? {
        let length = target.utf8.count
        if length > maxTargetBytes {
            return "the request target is \(length) bytes long; at most \(maxTargetBytes) bytes are accepted"
        }
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let arguments = target.utf8[mark...].reduce(1) { $1 == UInt8(ascii: "&") ? $0 + 1 : $0 }
        if arguments > maxQueryArguments {
            return "the request has \(arguments) query arguments; at most \(maxQueryArguments) are accepted"
        }
        return nil
    }

    /// Ends the query right after its `?` in the request line as libmicrohttpd holds it (in its
    /// read buffer, which it writes to as it parses), so that the arguments it parses right after
    /// the URI callback returns are none. `uri` points into that buffer.
    static func hideQuery(_ uri: UnsafePointer<CChar>) {
        guard let mark = strchr(uri, Int32(UInt8(ascii: "?"))) else { return }
        (mark + 1).pointee = 0
    }
}

/// What the server decides for a request; the daemon carries it out.
enum ExchangeDecision {
    /// Send this now.
    case respond(HTTPResponse)
    /// Read the body (first callback) with this policy.
    case readBody(BodyPolicy)
    /// Suspend the connection and compute the response on a worker queue.
    case offload(@Sendable () -> HTTPResponse)
}

/// The server side of the daemon: called on the network threads.
protocol ExchangeHandler: AnyObject, Sendable {
    /// First callback, headers known, no body yet.
    func begin(_ exchange: Exchange) -> ExchangeDecision
    /// The body is complete (or over its limit: `exchange.overLimit`).
    func finish(_ exchange: Exchange) -> ExchangeDecision
    /// The response was sent or the connection ended.
    func completed(_ exchange: Exchange, clientGone: Bool)
    /// The header watchdog closed a connection.
    func headerTimedOut()
}

/// One request in flight. Touched by one network thread at a time (and by a worker while suspended).
// @unchecked: owned by one thread at a time, handed over through libmicrohttpd's suspend and resume.
final class Exchange: @unchecked Sendable {
    /// The request target exactly as sent (before percent-decoding), query included.
    let target: String
    /// Why the target is over `HTTPLimits` (the server answers 414), or nil. Such a request's
    /// query was hidden from libmicrohttpd: `query` is empty.
    let targetProblem: String?
    var method = ""
    var path = ""
    /// `HTTP/1.1` or `HTTP/1.0`, as the request line says.
    var version = ""
    /// Why the header block's layout is unsafe (HeaderBlock), or nil.
    var headerBlockProblem: String?
    var headers: [String: String] = [:]
    var query: [String: String] = [:]
    let started = DispatchTime.now()
    var policy: BodyPolicy = .none
    var body: [UInt8] = []
    var bodyFile: String?
    private var fileDescriptor: Int32 = -1
    /// Bytes read from the connection (the limit applies to these) and bytes kept as the body
    /// (fewer for a multipart form: only its file part).
    var bytesReceived = 0
    var bodyLength = 0
    var overLimit = false
    /// Why the connection was closed without an answer, for the access log: `body_too_slow` and
    /// `request_timeout` (the body limits below), `idle_timeout` (libmicrohttpd's own).
    var closed: String?
    var writeError: String?
    /// A multipart/form-data body: libmicrohttpd's parser, the part being kept, what went wrong.
    fileprivate var postProcessor: OpaquePointer?
    private var formPart: (key: String, received: UInt64)?
    private var formDone = false
    var isForm = false
    var formFileName: String?
    var formError: String?
    /// Every part, for a route that reads `.parts`.
    var formParts: [FormPart] = []
    /// The last piece was libmicrohttpd's empty announcement of a part (see `keepPart`).
    private var announcedEmpty = false
    /// More parts than this is refused (each costs a record beside its bytes).
    static let maxFormParts = 1000
    /// The application's state of this request (the server's routing and authorization), carried
    /// here and never read by the daemon; everything else in an Exchange is transport.
    var routing = RouteState()
    /// The response waiting to be sent after a resume, and what was sent (for the log).
    var pending: HTTPResponse?
    var status = 0
    var bytesSent = 0
    var begun = false

    init(target: String) {
        self.target = target
        self.targetProblem = HTTPLimits.problem(target)
    }

    /// Why the request's framing is unsafe to serve, or nil: Content-Length headers that disagree,
    /// or Transfer-Encoding beside Content-Length (a proxy in front may have used the other one:
    /// request smuggling, RFC 9112 section 6.1), a transfer coding other than `chunked` alone
    /// (libmicrohttpd would wait for a body it cannot delimit), or a NUL escaped into the target
    /// (C strings end there, so `/healthz%00x` would be served as `/healthz`).
    var framingProblem: String? {
        if let headerBlockProblem { return headerBlockProblem }
        if version == "HTTP/1.1", headers["host"] == nil {
            return "the HTTP/1.1 request has no Host header"
        }
        // One plain length (the usual request) passes the two checks below at once.
        let plainLength = headers["content-length"].map(HeaderBlock.isPlainLength) ?? false
        if !plainLength, let lengths = headers["content-length"],
            let bad = lengths.split(separator: ",", omittingEmptySubsequences: false).map({
                $0.trimmingCharacters(in: .whitespaces)
            }).first(where: { !HeaderBlock.isPlainLength($0) })
        {
            return "the request's Content-Length \"\(bad)\" is not a plain number"
        }
        if let codings = headers["transfer-encoding"] {
            if headers["content-length"] != nil {
                return "the request has both Transfer-Encoding and Content-Length"
            }
            if codings.trimmingCharacters(in: .whitespaces).lowercased() != "chunked" {
                return "the request's Transfer-Encoding is \(codings); only chunked is accepted"
            }
        }
        if !plainLength, let lengths = headers["content-length"], lengths.contains(",") {
            let values = Set(lengths.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            if values.count > 1 {
                let listed = values.sorted().joined(separator: ", ")
                return "the request has Content-Length headers that disagree (\(listed))"
            }
        }
        if HeaderBlock.holds(target, "%00") {
            return "the request target holds an encoded NUL (%00)"
        }
        return nil
    }

    func startBody(_ policy: BodyPolicy, directory: String) {
        self.policy = policy
        if case .file = policy {
            let path = directory + "/upload-\(UUID().uuidString)"
            let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            if fd >= 0 {
                fileDescriptor = fd
                bodyFile = path
            } else {
                writeError = "cannot create a temporary file in \(directory): \(Errno.current.description)"
            }
        } else if case .memory = policy, let length = headers["content-length"].flatMap(Int.init), length > 0,
            length <= policy.limit
        {
            body.reserveCapacity(length)
        }
    }

    /// Bytes from the connection: counted against the limit, then kept (or parsed as a form).
    func receive(_ bytes: UnsafeRawBufferPointer) {
        bytesReceived += bytes.count
        guard !overLimit else { return }
        if bytesReceived > policy.limit {
            overLimit = true
            body = []
            return
        }
        if let postProcessor {
            guard formError == nil, let base = bytes.baseAddress else { return }
            if cmhd_post_process(postProcessor, base.assumingMemoryBound(to: CChar.self), bytes.count) == .NO {
                formError = "the multipart/form-data body could not be parsed"
            }
        } else {
            keep(bytes)
        }
    }

    /// One piece of a form field from the post processor: the first field named `file`, or else the
    /// first one that carries a file name, becomes the body; other fields are ignored. A `file`
    /// field after another field with a file name replaces what that one kept.
    fileprivate func formData(key: String, fileName: String?, offset: UInt64, _ bytes: UnsafeRawBufferPointer) {
        guard !formDone else { return }
        if case .parts = policy { return keepPart(key: key, fileName: fileName, offset: offset, bytes) }
        if let part = formPart, key == part.key, offset == part.received {
            formPart = (key, part.received + UInt64(bytes.count))
        } else if let part = formPart {
            // Another field: the `file` field once the kept one is not it; else the form is read.
            guard part.key != "file", key == "file", offset == 0 else {
                if part.key == "file" { formDone = true }
                return
            }
            discardKept()
            formPart = (key, UInt64(bytes.count))
            formFileName = fileName
        } else {
            guard key == "file" || fileName != nil, offset == 0 else { return }
            formPart = (key, UInt64(bytes.count))
            formFileName = fileName
        }
        keep(bytes)
    }

    /// A piece of one of every part kept (`.parts`): offset 0 starts a part, later pieces extend it.
    /// libmicrohttpd announces a part with an empty piece at offset 0 when what it has read ends
    /// within four bytes after the part's data starts, and then gives the data at offset 0 again:
    /// that second start continues the part it announced.
    private func keepPart(key: String, fileName: String?, offset: UInt64, _ bytes: UnsafeRawBufferPointer) {
        if offset == 0, let last = formParts.last, last.bytes.isEmpty, last.name == key, last.fileName == fileName,
            announcedEmpty
        {
            announcedEmpty = bytes.isEmpty
            formParts[formParts.count - 1].bytes.append(contentsOf: bytes)
            bodyLength += bytes.count
            return
        }
        announcedEmpty = offset == 0 && bytes.isEmpty
        if offset == 0 || formParts.isEmpty {
            guard formParts.count < Self.maxFormParts else {
                formError = "the multipart/form-data body has more than \(Self.maxFormParts) parts"
                formDone = true
                return
            }
            formParts.append(FormPart(name: key, fileName: fileName, bytes: []))
        }
        formParts[formParts.count - 1].bytes.append(contentsOf: bytes)
        bodyLength += bytes.count
    }

    /// Forgets the body kept so far (a form part that another replaces).
    private func discardKept() {
        body.removeAll(keepingCapacity: true)
        bodyLength = 0
        if fileDescriptor >= 0, ftruncate(fileDescriptor, 0) != 0 || lseek(fileDescriptor, 0, SEEK_SET) != 0 {
            writeError = "cannot rewind the upload's temporary file: \(Errno.current.description)"
        }
    }

    /// The form is complete: frees the parser; a form without a file part is an error.
    fileprivate func finishForm() {
        guard let postProcessor else { return }
        self.postProcessor = nil
        let complete = cmhd_destroy_post_processor(postProcessor) == .YES
        guard formError == nil, !overLimit else { return }
        if case .parts = policy {
            if !complete { formError = "the multipart/form-data body ends before its closing boundary" }
        } else if formPart == nil {
            formError = "the multipart/form-data body has no file field; send the file as -F file=@PATH"
        } else if !complete {
            formError = "the multipart/form-data body ends before its closing boundary"
        }
    }

    private func keep(_ bytes: UnsafeRawBufferPointer) {
        bodyLength += bytes.count
        switch policy {
        case .none:
            break
        case .memory, .parts:
            body.append(contentsOf: bytes)
        case .file:
            guard fileDescriptor >= 0 else { return }
            let code = OutputFile.writeAll(fileDescriptor, bytes)
            if code != 0 { writeError = "cannot write the upload to disk: \(Errno(rawValue: code).description)" }
        }
    }

    func closeBodyFile() {
        if fileDescriptor >= 0 {
            close(fileDescriptor)
            fileDescriptor = -1
        }
    }

    /// Removes the temporary body file, if any.
    func discardBodyFile() {
        closeBodyFile()
        if let bodyFile { unlink(bodyFile) }
        bodyFile = nil
    }

    var elapsedSeconds: Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }
}

// @unchecked: `daemon` and `context` are set by `start` and cleared by `stop`, which the server
// calls once each, before and after every callback; shared state is in `suspensions`.
final class HTTPDaemon: @unchecked Sendable {
    struct Configuration {
        var listenFD: Int32
        var threads: Int
        var connectionTimeoutSeconds: Int
        var connectionLimit: Int
        /// Connections one client address may hold open at once; 0 for no limit.
        var connectionsPerAddress: Int
        /// Seconds a connection may take to send a request's headers (the watchdog); 0 for no limit.
        var headerTimeoutSeconds: Int
        var uploadDirectory: String
        /// Seconds a request (its body included) may take to arrive.
        var requestTimeoutSeconds: Int
        /// After `bodyGraceSeconds`, a request may take one more second per this many bytes received.
        var minimumBodyRate: Int
        var bodyGraceSeconds: Int
    }

    private var daemon: OpaquePointer?
    private let handler: any ExchangeHandler
    private let uploadDirectory: String
    private let requestTimeout: Double
    private let minimumBodyRate: Double
    private let bodyGrace: Double
    private let watchdog: HeaderWatchdog?
    private let workers = DispatchQueue(label: "symbolicate.server.workers", attributes: .concurrent)
    /// Connections suspended while a worker computes their response, by connection. libmicrohttpd
    /// cannot stop while any is suspended (it aborts the process), and a worker must not resume a
    /// connection the daemon has closed: `stop` answers the ones still here itself.
    /// libmicrohttpd is never called with this lock held: its completion callback takes it.
    private struct Suspensions {
        var suspended: [UInt: Exchange] = [:]
        /// Workers between taking their connection out of `suspended` and resuming it.
        var resuming = 0
        /// Set by `stop`: no connection is suspended any more.
        var stopping = false
        /// Connections `stop` resumed, until their answer is sent and they complete.
        var answeredAtStop: Set<UInt> = []
    }
    private let suspensions = Locked(Suspensions())
    /// Signalled when a worker has resumed its connection or an answer given at stop completed:
    /// what `stop` waits for.
    private let settled = Locked<Suspensions>.Condition()
    private var context: Unmanaged<HTTPDaemon>?

    /// Buffer for the multipart parser's keys and headers; file data streams through it.
    private static let formBufferSize = 64 << 10

    init(_ configuration: Configuration, handler: any ExchangeHandler) throws {
        // libmicrohttpd is loaded here, on the first daemon, not at process start (CMicroHTTPD.h).
        guard cmhd_load() != 0 else {
            let reason = String(cString: cmhd_load_error())
            throw SymbolicateError(
                .notFound,
                "cannot load libmicrohttpd, needed to serve HTTP (\(reason)); "
                    + "install it with `apt-get install libmicrohttpd12`")
        }
        self.handler = handler
        self.uploadDirectory = configuration.uploadDirectory
        self.requestTimeout = Double(configuration.requestTimeoutSeconds)
        self.minimumBodyRate = Double(max(1, configuration.minimumBodyRate))
        self.bodyGrace = Double(configuration.bodyGraceSeconds)
        if configuration.headerTimeoutSeconds > 0 {
            watchdog = HeaderWatchdog(seconds: configuration.headerTimeoutSeconds) { [weak handler] in
                handler?.headerTimedOut()
            }
        } else {
            watchdog = nil
        }
        let context = Unmanaged.passRetained(self)
        self.context = context
        let flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_TURBO.rawValue
        var options: [any CVarArg] = [
            Int32(MHD_OPTION.LISTEN_SOCKET.rawValue), configuration.listenFD,
            Int32(MHD_OPTION.CONNECTION_TIMEOUT.rawValue), UInt32(max(1, configuration.connectionTimeoutSeconds)),
            Int32(MHD_OPTION.CONNECTION_LIMIT.rawValue), UInt32(max(1, configuration.connectionLimit)),
            Int32(MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue), HTTPLimits.connectionMemory,
            Int32(MHD_OPTION.URI_LOG_CALLBACK.rawValue),
            OpaquePointer(unsafeBitCast(uriCallback, to: UnsafeRawPointer.self)), OpaquePointer(context.toOpaque()),
            Int32(MHD_OPTION.NOTIFY_COMPLETED.rawValue),
            OpaquePointer(unsafeBitCast(completedCallback, to: UnsafeRawPointer.self)),
            OpaquePointer(context.toOpaque()),
        ]
        if configuration.connectionsPerAddress > 0 {
            let limit = UInt32(configuration.connectionsPerAddress)
            options += [Int32(MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue), limit]
        }
        if watchdog != nil {
            options += [
                Int32(MHD_OPTION.NOTIFY_CONNECTION.rawValue),
                OpaquePointer(unsafeBitCast(connectionCallback, to: UnsafeRawPointer.self)),
                OpaquePointer(context.toOpaque()),
            ]
        }
        if configuration.threads > 1 {
            options += [Int32(MHD_OPTION.THREAD_POOL_SIZE.rawValue), UInt32(configuration.threads)]
        }
        options.append(Int32(MHD_OPTION.END.rawValue))
        let started = withVaList(options) { list in
            cmhd_start_daemon_va(flags, 0, nil, nil, accessCallback, context.toOpaque(), list)
        }
        guard let started else {
            // A start error, not an HTTP answer: nobody is connected yet. errno is what the
            // failing call (a thread, an epoll set, the socket) left.
            let cause = Errno.current
            watchdog?.stop()
            context.release()
            self.context = nil
            throw SymbolicateError(
                .unavailable,
                "the HTTP server could not start: libmicrohttpd refused (\(cause)); fewer --threads may help",
                cause: cause)
        }
        daemon = started
    }

    /// Stops accepting new connections; requests already accepted go on. Returns the listening fd to close.
    func quiesce() -> Int32 {
        guard let daemon else { return -1 }
        return cmhd_quiesce_daemon(daemon)
    }

    /// Stops the daemon: closes every connection and joins the threads. A request whose response
    /// a worker is still computing is answered 503 first (its work runs on, and what it answers is
    /// dropped), and given a moment to be sent.
    func stop() {
        guard let daemon else { return }
        watchdog?.stop()
        let unanswered = suspensions.withLock { state in
            state.stopping = true
            let all = state.suspended
            state.suspended.removeAll()
            state.answeredAtStop = Set(all.keys)
            return all
        }
        for (token, exchange) in unanswered {
            exchange.pending = Self.stoppedResponse
            if let connection = OpaquePointer(bitPattern: token) { cmhd_resume_connection(connection) }
        }
        // libmicrohttpd aborts when it stops with a connection still suspended: every worker that
        // took its own out of the table resumes it first.
        suspensions.wait(on: settled, until: { $0.resuming == 0 }, then: { _ in })
        // The answers given here are sent within moments; a client that does not read its answer
        // does not hold the stop up for longer than this.
        suspensions.wait(on: settled, until: { $0.answeredAtStop.isEmpty }, timeout: 2, then: { _, _ in })
        cmhd_stop_daemon(daemon)
        self.daemon = nil
        context?.release()
        context = nil
    }

    // MARK: - Callbacks (network threads)

    /// The request line has arrived (headers not yet): the exchange starts here, with the target as
    /// sent. A target over the limits has its query hidden before libmicrohttpd parses it.
    fileprivate func requestLine(_ uri: UnsafePointer<CChar>?) -> UnsafeMutableRawPointer {
        let exchange = Exchange(target: uri.map { String(cString: $0) } ?? "")
        if exchange.targetProblem != nil, let uri { HTTPLimits.hideQuery(uri) }
        return Unmanaged.passRetained(exchange).toOpaque()
    }

    fileprivate func connection(_ connection: OpaquePointer, opened: Bool) {
        guard let watchdog else { return }
        let key = UInt(bitPattern: connection)
        if opened {
            watchdog.opened(key, fd: cmhd_connection_fd(connection))
        } else {
            watchdog.closed(key)
        }
    }

    fileprivate func access(
        _ connection: OpaquePointer, url: String, method: String, version: String, data: UnsafePointer<CChar>?,
        size: UnsafeMutablePointer<Int>, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let raw = slot.pointee ?? Unmanaged.passRetained(Exchange(target: url)).toOpaque()
        slot.pointee = raw
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
        if !exchange.begun {
            exchange.begun = true
            exchange.method = method
            exchange.path = url
            exchange.version = version
            watchdog?.requestStarted(UInt(bitPattern: connection))
            cmhd_get_connection_values(connection, .HEADER_KIND, headerCallback, raw)
            var fields: [HeaderBlock.Field] = []
            withUnsafeMutablePointer(to: &fields) { list in
                _ = cmhd_get_connection_values(connection, .HEADER_KIND, fieldCallback, list)
            }
            exchange.headerBlockProblem = HeaderBlock.problem(fields)
            cmhd_get_connection_values(connection, .GET_ARGUMENT_KIND, argumentCallback, raw)
            switch handler.begin(exchange) {
            case .respond(let response):
                return send(response, exchange, connection)
            case .readBody(let policy):
                exchange.startBody(policy, directory: uploadDirectory)
                if policy != .none, let type = exchange.headers["content-type"],
                    type.lowercased().hasPrefix("multipart/form-data")
                {
                    exchange.isForm = true
                    exchange.postProcessor = cmhd_create_post_processor(
                        connection, HTTPDaemon.formBufferSize, formCallback, raw)
                    if exchange.postProcessor == nil {
                        exchange.formError = "the multipart/form-data body has no usable boundary"
                    }
                }
                return .YES
            case .offload(let work):
                return offload(work, exchange, connection)
            }
        }
        if size.pointee > 0 {
            if let data { exchange.receive(UnsafeRawBufferPointer(start: data, count: size.pointee)) }
            size.pointee = 0
            // A body still trickling in after the request time limit, or slower than the minimum
            // rate once the grace period is over: drop the connection. No 408 can be sent first:
            // libmicrohttpd 0.9.75 queues a response only before the body is read or once all of
            // it has arrived (MHD_queue_response answers MHD_NO here, and on a connection
            // suspended here), so the status stays 0, nothing answered, and the log says why.
            let elapsed = exchange.elapsedSeconds
            if elapsed > requestTimeout {
                exchange.closed = "request_timeout"
                return .NO
            }
            if elapsed > bodyGrace + Double(exchange.bytesReceived) / minimumBodyRate {
                exchange.closed = "body_too_slow"
                return .NO
            }
            return .YES
        }
        if let pending = exchange.pending {
            exchange.pending = nil
            return send(pending, exchange, connection)
        }
        guard exchange.status == 0 else { return .YES }
        exchange.finishForm()
        exchange.closeBodyFile()
        switch handler.finish(exchange) {
        case .respond(let response):
            return send(response, exchange, connection)
        case .readBody:
            return send(HTTPError(500, "internal", "body requested twice").response, exchange, connection)
        case .offload(let work):
            return offload(work, exchange, connection)
        }
    }

    private func offload(
        _ work: @escaping @Sendable () -> HTTPResponse, _ exchange: Exchange, _ connection: OpaquePointer
    ) -> MHD_Result {
        let token = UInt(bitPattern: connection)
        let suspending = suspensions.withLock { state in
            guard !state.stopping else { return false }
            state.suspended[token] = exchange
            return true
        }
        guard suspending else { return send(Self.stoppedResponse, exchange, connection) }
        cmhd_suspend_connection(connection)
        workers.async { [self] in
            let response = work()
            // Gone from the table: `stop` has answered it already.
            let mine = suspensions.withLock { state in
                guard state.suspended.removeValue(forKey: token) != nil else { return false }
                state.resuming += 1
                return true
            }
            guard mine else { return }
            exchange.pending = response
            if let connection = OpaquePointer(bitPattern: token) { cmhd_resume_connection(connection) }
            suspensions.withLock { $0.resuming -= 1 }
            settled.broadcast()
        }
        return .YES
    }

    /// The answer to a request the server stopped before computing.
    private static var stoppedResponse: HTTPResponse {
        HTTPError(
            503, "shutting_down", "the server stopped before this request was done; retry it",
            headers: [("Retry-After", "1"), ("Connection", "close")]
        ).response
    }

    private func send(_ response: HTTPResponse, _ exchange: Exchange, _ connection: OpaquePointer) -> MHD_Result {
        exchange.status = response.status
        exchange.bytesSent = response.body.count
        var created: OpaquePointer?
        if let file = response.bodyFile {
            // libmicrohttpd closes the descriptor with the response.
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            if response.bodyFileIsTemporary { unlink(file) }
            guard fd >= 0 else { return .NO }
            created = cmhd_create_response_from_fd64(UInt64(max(response.bodyFileSize, 0)), fd)
            if created == nil { close(fd) }
            exchange.bytesSent = Int(response.bodyFileSize)
        } else {
            created = response.body.withUnsafeBytes { buffer in
                cmhd_create_response_from_buffer(
                    buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let created else { return .NO }
        for (name, value) in response.headers {
            cmhd_add_response_header(created, name, value)
        }
        let result = cmhd_queue_response(connection, UInt32(response.status), created)
        cmhd_destroy_response(created)
        return result
    }

    fileprivate func completed(
        _ connection: OpaquePointer?, _ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
        code: MHD_RequestTerminationCode
    ) {
        if let connection {
            watchdog?.requestEnded(UInt(bitPattern: connection))
            let answered = suspensions.withLock { $0.answeredAtStop.remove(UInt(bitPattern: connection)) != nil }
            if answered { settled.broadcast() }
        }
        guard let slot, let raw = slot.pointee else { return }
        slot.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
        // A request libmicrohttpd ended before its headers were complete: log the target it sent.
        if !exchange.begun {
            exchange.path = String(exchange.target.prefix(while: { $0 != "?" }).prefix(512))
        }
        if code == .REQUEST_TERMINATED_TIMEOUT_REACHED, exchange.closed == nil { exchange.closed = "idle_timeout" }
        exchange.finishForm()
        exchange.discardBodyFile()
        // A connection the server closed itself was not left by its client.
        handler.completed(exchange, clientGone: code != .REQUEST_TERMINATED_COMPLETED_OK && exchange.closed == nil)
    }
}

private let accessCallback: MHD_AccessHandlerCallback = { cls, connection, url, method, version, data, size, slot in
    guard let cls, let connection, let size, let slot else { return .NO }
    let daemon = Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
    let path = url.map { String(cString: $0) } ?? "/"
    let verb = method.map { String(cString: $0) } ?? "GET"
    let protocolVersion = version.map { String(cString: $0) } ?? ""
    return daemon.access(
        connection, url: path, method: verb, version: protocolVersion, data: data, size: size, slot: slot)
}

/// `MHD_OPTION_URI_LOG_CALLBACK`: `void *(*)(void *cls, const char *uri, struct MHD_Connection *)`;
/// what it returns is the request's slot pointer in every later callback.
private typealias URICallback =
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer?

private let uriCallback: URICallback = { cls, uri, _ in
    guard let cls else { return nil }
    return Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue().requestLine(uri)
}

private let completedCallback: MHD_RequestCompletedCallback = { cls, connection, slot, code in
    guard let cls else { return }
    Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue().completed(connection, slot, code: code)
}

private let connectionCallback: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    Unmanaged<HTTPDaemon>.fromOpaque(cls).takeUnretainedValue()
        .connection(connection, opened: code == .CONNECTION_NOTIFY_STARTED)
}

private let formCallback: MHD_PostDataIterator = { cls, _, key, fileName, _, _, data, offset, size in
    guard let cls else { return .NO }
    let exchange = Unmanaged<Exchange>.fromOpaque(cls).takeUnretainedValue()
    exchange.formData(
        key: key.map { String(cString: $0) } ?? "", fileName: fileName.map { String(cString: $0) },
        offset: offset, UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return .YES
}

private let headerCallback: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let exchange = Unmanaged<Exchange>.fromOpaque(cls).takeUnretainedValue()
    let name = String(cString: key).lowercased()
    let text = value.map { String(cString: $0) } ?? ""
    if let existing = exchange.headers[name] {
        exchange.headers[name] = existing + ", " + text
    } else {
        exchange.headers[name] = text
    }
    return .YES
}

/// Collects each header field's name and value pointers (into libmicrohttpd's read buffer), in order.
private let fieldCallback: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key, let value else { return .YES }
    cls.assumingMemoryBound(to: [HeaderBlock.Field].self).pointee.append(HeaderBlock.Field(name: key, value: value))
    return .YES
}

private let argumentCallback: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let exchange = Unmanaged<Exchange>.fromOpaque(cls).takeUnretainedValue()
    exchange.query[String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}
