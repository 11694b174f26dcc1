// sentry-cli's chunked upload protocol, the assembly half: `POST /api/0/projects/{org}/{project}/
// files/difs/assemble/` names files by their SHA-1 and lists each one's chunks. Per file the answer
// is a state as Sentry's: `not_found` with the chunks the store lacks, `created` when assembly
// starts, `assembling` while it runs here or on another replica (AssemblyClaim.swift), `ok` with
// the `dif` it made, or `error` with a detail;
// `missingChunks` is on every entry (sentry-cli fails without it). Assembly runs off the request:
// the chunks are joined into a staged file, checked against the file's SHA-1, and handed to the
// same import child as `POST /v1/symbols`. What it made is recorded in the blob store's backend
// (`assembled/sha1/<sha1>.json`), so every replica, and every later run, answers `ok` without a
// chunk being sent again. Only Mach-O and ELF files are imported: an archive is never expanded
// from chunks (sentry-cli sends the files inside archives one by one), and what we do not take
// (BCSymbolMaps, plists, source bundles) is answered `ok`, ignored, with a detail saying so.
// `{org}/{project}` map to nothing: one server, one store.

import Dispatch
import Foundation
import Store
import SymbolicateModel

final class DifAssembly: Sendable {
    /// The assemble request's JSON, at most.
    static let maxRequestBytes = 8 << 20
    /// Files one assemble request may name.
    static let maxFiles = 1000
    /// A failed assembly is answered from memory this long, then tried again: ten minutes for a
    /// file that cannot be imported, half a minute when the store or the server failed (a bucket
    /// that did not answer), so that the next run, not the polls of this one, tries again.
    static let errorLifetime: TimeInterval = 600
    static let transientErrorLifetime: TimeInterval = 30

    enum Progress: Sendable {
        case running
        case failed(String, until: Date)
    }

    let context: ServiceContext
    let blobs: BlobStore
    let maxFileSize: Int
    /// Chunks one file may name: enough for a file of `maxFileSize` in chunks a quarter of the
    /// advertised size, and no more (ten thousand tiny chunks are refused, not fetched).
    let maxChunksPerFile: Int
    /// Assemblies of this process, by file SHA-1.
    private let progress = Locked<[String: Progress]>([:])
    /// Assemblies run one at a time beside the requests: each one is an import child.
    private let queue = DispatchQueue(label: "symbolicate.server.assembly")

    init(context: ServiceContext, blobs: BlobStore, maxFileSize: Int) {
        self.context = context
        self.blobs = blobs
        self.maxFileSize = maxFileSize
        let full = maxFileSize / ChunkUploads.chunkSize + 1
        maxChunksPerFile = max(64, full.multipliedReportingOverflow(by: 4).overflow ? Int.max : full * 4)
    }

    /// One file of the request.
    struct FileRequest {
        var checksum: String
        var name: String
        var debugID: String?
        var chunks: [BlobKey]
    }

    func assemble(_ request: HTTPRequest) throws -> HTTPResponse {
        let files = try parse(JSONValue.object(request.body))
        var answer: [String: Any] = [:]
        for file in files {
            answer[file.checksum] = try state(of: file, token: request.tokenName)
        }
        return .json(answer)
    }

    func parse(_ object: [String: Any]) throws -> [FileRequest] {
        guard object.count <= Self.maxFiles else {
            throw HTTPError.badRequest(
                "an assemble request names at most \(Self.maxFiles) files, this one \(object.count)")
        }
        return try object.keys.sorted().map { checksum in
            guard BlobKey(.sha1, checksum) != nil else {
                throw HTTPError.badRequest("'\(checksum.prefix(80))' is not a file's SHA-1 (40 hex digits)")
            }
            guard let entry = object[checksum] as? [String: Any], let names = entry["chunks"] as? [Any] else {
                throw HTTPError.badRequest("file \(checksum) needs an object with a chunks array")
            }
            guard names.count <= maxChunksPerFile else {
                throw HTTPError.badRequest(
                    "file \(checksum) names \(names.count) chunks; at most \(maxChunksPerFile) are taken "
                        + "(chunks of \(ChunkUploads.chunkSize) bytes, as GET chunk-upload/ says)")
            }
            let chunks = try names.map { name -> BlobKey in
                guard let text = name as? String, let key = BlobKey(.sha1, text) else {
                    throw HTTPError.badRequest("file \(checksum) names a chunk that is not a SHA-1: \(name)")
                }
                return key
            }
            let name = (entry["name"] as? String) ?? checksum
            return FileRequest(
                checksum: checksum.lowercased(), name: name, debugID: entry["debug_id"] as? String, chunks: chunks)
        }
    }

