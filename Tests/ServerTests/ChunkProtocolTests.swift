// The chunked upload protocol over HTTP, for what sentry-cli never sends: a chunk whose bytes do
// not hash to its name, a gzip part that inflates past the chunk size, more parts than a request
// may carry, an assemble naming chunks nobody sent, ten thousand tiny chunks, a file over the
// limit, chunks that make another file than the one announced, an archive (a zip bomb) or a file
// we do not take assembled from chunks, and a server stopped between the chunks and the assembly:
// each gets a clear answer, nothing is half imported, and the next try finishes.

import Compression
import Digest
import Foundation
import Store
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

@Suite("Chunked upload protocol", .tags(.server))
struct ChunkProtocolTests {
    static let chunkPath = "/api/0/organizations/team/chunk-upload/"
    static let assemblePath = "/api/0/projects/team/app/files/difs/assemble/"

    /// A multipart/form-data body of `(field, file name, bytes)` parts, as curl's form API makes it.
    static func form(_ parts: [(String, String, [UInt8])]) -> (body: [UInt8], type: String) {
        let boundary = "------------------------chunkboundary\(UInt32.random(in: 0...UInt32.max))"
        var body: [UInt8] = []
        for (field, name, bytes) in parts {
            body += Array("--\(boundary)\r\n".utf8)
            body += Array("Content-Disposition: form-data; name=\"\(field)\"; filename=\"\(name)\"\r\n".utf8)
            body += Array("Content-Type: application/octet-stream\r\n\r\n".utf8)
            body += bytes + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    static func postChunks(_ server: TestServer, _ parts: [(String, String, [UInt8])]) throws -> TestResponse {
        let (body, type) = form(parts)
        return try server.post(chunkPath, body, headers: server.auth + [("Content-Type", type)])
    }

    static func assemble(_ server: TestServer, _ files: [String: [String: Any]]) throws -> [String: [String: Any]] {
        let body = try JSONSerialization.data(withJSONObject: files)
        let response = try server.post(
            assemblePath, [UInt8](body), headers: server.auth + [("Content-Type", "application/json")])
        try #require(response.status == 200, "\(response.status) \(response.text)")
        return response.json() as? [String: [String: Any]] ?? [:]
    }

    /// Asks until the file is `ok` or `error` (at most 60 seconds), answering its last entry.
    static func settle(_ server: TestServer, checksum: String, _ file: [String: Any]) throws -> [String: Any] {
        for _ in 0..<600 {
            let entry = try #require(try assemble(server, [checksum: file])[checksum])
            if let state = entry["state"] as? String, state == "ok" || state == "error" { return entry }
            usleep(100_000)
        }
        Issue.record("the assembly of \(checksum) did not finish")
        return [:]
    }

    /// `bytes` cut into chunks of `size`, as (name, bytes), and the announcement of the whole file.
    static func chunked(_ bytes: [UInt8], size: Int, name: String) -> ([(String, [UInt8])], String, [String: Any]) {
        let chunks = stride(from: 0, to: bytes.count, by: size).map { start in
            let piece = Array(bytes[start..<min(bytes.count, start + size)])
            return (SHA1.hex(piece), piece)
        }
        return (chunks, SHA1.hex(bytes), ["name": name, "chunks": chunks.map(\.0)])
    }

    static func sampleDSYM() throws -> [UInt8] {
        let path = Repository.samplesBuild + "/ios-arm64-dwarf5/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"
        return [UInt8](try #require(FileManager.default.contents(atPath: path)))
    }

    @Test func optionsSayHowToUpload() throws {
        let server = try TestServer()
        let refused = try server.get(Self.chunkPath)
        #expect(refused.status == 401)
        let options = try server.get(Self.chunkPath, headers: server.auth).json()
        #expect(options["url"] as? String == "/organizations/team/chunk-upload/")
        #expect(options["hashAlgorithm"] as? String == "sha1")
        #expect(options["compression"] as? [String] == ["gzip"])
        #expect(options["accept"] as? [String] == ["debug_files"])
        #expect((options["maxFileSize"] as? Int ?? 0) >= server.server.configuration.maxBody)
        for key in ["chunkSize", "chunksPerRequest", "maxRequestSize", "concurrency"] {
            #expect((options[key] as? Int ?? 0) > 0, "\(key)")
        }
    }

    @Test func aChunkThatDoesNotHashToItsNameIsRefusedWithTheRest() throws {
        let server = try TestServer()
        let good = Array("good chunk".utf8)
        let bad = Array("bad chunk".utf8)
        let response = try Self.postChunks(
            server, [("file", SHA1.hex(good), good), ("file", SHA1.hex(Array("other".utf8)), bad)])
        #expect(response.status == 400)
        #expect(response.text.contains("does not match its bytes"))
        let answer = try Self.assemble(server, [SHA1.hex(good): ["name": "x", "chunks": [SHA1.hex(good)]]])
        #expect(answer[SHA1.hex(good)]?["state"] as? String == "not_found")
        #expect(answer[SHA1.hex(good)]?["missingChunks"] as? [String] == [SHA1.hex(good)])
    }

    @Test func gzipPartsAreNamedByTheirInflatedBytesAndBoundedByTheChunkSize() throws {
        let server = try TestServer()
        let bytes = Array(repeating: UInt8(ascii: "a"), count: 1000)
        let gzip = try #require(Zlib.deflate(bytes, framing: .gzip))
        #expect(try Self.postChunks(server, [("file_gzip", SHA1.hex(bytes), gzip)]).status == 200)
        let answer = try Self.assemble(server, [SHA1.hex(bytes): ["name": "a", "chunks": [SHA1.hex(bytes)]]])
        #expect(answer[SHA1.hex(bytes)]?["missingChunks"] as? [String] != [SHA1.hex(bytes)])

        let bomb = Array(repeating: UInt8(0), count: ChunkUploads.chunkSize + 1)
        let small = try #require(Zlib.deflate(bomb, framing: .gzip))
        let refused = try Self.postChunks(server, [("file_gzip", SHA1.hex(bomb), small)])
        #expect(refused.status == 400)
        #expect(refused.text.contains("inflates to more than"))
    }

    /// libmicrohttpd's form parser announces a part with an empty piece at offset 0 when what it
    /// has read ends within four bytes after the part's data starts (it cannot yet tell data from a
    /// boundary), and then gives the data at offset 0 again. Seen under load as sentry-cli's gzip
    /// chunk refused "not gzip data": an empty part was read. The request goes in three writes,
    /// each ending two bytes into a part's data, with a pause after each so that the server reads
    /// it alone (were they read together, nothing would be tested).
    @Test func aPartWhoseDataStartsARead() throws {
        let server = try TestServer()
        let first = Array(repeating: UInt8(ascii: "b"), count: 2000)
        let second = Array("the second chunk".utf8)
        let gzip = try #require(Zlib.deflate(first, framing: .gzip))
        let (body, type) = Self.form([("file_gzip", SHA1.hex(first), gzip), ("file", SHA1.hex(second), second)])
        let blank: [UInt8] = [13, 10, 13, 10]
        let dataStarts = (0..<(body.count - 3)).filter { Array(body[$0..<$0 + 4]) == blank }.map { $0 + 4 + 2 }
        try #require(dataStarts.count == 2)
        let head = TestHTTP.head(
            "POST", Self.chunkPath, headers: server.auth + [("Content-Type", type)], bodyLength: body.count)
        let connection = try TestConnection(port: server.port)
        try connection.send(Array(head.utf8) + body[..<dataStarts[0]])
        usleep(300_000)
        try connection.send(Array(body[dataStarts[0]..<dataStarts[1]]))
        usleep(300_000)
        try connection.send(Array(body[dataStarts[1]...]))
        let response = try connection.response()
        #expect(response.status == 200, "\(response.text)")
        let answer = try Self.assemble(server, [SHA1.hex(first): ["name": "b", "chunks": [SHA1.hex(first)]]])
        #expect(answer[SHA1.hex(first)]?["missingChunks"] as? [String] != [SHA1.hex(first)])
    }

    @Test func moreChunksThanARequestCarriesAreRefused() throws {
        let server = try TestServer()
        let parts = (0...ChunkUploads.chunksPerRequest).map { index -> (String, String, [UInt8]) in
            let bytes = Array("chunk \(index)".utf8)
            return ("file", SHA1.hex(bytes), bytes)
        }
        let response = try Self.postChunks(server, parts)
        #expect(response.status == 400)
        #expect(response.text.contains("more than \(ChunkUploads.chunksPerRequest) chunks"))
    }

    @Test func tenThousandTinyChunksAreRefusedBeforeAnyIsLookedFor() throws {
        let server = try TestServer()
        let names = (0..<10_000).map { SHA1.hex(Array("tiny \($0)".utf8)) }
        let body = try JSONSerialization.data(withJSONObject: [SHA1.hex([1]): ["name": "tiny", "chunks": names]])
        let response = try server.post(Self.assemblePath, [UInt8](body), headers: server.auth)
        #expect(response.status == 400)
        #expect(response.text.contains("names 10000 chunks"))
    }

    @Test(.needsSamples, .needsExecutable)
    func assemblesImportsAndAnswersOkFromTheRecord() throws {
        let server = try TestServer()
        let (chunks, checksum, file) = Self.chunked(try Self.sampleDSYM(), size: 4096, name: "HoldKit")
        let before = try Self.assemble(server, [checksum: file])[checksum]
        #expect(before?["state"] as? String == "not_found")
        #expect(Set(before?["missingChunks"] as? [String] ?? []) == Set(chunks.map(\.0)))
        for batch in stride(from: 0, to: chunks.count, by: 64) {
            let parts = chunks[batch..<min(chunks.count, batch + 64)].map { ("file", $0.0, $0.1) }
            #expect(try Self.postChunks(server, parts).status == 200)
        }
        let entry = try Self.settle(server, checksum: checksum, file)
        #expect(entry["state"] as? String == "ok", "\(entry)")
        #expect(entry["missingChunks"] as? [String] == [])
        let dif = try #require(entry["dif"] as? [String: Any])
        #expect(dif["debugId"] as? String == "4c4c44aa-5555-3144-a1c9-3105f2834f44")
        #expect(dif["objectName"] as? String == "HoldKit")
        #expect(dif["cpuName"] as? String == "arm64")
        #expect(dif["sha1"] as? String == checksum)
        #expect(try server.get("/v1/symbols/4C4C44AA-5555-3144-A1C9-3105F2834F44").status == 200)
    }

    @Test(.needsSamples, .needsExecutable)
    func chunksSentToAStoppedServerAreAssembledByTheNextOne() throws {
        let (chunks, checksum, file) = Self.chunked(try Self.sampleDSYM(), size: 1 << 16, name: "HoldKit")
        let first = try TestServer()
        let store = first.server.configuration.storeDirectory
        #expect(try Self.postChunks(first, chunks.map { ("file", $0.0, $0.1) }).status == 200)
        first.server.stop()
        let second = try TestServer { $0.storeDirectory = store }
        let entry = try Self.settle(second, checksum: checksum, file)
        #expect(entry["state"] as? String == "ok", "\(entry)")
        _ = first
    }

    @Test(.needsExecutable)
    func whatCannotBeImportedIsAnErrorOrIgnoredNeverHalfImported() throws {
        let server = try TestServer { $0.maxBody = 1 << 20 }
        // Over the limit: two chunks of 600 KB.
        let large = (0..<(1_200_000)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let (largeChunks, largeSum, largeFile) = Self.chunked(large, size: 600_000, name: "Large")
        #expect(try Self.postChunks(server, largeChunks.map { ("file", $0.0, $0.1) }).status == 200)
        let over = try Self.settle(server, checksum: largeSum, largeFile)
        #expect(over["state"] as? String == "error")
        #expect((over["detail"] as? String ?? "").contains("at most \(1 << 20) bytes"))

        // A zip bomb assembled from chunks is never expanded.
        var zip = ZipFixture()
        zip.add("bomb.bin", contents: Array(repeating: 0, count: 4 << 20))
        let (zipChunks, zipSum, zipFile) = Self.chunked(zip.bytes, size: 1 << 16, name: "dSYMs.zip")
        #expect(try Self.postChunks(server, zipChunks.map { ("file", $0.0, $0.1) }).status == 200)
        let archive = try Self.settle(server, checksum: zipSum, zipFile)
        #expect(archive["state"] as? String == "error")
        #expect((archive["detail"] as? String ?? "").contains("archives are not expanded"))

        // A BCSymbolMap is ignored, with a detail saying so.
        let map = Array("BCSymbolMap Version: 2.0\n__hidden#0_\n".utf8)
        let (mapChunks, mapSum, mapFile) = Self.chunked(map, size: 1 << 16, name: "A.bcsymbolmap")
        #expect(try Self.postChunks(server, mapChunks.map { ("file", $0.0, $0.1) }).status == 200)
        let ignored = try Self.settle(server, checksum: mapSum, mapFile)
        #expect(ignored["state"] as? String == "ok")
        #expect((ignored["detail"] as? String ?? "").contains("BCSymbolMap"))

        // Chunks that make another file than the one announced.
        let wrongSum = SHA1.hex(Array("another file".utf8))
        let wrong = try Self.settle(
            server, checksum: wrongSum, ["name": "A.bcsymbolmap", "chunks": mapFile["chunks"]!])
        #expect(wrong["state"] as? String == "error")
        #expect((wrong["detail"] as? String ?? "").contains("nothing was imported"))

        #expect(try server.get("/v1/symbols").json()["total"] as? Int == 0)
    }
}
