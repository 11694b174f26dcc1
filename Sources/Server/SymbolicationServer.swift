// The server: owns the libmicrohttpd daemons (the main port, and an optional admin port serving
// only health, readiness and metrics), the routing table, the metrics and the access log, and
// applies, in order, the checks every request passes before its handler runs: the target's length
// and query arguments (414, HTTPLimits), framing (400), route (404/405), the concurrency cap (503 +
// Retry-After; not on the admin port), the token for writes and, when read tokens are configured,
// for reads (401/403), the body limit (413). Stopping is graceful: stop accepting, answer new
// requests on open connections with 503, wait for the requests in flight, then close everything.

import Dispatch
import Foundation
import Store
import SymbolicateModel
import SystemSupport

// @unchecked: the daemons, routers, ports and listening socket are set up in `start` before any
// request thread runs and only read after it; `stopping` is behind its own lock.
public final class SymbolicationServer: @unchecked Sendable {
    public let configuration: ServerConfiguration
    let metrics = Metrics()
    let log: AccessLog
    private(set) var router = Router()
    private(set) var adminRouter = Router()
    private var daemon: HTTPDaemon?
    private var adminDaemon: HTTPDaemon?
    private var listenFD: Int32 = -1
    private let stopping = Locked(false)
    /// The port actually bound (useful with port 0).
    public private(set) var port: UInt16 = 0
    /// The admin port actually bound, when `adminListen` is set.
    public private(set) var adminPort: UInt16 = 0
    let context: ServiceContext

