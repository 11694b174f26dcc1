// Bearer tokens for writes: read from a file (one token per line; blank lines and `#` comments
// ignored) and compared in constant time. A missing `Authorization` header is a 401, a wrong token
// a 403; tokens never reach the log or an error message.

import Foundation
import SymbolicateModel

public struct TokenSet: Sendable {
    private let tokens: [[UInt8]]

    public init(tokens: [String]) {
        self.tokens = tokens.map { Array($0.utf8) }
    }

    /// Reads the token file; an empty or unreadable file is an error, so a typo cannot open writes to everyone.
    public init(file path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SymbolicateError(.io, "cannot read the token file", path: path)
        }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: " \t") }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !lines.isEmpty else {
            throw SymbolicateError(.badInput, "the token file holds no token (one per line)", path: path)
        }
        self.init(tokens: lines)
    }

    public var isEmpty: Bool { tokens.isEmpty }

    /// nil when the request may write; else the error to answer.
    func check(authorization: String?) -> HTTPError? {
        guard let authorization, !authorization.isEmpty else {
            return HTTPError(
                401, "unauthorized", "this endpoint needs `Authorization: Bearer TOKEN`",
                headers: [("WWW-Authenticate", "Bearer realm=\"symbolicate\"")])
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return HTTPError(
                401, "unauthorized", "the Authorization header must be `Bearer TOKEN`",
                headers: [("WWW-Authenticate", "Bearer realm=\"symbolicate\"")])
        }
        let given = Array(parts[1].trimmingCharacters(in: " ").utf8)
        var matched = false
        for token in tokens where TokenSet.constantTimeEqual(token, given) { matched = true }
        return matched ? nil : HTTPError(403, "forbidden", "the token is not accepted")
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
