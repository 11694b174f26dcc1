// The routing table: method + path pattern -> a handler and what the server must do before calling
// it (require a read or write token, read the body into memory or stream it to a file, run it off the network
// threads). Patterns are literal segments and `{name}` parameters; matching is exact, so an
// unknown path is a 404 and a known path with another method is a 405 with `Allow`.

import SymbolicateModel

/// How a route wants its request body.
public enum BodyPolicy: Sendable, Equatable {
    /// No body expected; anything sent is counted against the limit and dropped.
    case none
    /// Read into memory, up to the given number of bytes (413 beyond).
    case memory(limit: Int)
    /// Stream to a temporary file, up to the given number of bytes (413 beyond).
    case file(limit: Int)
    /// A multipart/form-data body with every part kept in memory (`HTTPRequest.formParts`), up to
    /// the given number of bytes on the wire; any other body is read into memory as with `.memory`.
    case parts(limit: Int)

    var limit: Int {
        switch self {
        case .none: return 64 << 10
        case .memory(let limit), .file(let limit), .parts(let limit): return limit
        }
    }
}

/// Who may call a route.
public enum RouteAccess: Sendable {
    /// Everyone: health, metrics, the page, the API description.
    case open
    /// Everyone, unless the server was given read tokens: then a read or a write token.
    case read
    /// A write token (uploads, deletes, stored reports).
    case write
}

public struct Route: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) throws -> HTTPResponse

    public var method: String
    /// `/v1/symbols/{uuid}`; also the route's name in metrics and logs.
    public var pattern: String
    public var access: RouteAccess
    public var body: BodyPolicy
    /// True for slow work (imports, stored reports): the connection is suspended and the handler
    /// runs on a worker queue, so the network threads keep serving fast requests.
    public var offloaded: Bool
    /// For fast routes whose work grows with the body (symbolicating a report): a body larger than
    /// this many bytes, or a compressed one (what it inflates to is not known yet), runs on a
    /// worker too, so that one large report cannot hold a network thread and every connection
    /// it serves.
    public var offloadedAbove: Int?
    public var handler: Handler
    let segments: [String]

    public init(
        _ method: String, _ pattern: String, access: RouteAccess = .read, body: BodyPolicy = .none,
        offloaded: Bool = false, offloadedAbove: Int? = nil, handler: @escaping Handler
    ) {
        self.method = method
        self.pattern = pattern
        self.access = access
        self.body = body
        self.offloaded = offloaded
        self.offloadedAbove = offloadedAbove
        self.handler = handler
        self.segments = PathParts.split(pattern)
    }

    /// The path parameters when `path` matches this route's pattern, else nil.
    func match(_ pathSegments: [String]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (pattern, actual) in zip(segments, pathSegments) {
            if pattern.first == "{", pattern.last == "}" {
                guard !actual.isEmpty else { return nil }
                parameters[String(pattern.dropFirst().dropLast())] = actual
            } else if pattern != actual {
                return nil
            }
        }
        return parameters
    }
}

public struct Router: Sendable {
    public private(set) var routes: [Route] = []

    public init(_ routes: [Route] = []) { self.routes = routes }

    public mutating func add(_ route: Route) { routes.append(route) }

    public enum Resolution: Sendable {
        case found(Route, parameters: [String: String])
        /// The path exists for other methods.
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    /// The pattern of the first route whose path matches, whatever its method: what a 405 is
    /// counted under in /metrics.
    public func pattern(matching path: String) -> String? {
        let segments = PathParts.split(path)
        return routes.first { $0.match(segments) != nil }?.pattern
    }

    public func resolve(method: String, path: String) -> Resolution {
        let segments = PathParts.split(path)
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.match(segments) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route, parameters: parameters)
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }
}
