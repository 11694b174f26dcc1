// `GET /v1/symbols/{uuid}/file` on a server that keeps originals: a dSYM uploaded by sentry-cli
// comes back byte-identical to the bundle's DWARF file, read tokens apply, `kind` chooses the
// file, and a record whose file is gone is a 404 that says so.

import Archives
import Digest
import Foundation
import Import
import Store
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

@Suite("Original downloads", .tags(.server), .needsSentryCLI, .needsSamples, .needsExecutable)
struct OriginalDownloadTests {
    static let reader = "reader-token-0002"
    static let uuid = "4C4C4497-5555-3144-A1DD-16472FD51F14"
    static let dwarf = "ios-arm64-dwarf4/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"

    @Test func uploadedDSYMComesBackByteIdentical() throws {
        let token = SentryCLI.newToken()
        let server = try TestServer {
            $0.tokens = TokenSet(tokens: [token])
            $0.readTokens = TokenSet(named: [(name: "debugger", token: Self.reader)])
            $0.keepOriginals = true
        }
        let upload = try SentryCLI.run(
            [
                "debug-files", "upload", "--wait", "--org", "team", "--project", "app",
                Repository.samplesBuild + "/ios-arm64-dwarf4/HoldApp.app.dSYM",
            ], port: Int(server.port), token: token)
        #expect(upload.status == 0, "\(upload.stdoutText)\(upload.stderrText)")

        let path = "/v1/symbols/\(Self.uuid)/file"
        #expect(try server.get(path).status == 401)
        let read = [("Authorization", "Bearer \(Self.reader)")]
        let file = try server.get(path, headers: read)
        #expect(file.status == 200, "\(file.text)")
        let expected = try #require(FileManager.default.contents(atPath: Repository.samplesBuild + "/" + Self.dwarf))
        #expect(file.body == [UInt8](expected))
        #expect(file.headers["content-type"] == "application/octet-stream")

        let debuginfo = try server.get(path + "?kind=debuginfo", headers: read)
        #expect(debuginfo.body == [UInt8](expected))
        let executable = try server.get(path + "?kind=executable", headers: read)
        #expect(executable.status == 404)
        #expect(executable.text.contains("no executable file of \(Self.uuid) is kept"), "\(executable.text)")
        #expect(try server.get(path + "?kind=source", headers: read).status == 400)
        let unknown = try server.get("/v1/symbols/4C4C4497-5555-3144-A1DD-000000000000/file", headers: read)
        #expect(unknown.status == 404)

        // The index still names the file, but the file is gone.
        let digest = SHA256.hex([UInt8](expected))
        unlink(
            server.server.configuration.storeDirectory + "/blobs/sha256/" + digest.prefix(2) + "/" + digest.dropFirst(2)
        )
        let gone = try server.get(path, headers: read)
        #expect(gone.status == 404)
        #expect(gone.text.contains("is indexed but its file sha256:\(digest) is not stored"), "\(gone.text)")
    }
}

/// A zip of dSYM bundles posted to `/v1/symbols` (curl's way, not sentry-cli's): each bundle's DWARF
/// file is kept from the zip, and comes back byte-identical.
@Suite("Original downloads from a zip upload", .tags(.server))
struct ZipUploadOriginalTests {
    @Test(.enabled(if: UploadTests.ready, "\(UploadTests.notReady)"))
    func aZippedDSYMComesBackByteIdentical() throws {
        let server = try TestServer { $0.keepOriginals = true }
        let upload = try server.post(
            "/v1/symbols", try UploadTests.zip(["HoldApp.app.dSYM", "HoldKit.framework.dSYM"]), headers: server.auth)
        #expect(upload.status == 201, "\(upload.text)")
        for (image, bundle) in [("HoldApp", "HoldApp.app.dSYM"), ("HoldKit", "HoldKit.framework.dSYM")] {
            let uuid = try #require(Fixtures.uuids(variant: UploadTests.variant)[image])
            let dwarf = try #require(
                Fixtures.build("\(UploadTests.variant)/\(bundle)/Contents/Resources/DWARF/\(image)"))
            let file = try server.get("/v1/symbols/\(uuid)/file")
            #expect(file.status == 200, "\(image): \(file.text)")
            #expect(file.body == [UInt8](try #require(FileManager.default.contents(atPath: dwarf))), "\(image)")
        }
    }
}

/// `?format=dsym`: the kept DWARF file as a zip of a dSYM bundle, which imports as the same build;
/// an ELF debug file has no bundle.
@Suite("Original downloads as a dSYM bundle", .tags(.server))
struct DSYMBundleDownloadTests {
    @Test(.enabled(if: UploadTests.ready, "\(UploadTests.notReady)"))
    func aKeptDWARFFileComesBackAsABundle() throws {
        let server = try TestServer { $0.keepOriginals = true }
        let upload = try server.post("/v1/symbols", try UploadTests.zip(["HoldApp.app.dSYM"]), headers: server.auth)
        #expect(upload.status == 201, "\(upload.text)")
        let uuid = try #require(Fixtures.uuids(variant: UploadTests.variant)["HoldApp"])
        let answer = try server.get("/v1/symbols/\(uuid)/file?format=dsym")
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.headers["content-type"] == "application/zip")
        #expect(answer.headers["content-disposition"]?.contains("HoldApp.dSYM.zip") == true)

        let zip = NSTemporaryDirectory() + "bundle-\(UUID().uuidString).zip"
        defer { unlink(zip) }
        try Data(answer.body).write(to: URL(fileURLWithPath: zip))
        let reader = try ArchiveReader.forImport(path: zip, limits: ArchiveImportLimits())
        var members: [String: [UInt8]] = [:]
        while let entry = try reader.nextForImport() {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = try buffer.withUnsafeMutableBytes { try reader.readForImport(into: $0) }
                if n == 0 { break }
                bytes += buffer[0..<n]
            }
            members[entry.name] = bytes
        }
        #expect(
            Set(members.keys) == ["HoldApp.dSYM/Contents/Info.plist", "HoldApp.dSYM/Contents/Resources/DWARF/HoldApp"])
        let dwarf = try #require(
            Fixtures.build("\(UploadTests.variant)/HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"))
        #expect(
            members["HoldApp.dSYM/Contents/Resources/DWARF/HoldApp"]
                == [UInt8](try #require(FileManager.default.contents(atPath: dwarf))))
        let plist = String(decoding: members["HoldApp.dSYM/Contents/Info.plist"] ?? [], as: UTF8.self)
        #expect(plist.contains("<string>com.apple.xcode.dsym.HoldApp</string>"), "\(plist)")
        let parsed = try PropertyListSerialization.propertyList(from: Data(plist.utf8), format: nil) as? [String: Any]
        #expect(parsed?["CFBundlePackageType"] as? String == "dSYM")

        // The bundle imports as the build it came from.
        let store = try SymbolStore(directory: NSTemporaryDirectory() + "bundle-store-\(UUID().uuidString)")
        let summary = store.importPaths([zip], progress: nil)
        #expect(summary.failures.isEmpty && summary.imported.map(\.uuid.uuidString) == [uuid], "\(summary)")

        #expect(try server.get("/v1/symbols/\(uuid)/file?format=zip").status == 400)
    }
}
