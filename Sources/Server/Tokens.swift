// Bearer tokens: read from a file and compared in constant time. A line is `NAME:TOKEN`, or a bare
// `TOKEN` that is then named by its fingerprint (the first 8 hex digits of its SHA-256); blank lines
// and `#` comments are ignored. The name is what logs and metrics may show; the token itself never
// reaches a log or an error message. A missing `Authorization` header is a 401, a wrong token a 403.
// A client may send the token or its whole `NAME:TOKEN` line, as the README's `$(cat tokens.txt)` does.

import Digest
import Foundation
import SymbolicateModel

public struct TokenSet: Sendable {
    private struct Entry: Sendable {
        var name: String
        var value: [UInt8]
    }

    private let entries: [Entry]

    /// Bare tokens, each named by its fingerprint.
    public init(tokens: [String]) {
        self.entries = tokens.map { Entry(name: TokenSet.fingerprint($0), value: Array($0.utf8)) }
    }

    /// `(name, token)` pairs.
    public init(named: [(name: String, token: String)]) {
        self.entries = named.map { Entry(name: $0.name, value: Array($0.token.utf8)) }
    }

    /// Reads a token file; an empty or unreadable file is an error, so a typo cannot open the server to everyone.
    public init(file path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            let why = access(path, R_OK) == 0 ? "it is not a readable file" : Errno.current.description
            throw SymbolicateError(.io, "cannot read the token file: \(why)", path: path)
        }
        let text = String(decoding: data, as: UTF8.self)
        // `isNewline`: "\r\n" is one character, neither "\r" nor "\n".
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: " \t") }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !lines.isEmpty else {
            throw SymbolicateError(
                .badInput, "the token file holds no token (one `NAME:TOKEN` or `TOKEN` per line)", path: path)
        }
        self.init(named: lines.map(TokenSet.parseLine))
    }

    /// The first token of a token file, for a client (`symbolicate upload --token-file`): the same
    /// lines as the server reads, `NAME:TOKEN` or a bare `TOKEN`.
    public static func firstToken(inFile path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let why = access(path, R_OK) == 0 ? "it is not a readable file" : Errno.current.description
            throw SymbolicateError(.io, "cannot read the token file: \(why)", path: path)
        }
        let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: " \t") }
            .first { !$0.isEmpty && !$0.hasPrefix("#") }
        guard let line else {
            throw SymbolicateError(
                .badInput, "the token file holds no token (one `NAME:TOKEN` or `TOKEN` per line)", path: path)
        }
        return parseLine(line).token
    }

    /// `NAME:TOKEN` when the part before the first colon is a name (letters, digits, `._-@`) and a
    /// token follows; anything else is a bare token.
    static func parseLine(_ line: String) -> (name: String, token: String) {
        if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: " \t")
            let token = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@")
            if !name.isEmpty, !token.isEmpty, name.count <= 64, name.allSatisfy({ allowed.contains($0) }) {
                return (name, token)
            }
        }
        return (fingerprint(line), line)
    }

    /// The first 8 hex digits of the token's SHA-256: names a bare token in logs without revealing it.
    public static func fingerprint(_ token: String) -> String {
        String(SHA256.hex(Array(token.utf8)).prefix(8))
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// The names of the tokens, in file order (for start-up messages).
    public var names: [String] { entries.map(\.name) }

    /// The matching token's name, or the error to answer.
    func check(authorization: String?) -> Result<String, HTTPError> {
        guard let given = TokenSet.bearer(authorization) else {
            return .failure(TokenSet.missing(authorization))
        }
        return match(given).map { .success($0) } ?? .failure(HTTPError(403, "forbidden", "the token is not accepted"))
    }

    /// The name of the token equal to `given`; every entry is compared, in constant time each.
    /// A whole `NAME:TOKEN` line of the token file (`Bearer $(cat tokens.txt)`) is accepted too:
    /// its token part is compared, in constant time, with the token of that name.
    func match(_ given: [UInt8]) -> String? {
        var matched: String?
        for entry in entries where TokenSet.constantTimeEqual(entry.value, given) { matched = entry.name }
        if matched == nil, given.contains(UInt8(ascii: ":")) {
            let (name, token) = TokenSet.parseLine(String(decoding: given, as: UTF8.self))
            let value = Array(token.utf8)
            for entry in entries where entry.name == name && TokenSet.constantTimeEqual(entry.value, value) {
                matched = entry.name
            }
        }
        return matched
    }

    /// The token of `Authorization: Bearer TOKEN`, or nil.
    static func bearer(_ authorization: String?) -> [UInt8]? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: " ")
        return token.isEmpty ? nil : Array(token.utf8)
    }

    /// The 401 for a request without a usable `Authorization` header.
    static func missing(_ authorization: String?) -> HTTPError {
        let message =
            (authorization ?? "").isEmpty
            ? "this endpoint needs `Authorization: Bearer TOKEN`" : "the Authorization header must be `Bearer TOKEN`"
        return HTTPError(401, "unauthorized", message, headers: [("WWW-Authenticate", "Bearer realm=\"symbolicate\"")])
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
