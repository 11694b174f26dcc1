// The request and response values the server's routes see, and the one error type that maps a
// failure to a status and a JSON body `{"error": {"code": ..., "message": ...}}`. They hold no C
// types: the libmicrohttpd wrapper fills a request and sends a response, routes only read and build.

import Foundation
import Reports
import SymbolicateModel

/// One HTTP request after its body has been read (into memory or into a temporary file).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, as sent (`/v1/symbols/82D1...`).
    public var path: String
    /// Query arguments; a repeated key keeps its last value.
    public var query: [String: String]
    /// Header names are lowercased; a repeated header keeps its values joined with `, `.
    public var headers: [String: String]
    /// The body when the route reads bodies into memory.
    public var body: [UInt8]
    /// The body's file when the route streams bodies to disk (the server deletes it afterwards).
    public var bodyFile: String?
    /// Number of body bytes received.
    public var bodyLength: Int
    /// Path parameters filled by the router (`uuid`, `id`).
    public var parameters: [String: String]
    /// True when the body came as multipart/form-data; `body`/`bodyFile` then hold its file part.
    public var isForm = false
    /// The file name of the form's file part (`curl -F file=@NAME`).
    public var formFileName: String?
    /// Every part of a multipart/form-data body, in order, for routes that read `.parts`.
    public var formParts: [FormPart] = []
    /// The name (or fingerprint) of the token the request was authorized with; never the token.
    public var tokenName: String?

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], bodyFile: String? = nil, bodyLength: Int? = nil, parameters: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.bodyLength = bodyLength ?? body.count
        self.parameters = parameters
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The query argument `name` as a whole number in `range`; `value` when it is absent. Anything
    /// else, an empty value included, is a 400 that names the range.
    public func wholeNumber(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(HTTPError) -> Int {
        guard let text = query[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw HTTPError.badRequest(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return number
    }
}

/// One part of a multipart/form-data body: its field name, its file name, its bytes.
public struct FormPart: Sendable {
    public var name: String
    public var fileName: String?
    public var bytes: [UInt8]
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// A file sent as the body instead of `body` (a kept original: too large for memory); the
    /// daemon opens it when it answers and sends `bodyFileSize` bytes of it.
    public var bodyFile: String? = nil
    public var bodyFileSize: Int64 = 0
    /// The file is a copy made for this response: removed once it is open.
    public var bodyFileIsTemporary = false

    public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = body
    }

    /// A JSON response from a JSON-serializable value (dictionaries, arrays, strings, numbers, Bool, NSNull).
    public static func json(_ value: Any, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: JSONValue.encode(value), headers: headers)
    }

    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// A failure that ends a request: the status, a stable machine-readable code, a message for people.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var headers: [(String, String)]

    public init(_ status: Int, _ code: String, _ message: String, headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public var response: HTTPResponse {
        .json(["error": ["code": code, "message": message]], status: status, headers: headers)
    }

    public static func badRequest(_ message: String) -> HTTPError { HTTPError(400, "bad_request", message) }
    public static func notFound(_ message: String) -> HTTPError { HTTPError(404, "not_found", message) }

    /// The status a library error maps to: bad input 400, well-formed but unusable 422, missing
    /// 404, a bucket that does not answer 503 (with Retry-After, so clients and balancers retry), ...
    public init(_ error: SymbolicateError) {
        switch error.code {
        case .badInput: self.init(400, "bad_input", error.description)
        case .unsupported: self.init(422, "unsupported", error.description)
        case .notFound: self.init(404, "not_found", error.description)
        case .conflict: self.init(409, "conflict", error.description)
        case .limit: self.init(413, "limit", error.description)
        case .unavailable:
            self.init(
                503, "unavailable", error.description, headers: [("Retry-After", String(HTTPError.retryAfterSeconds))])
        default: self.init(500, "internal", error.description)
        }
    }

    /// How long a client is asked to wait before retrying a request the bucket could not serve.
    static let retryAfterSeconds = 5

    /// Any thrown error as an HTTPError: ours pass through, library errors map, others are 500.
    public static func from(_ error: any Error) -> HTTPError {
        if let e = error as? HTTPError { return e }
        if let e = error as? SymbolicateError { return StorageStatus.answer(e) ?? HTTPError(e) }
        return HTTPError(500, "internal", "\(error)")
    }
}

/// JSON encoding and decoding through Foundation, without traps on odd values.
public enum JSONValue {
    /// An answer's JSON, written by the one JSON writer (JSONWriter) from dictionaries (keys in
    /// sorted order), arrays, strings, integers, floating-point numbers, Bools and NSNull.
    public static func encode(_ value: Any) -> [UInt8] {
        var writer = JSONWriter()
        guard write(value, key: nil, into: &writer) else {
            return Array(#"{"error":{"code":"internal","message":"response could not be encoded"}}"#.utf8)
        }
        return Array(writer.text.utf8)
    }

    /// Writes one value; false for a value JSON cannot hold (another type, a non-finite number).
    private static func write(_ value: Any, key: String?, into writer: inout JSONWriter) -> Bool {
        // Exact Swift types first: an NSNumber would otherwise answer to several casts.
        switch value {
        case let v as String: writer.string(key, v)
        case let v as Bool where type(of: value) == Bool.self: writer.bool(key, v)
        case let v as Int where type(of: value) == Int.self: writer.number(key, v)
        case let v as Int64 where type(of: value) == Int64.self: writer.number(key, v)
        case let v as UInt64 where type(of: value) == UInt64.self: writer.number(key, v)
        case let v as Int32 where type(of: value) == Int32.self: writer.number(key, v)
        case let v as UInt32 where type(of: value) == UInt32.self: writer.number(key, v)
        case let v as UInt where type(of: value) == UInt.self: writer.number(key, v)
        case let v as Double where type(of: value) == Double.self:
            guard v.isFinite else { return false }
            writer.decimal(key, v)
        case is NSNull: writer.null(key)
        case let v as [String: Any]:
            writer.beginObject(key)
            for name in v.keys.sorted() {
                guard let element = v[name], write(element, key: name, into: &writer) else { return false }
            }
            writer.endObject()
        case let v as [Any]:
            writer.beginArray(key)
            for element in v {
                guard write(element, key: nil, into: &writer) else { return false }
            }
            writer.endArray()
        case let v as NSNumber:
            // From parsed JSON: a Bool (Foundation makes those with objCType "c"; parsed numbers
            // are never 8-bit), else a number as it reads.
            if String(cString: v.objCType) == "c" {
                writer.bool(key, v.boolValue)
                return true
            }
            let d = v.doubleValue
            guard d.isFinite else { return false }
            if d == d.rounded(), abs(d) < 9.0e15 { writer.number(key, v.int64Value) } else { writer.decimal(key, d) }
        default:
            return false
        }
        return true
    }

    /// Parses a JSON object body; a 400 when it is not JSON or not an object.
    public static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard !bytes.isEmpty else { throw HTTPError.badRequest("the body is empty; a JSON object was expected") }
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            throw HTTPError.badRequest("the body is not valid JSON")
        }
        guard let object = value as? [String: Any] else {
            throw HTTPError.badRequest("the body is JSON but not an object")
        }
        return object
    }

    /// An integer from a JSON number or a numeric string (`"0x1000"` or decimal).
    public static func integer(_ value: Any?) -> UInt64? {
        switch value {
        case let n as NSNumber:
            let d = n.doubleValue
            guard d >= 0, d < 18_446_744_073_709_551_616.0, d == d.rounded() else { return nil }
            return n.uint64Value
        case let s as String:
            return ASCII.unsignedInteger(string: s)
        default:
            return nil
        }
    }
}

/// Parses a size such as `50M`, `1.5G`, `2GiB`, `512k` or plain bytes (ByteSize).
public func parseByteSize(_ text: String) -> Int? {
    ByteSize.parse(text).flatMap { Int(exactly: $0) }
}
