// The uploader's view of a file: its chunks (SHA-1 of every `chunkSize` bytes, read in order once)
// and its own SHA-1, and the reading of one chunk back from disk when the server asks for it.
// Files are never held in memory whole: a 2 GB dSYM costs one chunk of memory at a time.

import Digest
import Foundation
import ObjectFiles
import SymbolicateModel

/// A file cut into chunks.
public struct ChunkedFile: Sendable {
    public var file: UploadFile
    public var checksum: String
    public var chunks: [String]
    public var chunkSize: Int

    /// Reads every chunk once to name it.
    public init(_ file: UploadFile, chunkSize: Int) throws {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SymbolicateError.system("cannot read it", path: file.path)
        }
        defer { close(descriptor) }
        var whole = SHA1()
        var chunks: [String] = []
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var offset: Int64 = 0
        while true {
            let count = try Self.readFully(descriptor, &buffer, at: offset, path: file.path)
            if count == 0 { break }
            let piece = Array(buffer.prefix(count))
            whole.update(piece)
            chunks.append(SHA1.hex(piece))
            offset += Int64(count)
            if count < chunkSize { break }
        }
        self.file = file
        self.file.size = offset
        self.checksum = hexString(whole.finalize())
        self.chunks = chunks
        self.chunkSize = chunkSize
    }

    /// The bytes of chunk `index`, checked against its name (the file may have changed since).
    func chunk(_ index: Int) throws -> [UInt8] {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SymbolicateError.system("cannot read it", path: file.path)
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        let count = try Self.readFully(descriptor, &buffer, at: Int64(index) * Int64(chunkSize), path: file.path)
        let bytes = Array(buffer.prefix(count))
        guard SHA1.hex(bytes) == chunks[index] else {
            throw SymbolicateError(.badInput, "the file changed while it was being uploaded", path: file.path)
        }
        return bytes
    }

    /// Reads up to `buffer.count` bytes at `offset`, fewer only at the end of the file.
    static func readFully(_ descriptor: Int32, _ buffer: inout [UInt8], at offset: Int64, path: String) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(descriptor, base + done, raw.count - done, off_t(offset) + off_t(done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw SymbolicateError.system("cannot read it", path: path)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }
}

extension ChunkedUploader {
    /// A build of a file and whether the server has it (`GET /v1/symbols/UUID`), for `--dry-run`:
    /// asks nothing that changes the server.
    public struct BuildPresence: Sendable {
        public var uuid: String
        public var arch: String
        public var present: Bool
    }

    public func presence(of file: UploadFile) throws -> [BuildPresence] {
        let slices = try ObjectFile.slices(atPath: file.path)
        let base = String(apiRoot.dropLast("/api/0".count))
        return try slices.map { slice in
            let uuid = slice.info.uuid.uuidString
            let response = try client.send(
                "GET", base + "/v1/symbols/" + uuid, headers: [("Authorization", "Bearer \(token)")])
            var present = false
            if response.status == 200,
                let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                let builds = object["builds"] as? [[String: Any]]
            {
                present = builds.contains { $0["arch"] as? String == slice.info.arch.rawValue }
            } else if response.status != 404 {
                throw SymbolicateError(
                    .io,
                    "GET /v1/symbols/\(uuid): the server answered \(response.status): \(Self.errorMessage(response))")
            }
            return BuildPresence(uuid: uuid, arch: slice.info.arch.rawValue, present: present)
        }
    }
}
