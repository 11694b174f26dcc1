// Fuzz target: what the server does with a request once libmicrohttpd has framed it, without a
// socket. The input is a request in a small text framing of this harness (first line `METHOD
// TARGET`, then `Name: value` header lines, a blank line, the body); libmicrohttpd's own parsing
// is not under test here. The request goes through the real routing table and the checks a
// request passes before its handler (token, Content-Length, body limit, upload kind and name),
// then the handler itself for every route that takes no token and keeps its body in memory:
// symbolicate (text, .ips, gzip bodies, format negotiation), the Sentry and Mozilla JSON
// endpoints, lookups by UUID. Errors are answers; a trap, or an error answer that is not the
// JSON error body the API documents, is a finding.

import Foundation
import FuzzSupport

@testable import Server

/// One server per process, never started: its router and handlers are what the daemon calls.
private let server: SymbolicationServer = {
    var configuration = ServerConfiguration(storeDirectory: Fuzz.scratch + "/store")
    configuration.logDescriptor = -1
    do {
        return try SymbolicationServer(configuration: configuration)
    } catch {
        FileHandle.standardError.write(Data("cannot set up the server: \(error)\n".utf8))
        exit(1)
    }
}()

private let tokens = TokenSet(tokens: ["fuzz-token"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var request = frame(Fuzz.bytes(data, size))
    switch server.router.resolve(method: request.method, path: request.path) {
    case .notFound, .methodNotAllowed:
        return 0
    case .found(let route, let parameters):
        request.parameters = parameters
        _ = tokens.check(authorization: request.header("authorization"))
        _ = request.header("content-length").flatMap { Int($0) }
        switch route.body {
        case .parts:
            // Chunk uploads: write routes whose bodies are multipart parts, taken by the daemon.
            return 0
        case .file(let limit):
            guard request.body.count <= limit else { return 0 }
            _ = SymbolUploads.fileName(request)
            _ = try? SymbolUploads.checkKind(Fuzz.file("upload", request.body))
        case .none, .memory:
            guard route.access != .write, request.body.count <= route.body.limit else { return 0 }
            let response: HTTPResponse
            do {
                response = try route.handler(request)
            } catch {
                response = HTTPError.from(error).response
            }
            check(response, route: route.pattern)
        }
    }
    return 0
}

private func check(_ response: HTTPResponse, route: String) {
    Fuzz.invariant((200..<600).contains(response.status), "\(route) answered status \(response.status)")
    guard response.status >= 400 else { return }
    let object = try? JSONValue.object(response.body)
    Fuzz.invariant(
        object?["error"] is [String: Any],
        "\(route) answered \(response.status) without a JSON error body: \(String(decoding: response.body.prefix(200), as: UTF8.self))"
    )
}

/// The harness's request framing: `METHOD TARGET`, header lines, a blank line, the body. The
/// target's path and query arguments are percent-decoded, as libmicrohttpd hands them over.
private func frame(_ bytes: [UInt8]) -> HTTPRequest {
    var lines: [Substring] = []
    var index = 0
    var bodyStart = bytes.count
    while index < bytes.count {
        let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
        var line = String(decoding: bytes[index..<end], as: UTF8.self)[...]
        if line.hasSuffix("\r") { line = line.dropLast() }
        index = end + 1
        if line.isEmpty, !lines.isEmpty {
            bodyStart = min(index, bytes.count)
            break
        }
        lines.append(line)
    }
    let requestLine = lines.first ?? ""
    let parts = requestLine.split(separator: " ", maxSplits: 1)
    let method = parts.first.map(String.init) ?? "GET"
    let target = parts.count > 1 ? parts[1] : "/"
    let pathPart = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    var query: [String: String] = [:]
    if let mark = target.firstIndex(of: "?") {
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[decode(kv[0])] = kv.count > 1 ? decode(kv[1]) : ""
        }
    }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
    }
    return HTTPRequest(
        method: method, path: decode(pathPart), query: query, headers: headers, body: Array(bytes[bodyStart...]))
}

private func decode(_ text: Substring) -> String {
    String(text).removingPercentEncoding ?? String(text)
}
