// sentry-cli's chunked upload protocol, the chunk half: `GET /api/0/organizations/{org}/chunk-upload/`
// says how to upload (chunk size, how many chunks and bytes a request may carry, how many requests
// at once, SHA-1 names, gzip, the kinds of file we assemble), and `POST` on the same path takes up to
// `chunksPerRequest` multipart parts, `file` or `file_gzip`, each named by the SHA-1 of its
// (decompressed) bytes. Chunks go into the store's blob store (folder or bucket), so any replica
// assembles them; a part whose bytes do not hash to its name is refused and none of its request is
// kept. `{org}` maps to nothing: one server, one store. Chunks no assembly has used for a day are
// removed by a sweep that runs hourly. Assembly is in DifAssembly.swift.

import Compression
import Dispatch
import Foundation
import Store
import SymbolicateModel

// @unchecked: the sweep timer is set up in `init` and only cancelled in `deinit`.
final class ChunkUploads: @unchecked Sendable {
    /// Bytes of one chunk, as Sentry's default (8 MiB).
    static let chunkSize = 8 << 20
    /// Chunks in one POST, and their bytes (Sentry's MAX_CHUNKS_PER_REQUEST, MAX_REQUEST_SIZE).
    static let chunksPerRequest = 64
    static let maxRequestSize = 32 << 20
    /// Requests a client may run at once.
    static let concurrency = 4
    /// A chunk is removed this long after it was written (a day).
    static let chunkLifetime = BlobStore.chunkLifetime
    /// How often the sweep looks for such chunks.
    static let sweepInterval: TimeInterval = 3600

    let context: ServiceContext
    let blobs: BlobStore
    let assembly: DifAssembly
    private let sweeper: DispatchSourceTimer

    init(context: ServiceContext) throws {
        guard let blobs = BlobStore.of(context.store) else {
            throw SymbolicateError(.unsupported, "the store \(context.store.locationDescription) keeps no chunks")
        }
        self.context = context
        self.blobs = blobs
        self.assembly = DifAssembly(context: context, blobs: blobs, maxFileSize: context.configuration.maxBody)
        sweeper = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        sweeper.schedule(deadline: .now() + 60, repeating: Self.sweepInterval)
        sweeper.setEventHandler { [blobs, context] in Self.sweep(blobs, context: context) }
        sweeper.resume()
    }

    deinit { sweeper.cancel() }

    /// Removes chunks older than `chunkLifetime`; a failure is logged and tried again next time.
    static func sweep(_ blobs: BlobStore, context: ServiceContext, now: Date = Date()) {
        do {
            let removed = try blobs.removeBlobs(.sha1, olderThan: now.addingTimeInterval(-chunkLifetime))
            if removed > 0 { context.log.event("chunks_removed", ["count": String(removed)]) }
        } catch {
            context.log.event("chunk_sweep_failed", ["error": HTTPError.from(error).message])
        }
    }

    /// The routes: chunk options and chunk uploads by organization, assembly by project.
    func routes() -> [Route] {
        let requestLimit = Self.maxRequestSize + Self.chunksPerRequest * 1024 + (1 << 20)
        return [
            Route("GET", "/api/0/organizations/{org}/chunk-upload/", access: .write) { [self] request in
                options(request)
            },
            Route(
                "POST", "/api/0/organizations/{org}/chunk-upload/", access: .write,
                body: .parts(limit: requestLimit), offloaded: true
            ) { [self] request in try post(request) },
            Route(
                "POST", "/api/0/projects/{org}/{project}/files/difs/assemble/", access: .write,
                body: .memory(limit: DifAssembly.maxRequestBytes), offloaded: true
            ) { [self] request in try assembly.assemble(request) },
        ]
    }

    /// What sentry-cli reads before it uploads. `url` is relative: sentry-cli puts its own base URL
    /// and `/api/0` in front, so the answer holds behind any proxy.
    func options(_ request: HTTPRequest) -> HTTPResponse {
        let org = request.parameters["org"] ?? ""
        return .json([
            "url": "/organizations/\(org)/chunk-upload/",
            "chunkSize": Self.chunkSize,
            "chunksPerRequest": Self.chunksPerRequest,
            "maxRequestSize": Self.maxRequestSize,
            "maxFileSize": context.configuration.maxBody,
            "maxWait": 0,
            "concurrency": Self.concurrency,
            "hashAlgorithm": "sha1",
            "compression": ["gzip"],
            "accept": ["debug_files"],
        ])
    }

    /// Stores every chunk of the request, or none: all parts are checked before the first is kept.
    func post(_ request: HTTPRequest) throws -> HTTPResponse {
        guard request.isForm else {
            if request.bodyLength == 0 { return .json([:]) }
            throw HTTPError.badRequest(
                "chunks are sent as multipart/form-data parts named file or file_gzip, each with the SHA-1 of its bytes as file name"
            )
        }
        var chunks: [(key: BlobKey, bytes: [UInt8])] = []
        var total = 0
        for part in request.formParts {
            guard part.name == "file" || part.name == "file_gzip" else { continue }
            guard chunks.count < Self.chunksPerRequest else {
                throw HTTPError.badRequest("more than \(Self.chunksPerRequest) chunks in one request")
            }
            let name = part.fileName ?? ""
            guard let key = BlobKey(.sha1, name) else {
                throw HTTPError.badRequest(
                    "a chunk's file name must be the SHA-1 of its bytes (40 hex digits), not '\(name.prefix(80))'")
            }
            let bytes = part.name == "file_gzip" ? try inflate(part.bytes, name: name) : part.bytes
            guard bytes.count <= Self.chunkSize else {
                throw HTTPError.badRequest(
                    "chunk \(name) is \(bytes.count) bytes; chunks are at most \(Self.chunkSize)")
            }
            let actual = BlobAlgorithm.sha1.hex(bytes)
            guard actual == key.digest else {
                throw HTTPError.badRequest(
                    "chunk \(key.digest) does not match its bytes (their SHA-1 is \(actual)); no chunk of this request was kept"
                )
            }
            total += bytes.count
            guard total <= Self.maxRequestSize else {
                throw HTTPError.badRequest("the chunks of one request are at most \(Self.maxRequestSize) bytes")
            }
            chunks.append((key, bytes))
        }
        // A chunk the store held already was sent again: the log says how many, so a client that
        // resends what the server has (not resuming, or asking too little) shows in the log.
        var held = 0
        for chunk in chunks {
            if (try? blobs.exists(chunk.key)) == true { held += 1 }
            try blobs.put(chunk.bytes, as: chunk.key)
        }
        if !chunks.isEmpty {
            context.log.event("chunks_received", ["count": String(chunks.count), "already_held": String(held)])
        }
        return .json([:])
    }

    private func inflate(_ bytes: [UInt8], name: String) throws -> [UInt8] {
        do {
            return try Zlib.inflate(bytes, limit: Self.chunkSize)
        } catch {
            switch error {
            case .tooLarge:
                throw HTTPError.badRequest("chunk \(name) inflates to more than \(Self.chunkSize) bytes")
            default:
                throw HTTPError.badRequest("chunk \(name) is sent as file_gzip but is not gzip data")
            }
        }
    }
}
