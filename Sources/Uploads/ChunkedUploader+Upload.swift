// The upload itself: assemble, send what is missing, assemble again until every file is done.
// Files with the same bytes go up once; a chunk two files share goes up once. The server's
// `not_found` after the chunks were sent is answered by sending what it still lacks (at most a
// few times per chunk), so a server restarted mid-upload, or a chunk swept meanwhile, costs a
// resend of only that; a file still assembling when the time is up is reported as not done.

import Compression
import Dispatch
import Foundation
import SymbolicateModel

extension ChunkedUploader {
    /// A chunk to send: which file holds it, and where.
    struct ChunkSource {
        var file: ChunkedFile
        var index: Int
    }

    /// Uploads `files` (after `options`); answers one outcome per file, in order.
    public func upload(_ files: [ChunkedFile], options: ChunkOptions) throws -> [UploadOutcome] {
        var outcomes: [String: UploadOutcome] = [:]
        var pending: [String: ChunkedFile] = [:]
        for file in files {
            if file.file.size > options.maxFileSize, options.maxFileSize > 0 {
                outcomes[file.checksum] = UploadOutcome(
                    file: file.file, state: .failed,
                    detail: "\(file.file.size) bytes: the server takes files of at most \(options.maxFileSize) bytes",
                    chunksSent: 0)
            } else if pending[file.checksum] == nil {
                pending[file.checksum] = file
            }
        }
        var sent: [String: Int] = [:]
        var sentByFile: [String: Int] = [:]
        let deadline = Date().addingTimeInterval(assembleTimeout)
        let total = pending.count
        while !pending.isEmpty {
            let answer = try assemble(Array(pending.values))
            var missing: [String: ChunkSource] = [:]
            var waiting = false
            for (checksum, file) in pending {
                guard let entry = answer[checksum] as? [String: Any], let state = entry["state"] as? String else {
                    throw SymbolicateError(.io, "the server's assemble answer leaves out \(file.file.name)")
                }
                let detail = entry["detail"] as? String
                let dif = entry["dif"] as? [String: Any]
                switch state {
                case "ok":
                    let count = sentByFile[checksum] ?? 0
                    let kept: UploadOutcome.State = dif == nil ? .ignored : (count > 0 ? .uploaded : .present)
                    outcomes[checksum] = UploadOutcome(
                        file: file.file, state: kept, detail: detail, debugID: dif?["debugId"] as? String,
                        chunksSent: count)
                    pending[checksum] = nil
                case "error":
                    outcomes[checksum] = UploadOutcome(
                        file: file.file, state: .failed, detail: detail ?? "the server could not assemble it",
                        chunksSent: sentByFile[checksum] ?? 0)
                    pending[checksum] = nil
                case "not_found":
                    for name in entry["missingChunks"] as? [String] ?? [] {
                        guard let index = file.chunks.firstIndex(of: name) else { continue }
                        guard sent[name, default: 0] < 3 else {
                            throw SymbolicateError(
                                .io, "the server keeps asking for chunk \(name) of \(file.file.name); try again later")
                        }
                        missing[name] = ChunkSource(file: file, index: index)
                        sentByFile[checksum, default: 0] += 1
                    }
                    waiting = true
                default:
                    waiting = true
                }
            }
            report("assembling", bytesSent: 0, bytesToSend: 0, done: total - pending.count, total: total)
            if !missing.isEmpty {
                try send(Array(missing.values), options: options, filesDone: total - pending.count, filesTotal: total)
                for name in missing.keys { sent[name, default: 0] += 1 }
                continue
            }
            guard waiting, !pending.isEmpty else { break }
            guard Date() < deadline else {
                for (checksum, file) in pending {
                    outcomes[checksum] = UploadOutcome(
                        file: file.file, state: .failed,
                        detail: "sent, but not assembled within \(Int(assembleTimeout)) seconds; run the upload again",
                        chunksSent: sentByFile[checksum] ?? 0)
                }
                break
            }
            usleep(500_000)
        }
        return files.compactMap { file in
            outcomes[file.checksum].map { outcome in
                var mine = outcome
                mine.file = file.file
                return mine
            }
        }
    }

