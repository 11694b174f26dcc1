// Fuzz target: what the server does with a request once libmicrohttpd has framed it, without a
// socket. The input is a request in a small text framing of this harness (first line `METHOD
// TARGET`, then `Name: value` header lines, a blank line, the body); libmicrohttpd's own parsing
// is not under test here. The request goes through the real routing table and the checks a
// request passes before its handler (token, Content-Length, body limit, upload kind and name),
// then the handler itself for every route that takes no token and keeps its body in memory:
// symbolicate (text, .ips, gzip bodies, format negotiation), the Sentry and Mozilla JSON
// endpoints, lookups by UUID. Errors are answers; a trap, or an error answer that is not the
// JSON error body the API documents, is a finding. The header lines are also laid out as
// libmicrohttpd 0.9.75 leaves them in its read buffer (line endings and colons turned to NULs,
// obs-fold appended to the name elsewhere) and given to the server's header-block check, in a
// buffer of exactly that size, so a read past it is an AddressSanitizer finding, and a block of
// plain lines it refuses is a finding too.

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
    let bytes = Fuzz.bytes(data, size)
    checkHeaderBlock(bytes)
    var request = frame(bytes)
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

/// Lays the input's header lines out as libmicrohttpd parses them in place (HeaderBlock) and
/// checks them: each line's CR and LF become NULs, the colon a NUL, whitespace after it skipped;
/// a line starting with whitespace is appended to the previous name in memory of its own.
private func checkHeaderBlock(_ bytes: [UInt8]) {
    // Lines up to the blank one, each with the length of its ending (CR LF 2, LF 1).
    var lines: [(bytes: ArraySlice<UInt8>, ending: Int)] = []
    var index = 0
    var complete = false
    while index < bytes.count {
        guard let lf = bytes[index...].firstIndex(of: 0x0A) else { break }
        let crlf = lf > index && bytes[lf - 1] == 0x0D
        let line = bytes[index..<(crlf ? lf - 1 : lf)]
        index = lf + 1
        if line.isEmpty, !lines.isEmpty {
            complete = true
            break
        }
        lines.append((line, crlf ? 2 : 1))
    }
    guard complete, lines.count > 1 else { return }
    var buffer: [UInt8] = []
    var places: [(name: Int, value: Int, moved: [UInt8]?)] = []
    for (line, ending) in lines.dropFirst() {
        let start = buffer.count
        buffer.append(contentsOf: line)
        buffer.append(contentsOf: repeatElement(0, count: ending))
        if let first = line.first, first == 0x20 || first == 0x09, let last = places.last {
            // obs-fold: the name grows by the continuation, in memory of its own.
            let name = last.moved ?? Array(buffer[last.name...].prefix(while: { $0 != 0 }))
            let continuation = line.drop(while: { $0 == 0x20 || $0 == 0x09 }).prefix(while: { $0 != 0 })
            places[places.count - 1].moved = name + continuation
            continue
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        buffer[start + (colon - line.startIndex)] = 0
        var value = start + (colon - line.startIndex) + 1
        while buffer[value] == 0x20 || buffer[value] == 0x09 { value += 1 }
        places.append((start, value, nil))
    }
    buffer.append(0)  // the blank line (its LF; a CR before it would be one more NUL)
    let moved = places.map { $0.moved.map { Array($0.map { CChar(bitPattern: $0) }) + [0] } }
    buffer.withUnsafeBufferPointer { raw in
        guard let base = UnsafeRawPointer(raw.baseAddress)?.assumingMemoryBound(to: CChar.self) else { return }
        var storage: [UnsafeMutablePointer<CChar>] = []
        defer { for copy in storage { copy.deallocate() } }
        let fields = places.enumerated().map { item, place -> HeaderBlock.Field in
            var name = base + place.name
            if let bytes = moved[item] {
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
                copy.initialize(from: bytes, count: bytes.count)
                storage.append(copy)
                name = UnsafePointer(copy)
            }
            return HeaderBlock.Field(name: name, value: base + place.value)
        }
        let problem = HeaderBlock.problem(fields)
        // A block of plain CRLF lines, token names and visible values (after at most
        // maxLeadingWhitespace spaces) is never refused.
        let plain = lines.dropFirst().allSatisfy { line, ending in
            guard ending == 2, let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                return false
            }
            let spaces = line[(colon + 1)...].prefix(while: { $0 == 0x20 || $0 == 0x09 }).count
            return spaces <= HeaderBlock.maxLeadingWhitespace && line[..<colon].allSatisfy(HeaderBlock.isTokenByte)
                && line[(colon + 1)...].allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }
        }
        Fuzz.invariant(!plain || problem == nil, "a plain header block was refused: \(problem ?? "")")
    }
}
