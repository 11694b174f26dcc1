// A replica asked about a file whose assembly another replica has claimed (a fresh claim in the
// store) answers `assembling` and starts no assembly of its own; a claim left by a replica that
// stopped (not rewritten for a minute) does not hold the file back, and the assembly starts.

import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("Assembly claims", .tags(.server), .needsSamples, .needsExecutable)
struct AssemblyClaimTests {
    static func claim(_ server: TestServer, _ checksum: String, writtenSecondsAgo: Double) throws {
        let folder = server.server.configuration.storeDirectory + "/assembling/sha1"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let written = Date().timeIntervalSince1970 - writtenSecondsAgo
        try Data(#"{"written":\#(written)}"#.utf8).write(to: URL(fileURLWithPath: folder + "/\(checksum).json"))
    }

    @Test func anAssemblyClaimedElsewhereIsAssemblingUntilItsClaimIsStale() throws {
        let server = try TestServer()
        let (chunks, checksum, file) = ChunkProtocolTests.chunked(
            try ChunkProtocolTests.sampleDSYM(), size: 1 << 16, name: "HoldKit")
        #expect(try ChunkProtocolTests.postChunks(server, chunks.map { ("file", $0.0, $0.1) }).status == 200)

        try Self.claim(server, checksum, writtenSecondsAgo: 5)
        for _ in 0..<2 {
            let entry = try ChunkProtocolTests.assemble(server, [checksum: file])[checksum]
            #expect(entry?["state"] as? String == "assembling", "\(String(describing: entry))")
        }
        #expect(try server.get("/v1/symbols/4C4C44AA-5555-3144-A1C9-3105F2834F44").status == 404)

        try Self.claim(server, checksum, writtenSecondsAgo: AssemblyClaim.staleAfter + 1)
        let started = try ChunkProtocolTests.assemble(server, [checksum: file])[checksum]
        #expect(started?["state"] as? String == "created", "\(String(describing: started))")
        let entry = try ChunkProtocolTests.settle(server, checksum: checksum, file)
        #expect(entry["state"] as? String == "ok", "\(entry)")
        let claims = server.server.configuration.storeDirectory + "/assembling/sha1/\(checksum).json"
        #expect(!FileManager.default.fileExists(atPath: claims))
    }
}
