// Token files with `NAME:TOKEN` lines and bare tokens, and what the logs say about them: the name,
// or for a bare token its fingerprint (the first 8 hex digits of its SHA-256), never the token.

import Foundation
import Server
import TestSupport
import Testing

@Suite("Token names", .tags(.server))
struct TokenNameTests {
    @Test func fingerprintIsTheStartOfTheSHA256() {
        // FIPS 180-2's first example: SHA-256("abc") = ba7816bf 8f01cfea ...
        #expect(TokenSet.fingerprint("abc") == "ba7816bf")
        // sha256sum of "bare-token-5678"
        #expect(TokenSet.fingerprint("bare-token-5678") == "5d9d0393")
    }

    /// With LF or CRLF line ends ("\r\n" is one Swift character, neither "\r" nor "\n").
    @Test(arguments: ["\n", "\r\n"])
    func namedAndBareLines(_ end: String) throws {
        let path = NSTemporaryDirectory() + "tokens-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ["# CI and a person", "ci: secret-ci-1234", "bare-token-5678", ""].joined(separator: end).write(
            toFile: path, atomically: true, encoding: .utf8)
        let tokens = try TokenSet(file: path)
        #expect(tokens.names == ["ci", "5d9d0393"])
        let server = try TestServer { $0.tokens = tokens }
        #expect(
            try server.post("/v1/symbols", [1], headers: [("Authorization", "Bearer secret-ci-1234")]).status == 415)
        #expect(
            try server.post("/v1/symbols", [1], headers: [("Authorization", "Bearer bare-token-5678")]).status == 415)
        // The whole `NAME:TOKEN` line, as `Bearer $(cat tokens.txt)` sends it, is accepted; its token
        // part must be that name's token.
        #expect(
            try server.post("/v1/symbols", [1], headers: [("Authorization", "Bearer ci: secret-ci-1234")]).status == 415
        )
        for wrong in ["other:secret-ci-1234", "ci:secret-ci-123", "ci:bare-token-5678"] {
            #expect(try server.post("/v1/symbols", [1], headers: [("Authorization", "Bearer " + wrong)]).status == 403)
        }
        let log = server.accessLog
        #expect(log.contains(#""token":"ci""#))
        #expect(log.contains(#""token":"5d9d0393""#))
        #expect(!log.contains("secret-ci-1234"))
        #expect(!log.contains("bare-token-5678"))
    }

    @Test(
        .enabled(
            if: Fixtures.hasImportCommand && Fixtures.build("ios-arm64-dwarf5/HoldApp.app.dSYM") != nil,
            "Samples/build or the import command is absent"))
    func uploadsLogWhichUUIDsArrivedAndThroughWhichToken() throws {
        let server = try TestServer { $0.tokens = TokenSet(named: [(name: "release-ci", token: "secret-ci-1234")]) }
        var zip = ZipFixture()
        try zip.addTree(try #require(Fixtures.build("ios-arm64-dwarf5/HoldApp.app.dSYM")), as: "HoldApp.app.dSYM")
        let response = try server.post("/v1/symbols", zip.bytes, headers: [("Authorization", "Bearer secret-ci-1234")])
        #expect(response.status == 201)
        let uuid = try #require(Fixtures.uuids(variant: "ios-arm64-dwarf5")["HoldApp"])
        let event = try #require(server.accessLog.split(separator: "\n").first { $0.contains(#""event":"import""#) })
        #expect(event.contains(#""token":"release-ci""#))
        #expect(event.contains(uuid))
        #expect(!server.accessLog.contains("secret-ci-1234"))
    }
}