    /// `POST difs/assemble/` for `files`, in requests of at most 500 files.
    func assemble(_ files: [ChunkedFile]) throws -> [String: Any] {
        let url = apiRoot + "/projects/\(Self.organization)/\(Self.project)/files/difs/assemble/"
        var answer: [String: Any] = [:]
        for start in stride(from: 0, to: files.count, by: 500) {
            var body: [String: Any] = [:]
            for file in files[start..<min(files.count, start + 500)] {
                body[file.checksum] = ["name": file.file.name, "chunks": file.chunks]
            }
            let bytes = [UInt8](try JSONSerialization.data(withJSONObject: body))
            let response = try request("POST", url, body: bytes, contentType: "application/json")
            answer.merge(try json(response, "difs/assemble/")) { $1 }
        }
        return answer
    }

    /// Sends chunks in requests of at most `chunksPerRequest` chunks and `maxRequestSize` bytes,
    /// `concurrency` requests at once.
    func send(_ chunks: [ChunkSource], options: ChunkOptions, filesDone: Int, filesTotal: Int) throws {
        var batches: [[ChunkSource]] = [[]]
        var size = 0
        for chunk in chunks {
            let length = min(chunk.file.chunkSize, Int(chunk.file.file.size) - chunk.index * chunk.file.chunkSize)
            if let last = batches.last, !last.isEmpty,
                last.count >= options.chunksPerRequest || size + length > options.maxRequestSize
            {
                batches.append([])
                size = 0
            }
            batches[batches.count - 1].append(chunk)
            size += length
        }
        let totalBytes = chunks.reduce(Int64(0)) {
            $0 + Int64(min($1.file.chunkSize, Int($1.file.file.size) - $1.index * $1.file.chunkSize))
        }
        let progressState = Locked<(sent: Int64, error: (any Error)?)>((0, nil))
        let lanes = min(options.concurrency, batches.count)
        let all = batches
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: all.count, by: lanes) {
                if progressState.withLock({ $0.error != nil }) { return }
                do {
                    let bytes = try post(all[index], options: options)
                    let sent = progressState.withLock { state -> Int64 in
                        state.sent += Int64(bytes)
                        return state.sent
                    }
                    report("uploading", bytesSent: sent, bytesToSend: totalBytes, done: filesDone, total: filesTotal)
                } catch {
                    progressState.withLock { if $0.error == nil { $0.error = error } }
                    return
                }
            }
        }
        if let error = progressState.withLock({ $0.error }) { throw error }
    }

    /// One chunk request: a multipart body of `file` (or `file_gzip`) parts named by their SHA-1.
    func post(_ batch: [ChunkSource], options: ChunkOptions) throws -> Int {
        let boundary = "symbolicate-" + UUID().uuidString
        var body: [UInt8] = []
        var raw = 0
        for chunk in batch {
            let bytes = try chunk.file.chunk(chunk.index)
            raw += bytes.count
            let gzip = options.gzip ? Zlib.deflate(bytes, framing: .gzip) : nil
            let field = gzip == nil ? "file" : "file_gzip"
            body += Array("--\(boundary)\r\n".utf8)
            body += Array(
                "Content-Disposition: form-data; name=\"\(field)\"; filename=\"\(chunk.file.chunks[chunk.index])\"\r\n"
                    .utf8)
            body += Array("Content-Type: application/octet-stream\r\n\r\n".utf8)
            body += (gzip ?? bytes) + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        _ = try request("POST", options.url, body: body, contentType: "multipart/form-data; boundary=\(boundary)")
        return raw
    }

    func report(_ phase: String, bytesSent: Int64, bytesToSend: Int64, done: Int, total: Int) {
        progress?(
            UploadProgress(
                phase: phase, bytesSent: bytesSent, bytesToSend: bytesToSend, filesDone: done, filesTotal: total))
    }
}