    /// Where one file stands, starting its assembly when every chunk is there.
    func state(of file: FileRequest, token: String?) throws -> [String: Any] {
        if let record = try AssemblyRecord.read(file.checksum, from: blobs.backend),
            try record.stillHolds(in: context.store)
        {
            return record.answer(checksum: file.checksum)
        }
        let now = Date()
        let known = progress.withLock { table -> Progress? in
            if case .failed(_, let until) = table[file.checksum], now > until { table[file.checksum] = nil }
            return table[file.checksum]
        }
        switch known {
        case .running: return Self.entry("assembling")
        case .failed(let detail, _): return Self.entry("error", detail: detail)
        case nil: break
        }
        guard !file.chunks.isEmpty else {
            return Self.entry("error", detail: "\(file.name) has no chunks: an empty file is no debug file")
        }
        var missing: [String] = []
        var total: Int64 = 0
        var seen = Set<BlobKey>()
        for chunk in file.chunks {
            if !seen.insert(chunk).inserted {
                total += try blobs.size(chunk) ?? 0
                continue
            }
            if let size = try blobs.size(chunk) { total += size } else { missing.append(chunk.digest) }
        }
        if !missing.isEmpty { return Self.entry("not_found", missing: missing) }
        guard total <= Int64(maxFileSize) else {
            return Self.entry(
                "error",
                detail:
                    "\(file.name) is \(total) bytes; this server takes files of at most \(maxFileSize) bytes (--max-body)"
            )
        }
        // Another replica assembles it (this one has no assembly of it running).
        if try AssemblyClaim.isFresh(file.checksum, in: blobs.backend) { return Self.entry("assembling") }
        let started = progress.withLock { table -> Bool in
            guard table[file.checksum] == nil else { return false }
            table[file.checksum] = .running
            return true
        }
        if started {
            queue.async { [self] in run(file, token: token) }
        }
        return Self.entry(started ? "created" : "assembling")
    }

    /// One entry of the answer; `missingChunks` always, as sentry-cli requires.
    static func entry(_ state: String, missing: [String] = [], detail: String? = nil) -> [String: Any] {
        var entry: [String: Any] = ["state": state, "missingChunks": missing]
        entry["detail"] = detail ?? NSNull()
        entry["dif"] = NSNull()
        return entry
    }

    /// Assembles and imports one file, then records the outcome (or remembers the failure).
    private func run(_ file: FileRequest, token: String?) {
        let claim = AssemblyClaim.hold(file.checksum, in: blobs.backend)
        defer { AssemblyClaim.release(file.checksum, claim, in: blobs.backend) }
        let outcome: Result<AssemblyRecord, HTTPError>
        do {
            outcome = .success(try DifImport(context: context, blobs: blobs, file: file, token: token).run())
        } catch {
            outcome = .failure(HTTPError.from(error))
        }
        switch outcome {
        case .success(let record):
            do {
                try record.write(file.checksum, to: blobs.backend)
                progress.withLock { $0[file.checksum] = nil }
            } catch {
                let detail = "the outcome could not be recorded: \(HTTPError.from(error).message); upload again"
                let until = Date().addingTimeInterval(Self.transientErrorLifetime)
                progress.withLock { $0[file.checksum] = .failed(detail, until: until) }
            }
        case .failure(let error):
            context.log.event("assemble_failed", ["file": file.name, "sha1": file.checksum, "error": error.message])
            let transient = error.status >= 500 || error.code == "missing_chunk"
            let lifetime = transient ? Self.transientErrorLifetime : Self.errorLifetime
            let until = Date().addingTimeInterval(lifetime)
            progress.withLock { $0[file.checksum] = .failed(error.message, until: until) }
        }
    }
}