    public init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        self.log = AccessLog(fd: configuration.logDescriptor)
        try Folders.create(configuration.uploadDirectory, what: "upload folder")
        self.context = try ServiceContext(configuration: configuration, metrics: metrics, log: log)
        self.router = Router(makeRoutes())
        self.adminRouter = Router(adminRoutes())
    }

    /// Opens the sockets and starts serving; returns once the server accepts connections.
    public func start() throws {
        let address = try ListenAddress(parsing: configuration.listen)
        let adminAddress = try configuration.adminListen.map { try ListenAddress(parsing: $0) }
        let socket = try ListenSocket.open(address)
        listenFD = socket.fd
        port = socket.port
        do {
            daemon = try startDaemon(socket.fd, admin: false)
            if let adminAddress {
                let adminSocket = try ListenSocket.open(adminAddress)
                do {
                    adminDaemon = try startDaemon(adminSocket.fd, admin: true)
                } catch {
                    close(adminSocket.fd)
                    throw error
                }
                adminPort = adminSocket.port
            }
        } catch {
            // libmicrohttpd closes a listening socket it is stopped with, unless it gave it back
            // (quiesce): the socket is closed once, here, never twice (a second close could hit a
            // descriptor another thread has opened since).
            if let daemon {
                _ = daemon.quiesce()
                daemon.stop()
            }
            daemon = nil
            close(socket.fd)
            listenFD = -1
            throw error
        }
        // The main port's line comes first: scripts read the first `listening` line for the address.
        log.event("listening", ["address": ListenAddress(host: address.host, port: port).description])
        if let adminAddress {
            let admin = ListenAddress(host: adminAddress.host, port: adminPort)
            log.event("listening", ["address": admin.description, "admin": "true"])
        }
        context.startWatching()
    }

    private func startDaemon(_ fd: Int32, admin: Bool) throws -> HTTPDaemon {
        try HTTPDaemon(
            HTTPDaemon.Configuration(
                listenFD: fd, threads: admin ? 1 : configuration.threads,
                connectionTimeoutSeconds: configuration.connectionTimeout,
                connectionLimit: admin ? SymbolicationServer.adminConnectionLimit : configuration.maxConnections,
                connectionsPerAddress: configuration.connectionsPerAddress,
                headerTimeoutSeconds: configuration.headerTimeout, uploadDirectory: configuration.uploadDirectory,
                requestTimeoutSeconds: configuration.requestTimeout, minimumBodyRate: configuration.minimumBodyRate,
                bodyGraceSeconds: configuration.bodyGracePeriod),
            handler: DaemonBridge(server: self, admin: admin))
    }

    /// Connections the admin port holds at once: probes and scrapers, not clients.
    static let adminConnectionLimit = 64

    /// A message of the server's own (a warning at start) as a log event, so that the log stays
    /// one JSON object per line.
    public func logEvent(_ event: String, _ fields: [String: String] = [:]) {
        log.event(event, fields)
    }

    /// Stops accepting, waits up to the grace period for requests in flight, then closes all connections.
    public func stop() {
        let alreadyStopping = stopping.withLock { stopping in
            defer { stopping = true }
            return stopping
        }
        guard !alreadyStopping, let daemon else { return }
        let fd = daemon.quiesce()
        if fd >= 0 { close(fd) }
        listenFD = -1
        if let adminDaemon {
            let adminFD = adminDaemon.quiesce()
            if adminFD >= 0 { close(adminFD) }
        }
        _ = metrics.waitUntilIdle(seconds: configuration.shutdownGracePeriod)
        daemon.stop()
        self.daemon = nil
        adminDaemon?.stop()
        adminDaemon = nil
        context.close()
        log.event("stopped")
    }

    /// The signals that stop the server, as a set.
    private static var stopSignals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it starts later
    /// (libmicrohttpd's, the dispatch workers): call it first thing, before any thread exists, so
    /// that `runUntilSignal` receives them. A stop signal that reached a thread which had it
    /// unblocked was lost before: libdispatch's signal sources on Linux read a signalfd and
    /// re-raise a signal caught elsewhere on that other thread, where the signalfd cannot see it,
    /// and the server then ran on after SIGTERM.
    public static func blockStopSignals() {
        var set = stopSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Serves until SIGINT or SIGTERM, then stops gracefully. Returns the exit code (0).
    /// `blockStopSignals()` must have been called before the server's threads started.
    public func runUntilSignal() -> Int32 {
        var set = Self.stopSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        log.event("stopping", ["in_flight": String(metrics.requestsInFlight)])
        stop()
        return 0
    }

    var isStopping: Bool { stopping.withLock { $0 } }

    // MARK: - The checks before a handler

    fileprivate func begin(_ exchange: Exchange, admin: Bool) -> ExchangeDecision {
        if let problem = exchange.targetProblem {
            return .respond(HTTPError(414, "uri_too_long", problem).response)
        }
        if let problem = exchange.framingProblem {
            return .respond(
                HTTPError(400, "bad_request", problem + "; the request was refused", headers: [("Connection", "close")])
                    .response)
        }
        let route: Route
        switch (admin ? adminRouter : router).resolve(method: exchange.method, path: exchange.path) {
        case .notFound:
            let hint = admin ? "this port serves /healthz, /readyz and /metrics" : "see /openapi.json"
            return .respond(HTTPError.notFound("no endpoint at \(exchange.path); \(hint)").response)
        case .methodNotAllowed(let allowed):
            // Counted under its route in /metrics, not as an unmatched path.
            exchange.routing.name =
                (admin ? adminRouter : router).pattern(matching: exchange.path) ?? exchange.routing.name
            let error = HTTPError(
                405, "method_not_allowed",
                "\(exchange.method) is not allowed here; use \(allowed.joined(separator: ", "))",
                headers: [("Allow", allowed.joined(separator: ", "))])
            return .respond(error.response)
        case .found(let found, let parameters):
            route = found
            exchange.routing.route = found
            exchange.routing.name = found.pattern
            exchange.routing.parameters = parameters
        }
        if isStopping {
            let error = HTTPError(
                503, "shutting_down", "the server is stopping",
                headers: [("Retry-After", "1"), ("Connection", "close")])
            return .respond(error.response)
        }
        if !admin {
            guard metrics.admit(cap: configuration.maxConcurrentRequests) else {
                let error = HTTPError(
                    503, "busy", "too many requests in flight; retry shortly", headers: [("Retry-After", "1")])
                return .respond(error.response)
            }
            exchange.routing.counted = true
        }
        if let error = authorize(route.access, exchange) {
            return .respond(error.response)
        }
        if let length = exchange.headers["content-length"].flatMap(Int.init), length > route.body.limit {
            return .respond(tooLarge(route.body.limit).response)
        }
        return .readBody(route.body)
    }

    /// nil when the request may call a route with this access (and then `exchange.routing.tokenName` names
    /// its token, if it sent one), else the error to answer. Write tokens also read.
    private func authorize(_ access: RouteAccess, _ exchange: Exchange) -> HTTPError? {
        let authorization = exchange.headers["authorization"]
        switch access {
        case .open:
            return nil
        case .read:
            guard let readTokens = configuration.readTokens else { return nil }
            guard let given = TokenSet.bearer(authorization) else { return TokenSet.missing(authorization) }
            guard let name = readTokens.match(given) ?? configuration.tokens?.match(given) else {
                return HTTPError(403, "forbidden", "the token is not accepted")
            }
            exchange.routing.tokenName = name
            return nil
        case .write:
            guard let tokens = configuration.tokens else {
                return HTTPError(403, "writes_disabled", "writes are disabled: start the server with --token-file")
            }
            switch tokens.check(authorization: authorization) {
            case .success(let name):
                exchange.routing.tokenName = name
                return nil
            case .failure(let error):
                if case .success = configuration.readTokens?.check(authorization: authorization) {
                    return HTTPError(
                        403, "forbidden", "this token may only read; writes need a token from --token-file")
                }
                return error
            }
        }
    }

    fileprivate func finish(_ exchange: Exchange) -> ExchangeDecision {
        guard let route = exchange.routing.route else {
            return .respond(HTTPError(500, "internal", "request without a route").response)
        }
        if exchange.overLimit { return .respond(tooLarge(route.body.limit).response) }
        if let problem = exchange.writeError { return .respond(HTTPError(500, "io", problem).response) }
        if let problem = exchange.formError { return .respond(HTTPError.badRequest(problem).response) }
        var request = HTTPRequest(
            method: exchange.method, path: exchange.path, query: exchange.query, headers: exchange.headers,
            body: exchange.body, bodyFile: exchange.bodyFile, bodyLength: exchange.bodyLength,
            parameters: exchange.routing.parameters)
        request.isForm = exchange.isForm
        request.formFileName = exchange.formFileName
        request.formParts = exchange.formParts
        exchange.formParts = []
        request.tokenName = exchange.routing.tokenName
        let prepared = request
        let large =
            route.offloadedAbove.map { request.body.count > $0 || exchange.headers["content-encoding"] != nil } ?? false
        exchange.body = []
        let handler = route.handler
        let diskFull = context.diskFull
        let run: @Sendable () -> HTTPResponse = {
            do {
                return try handler(prepared)
            } catch {
                diskFull.note(error)
                return HTTPError.from(error).response
            }
        }
        return route.offloaded || large ? .offload(run) : .respond(run())
    }

    fileprivate func completed(_ exchange: Exchange, clientGone: Bool) {
        if exchange.routing.counted { metrics.release() }
        let seconds = exchange.elapsedSeconds
        metrics.recordRequest(
            route: exchange.routing.name, method: exchange.method, status: exchange.status, seconds: seconds)
        log.record(
            method: exchange.method, path: exchange.path, route: exchange.routing.name, status: exchange.status,
            bytesIn: exchange.bytesReceived, bytesOut: exchange.bytesSent, seconds: seconds, clientGone: clientGone,
            token: exchange.routing.tokenName, closed: exchange.closed)
    }

    fileprivate func headerTimedOut() {
        metrics.recordHeaderTimeout()
    }

    /// The body limit refused: says which limit (in bytes, then as `10M` or `2G` when it is a
    /// whole number of those), and how to raise it when an option sets it.
    private func tooLarge(_ limit: Int) -> HTTPError {
        let bytes = "\(limit) bytes"
        let size = ImportLimits.sizeText(limit)
        let stated = size == bytes ? bytes : "\(bytes) (\(size))"
        let raise =
            limit == configuration.maxBody
            ? "; the server's `--max-body` sets it (`symbolicate serve --max-body SIZE`)"
            : " (reports are limited to \(ImportLimits.sizeText(configuration.maxReportBody)) or --max-body, whichever is smaller)"
        return HTTPError(413, "too_large", "the body exceeds this endpoint's limit of \(stated)\(raise)")
    }
}

