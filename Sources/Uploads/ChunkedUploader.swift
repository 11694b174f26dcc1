// The client side of the chunked upload protocol that `symbolicate serve` speaks (sentry-cli's):
// ask the server how to upload (`GET .../chunk-upload/`), cut every file into chunks of the size
// it says and name each by its SHA-1, ask `difs/assemble/` which chunks it lacks, send only those
// (gzip when offered, several per request, a few requests at once), then ask again until every
// file is assembled or has failed. A run that was interrupted resumes by asking again: chunks
// the server already holds are never sent twice, and files it already has send nothing. Every
// request is retried with exponential backoff (Retry-After honoured) while the server cannot be
// reached, times out or answers 429 / 5xx.

import Compression
import Digest
import Foundation
import ObjectFiles
import ObjectStorage
import SymbolicateModel

/// How the server wants chunks (its answer to `GET chunk-upload/`).
public struct ChunkOptions: Sendable {
    public var url: String
    public var chunkSize: Int
    public var chunksPerRequest: Int
    public var maxRequestSize: Int
    public var maxFileSize: Int64
    public var concurrency: Int
    public var gzip: Bool
}

/// Where an upload stands, for a progress line.
public struct UploadProgress: Sendable {
    public var phase: String
    public var bytesSent: Int64
    public var bytesToSend: Int64
    public var filesDone: Int
    public var filesTotal: Int
}

/// What became of one file.
public struct UploadOutcome: Sendable {
    public enum State: String, Sendable {
        /// Its chunks went up (some or all) and it was assembled.
        case uploaded
        /// The server had it already: nothing was sent.
        case present
        /// The server took it but keeps nothing of it (not a debug file it takes).
        case ignored
        case failed
    }

    public var file: UploadFile
    public var state: State
    public var detail: String?
    public var debugID: String?
    public var chunksSent: Int
}

public final class ChunkedUploader: Sendable {
    let client: WebClient
    let apiRoot: String
    let token: String
    let retry: RetryPolicy
    let progress: (@Sendable (UploadProgress) -> Void)?
    /// Told each time a request is tried again, and why (for a person watching the upload).
    let notice: (@Sendable (String) -> Void)?
    /// Longest the uploader waits for the server to assemble what it sent.
    let assembleTimeout: Double
    /// The server ignores them: one server is one store.
    static let organization = "symbolicate"
    static let project = "symbolicate"

    public init(
        server: String, token: String, retry: RetryPolicy = RetryPolicy(maxAttempts: 6, baseDelay: 0.5, maxDelay: 30),
        assembleTimeout: Double = 1800, notice: (@Sendable (String) -> Void)? = nil,
        progress: (@Sendable (UploadProgress) -> Void)? = nil
    ) throws {
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        guard base.hasPrefix("http://") || base.hasPrefix("https://") else {
            throw SymbolicateError(.badInput, "the server must be an http:// or https:// URL, not '\(server)'")
        }
        do {
            client = try WebClient(timeouts: TransportTimeouts(connectSeconds: 10, totalSeconds: 600))
        } catch {
            throw SymbolicateError(.unsupported, error.message)
        }
        apiRoot = base + "/api/0"
        self.token = token
        self.retry = retry
        self.assembleTimeout = assembleTimeout
        self.progress = progress
        self.notice = notice
    }

    // MARK: Requests

    /// One request, retried with backoff while the server is unreachable, slow, or answers 429/5xx.
    func request(
        _ method: String, _ url: String, body: [UInt8]? = nil, contentType: String? = nil
    ) throws -> WebResponse {
        var headers = [("Authorization", "Bearer \(token)"), ("User-Agent", "symbolicate-upload")]
        if let contentType { headers.append(("Content-Type", contentType)) }
        var generator = SystemRandomNumberGenerator()
        var attempt = 0
        while true {
            attempt += 1
            var retryAfter: Double?
            let problem: String
            do {
                let response = try client.send(method, url, headers: headers, body: body)
                if (200..<300).contains(response.status) { return response }
                let message = Self.errorMessage(response)
                guard response.status == 429 || response.status >= 500 else {
                    let code: SymbolicateError.Code =
                        response.status == 401 || response.status == 403 ? .badInput : .io
                    throw SymbolicateError(code, "\(method) \(url): the server answered \(response.status): \(message)")
                }
                retryAfter = response.header("retry-after").flatMap(Double.init)
                problem = "the server answered \(response.status): \(message)"
            } catch let error as ObjectStorageError {
                guard [.unreachable, .timeout].contains(error.code) else {
                    throw SymbolicateError(.unavailable, error.message)
                }
                problem = error.message
            }
            guard attempt < retry.maxAttempts else {
                throw SymbolicateError(
                    .unavailable, "\(method) \(url) failed \(attempt) times; last: \(problem); run the upload again")
            }
            let delay = min(max(retryAfter ?? 0, retry.delay(beforeRetry: attempt, using: &generator)), 60)
            notice?(
                "\(method) \(url): \(problem); trying again in \(String(format: "%.1f", delay)) s (attempt"
                    + " \(attempt + 1) of \(retry.maxAttempts))")
            usleep(UInt32(min(delay, 60) * 1_000_000))
        }
    }

    static func errorMessage(_ response: WebResponse) -> String {
        if let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let error = object["error"] as? [String: Any], let message = error["message"] as? String
        {
            return message
        }
        return String(decoding: response.body.prefix(300), as: UTF8.self)
    }

    func json(_ response: WebResponse, _ what: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw SymbolicateError(.io, "the server's answer to \(what) is not a JSON object")
        }
        return object
    }

    /// `GET /api/0/organizations/ORG/chunk-upload/`.
    public func options() throws -> ChunkOptions {
        let url = apiRoot + "/organizations/\(Self.organization)/chunk-upload/"
        let object = try json(try request("GET", url), "chunk-upload/")
        func number(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
        guard let chunkSize = number("chunkSize"), chunkSize > 0, let relative = object["url"] as? String else {
            throw SymbolicateError(.io, "\(url) did not say how to upload chunks; is the server `symbolicate serve`?")
        }
        let absolute = relative.hasPrefix("http://") || relative.hasPrefix("https://")
        return ChunkOptions(
            url: absolute ? relative : apiRoot + relative, chunkSize: chunkSize,
            chunksPerRequest: max(1, number("chunksPerRequest") ?? 64),
            maxRequestSize: max(chunkSize, number("maxRequestSize") ?? chunkSize),
            maxFileSize: Int64(number("maxFileSize") ?? 0), concurrency: min(16, max(1, number("concurrency") ?? 1)),
            gzip: (object["compression"] as? [String] ?? []).contains("gzip"))
    }
}