/// Keeps the daemon's callbacks off the public type; one per daemon (main or admin port).
// @unchecked: a weak reference (not Sendable) to the server, set once, read by network threads.
private final class DaemonBridge: ExchangeHandler, @unchecked Sendable {
    weak var server: SymbolicationServer?
    let admin: Bool

    init(server: SymbolicationServer, admin: Bool) {
        self.server = server
        self.admin = admin
    }

    func begin(_ exchange: Exchange) -> ExchangeDecision {
        server?.begin(exchange, admin: admin)
            ?? .respond(HTTPError(503, "shutting_down", "the server is stopping").response)
    }

    func finish(_ exchange: Exchange) -> ExchangeDecision {
        server?.finish(exchange) ?? .respond(HTTPError(503, "shutting_down", "the server is stopping").response)
    }

    func completed(_ exchange: Exchange, clientGone: Bool) {
        server?.completed(exchange, clientGone: clientGone)
    }

    func headerTimedOut() {
        server?.headerTimedOut()
    }
}

/// What the server decides about one request as it is routed and authorized: the route (and its
/// name for metrics and logs), the path's parameters, whether it counted against the cap of
/// requests in flight, and the name (never the value) of the token it was authorized with. The
/// daemon's Exchange carries it beside its transport state.
struct RouteState {
    var name = Metrics.unmatchedRoute
    var route: Route?
    var parameters: [String: String] = [:]
    var counted = false
    var tokenName: String?
}
