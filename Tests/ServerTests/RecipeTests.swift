// The README's Xcode build-phase recipe, run as written: its script body is taken from README.md
// (the sh block after `<!-- recipe: xcode-build-phase -->`) and run by /bin/sh on Linux with the
// variables Xcode sets for a Run Script phase, against a live server with sentry-cli. Every build
// of the dSYM folder must be in the store afterwards; with a build that makes no dSYM the script
// says so and exits 0.

import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("README recipes", .tags(.server), .needsSentryCLI, .needsSamples, .needsExecutable)
struct RecipeTests {
    /// The sh block that follows `marker` in README.md.
    static func recipe(_ marker: String) throws -> String {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- recipe: \(marker) -->"))
        let rest = readme[start.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```"))
        return String(rest[open.upperBound..<close.lowerBound]) + "\n"
    }

    static func runBuildPhase(_ server: TestServer, token: String, format: String) throws -> ProcessResult {
        let project = try Repository.scratchFolder("xcode-project")
        defer { try? FileManager.default.removeItem(atPath: project) }
        try token.write(toFile: project + "/.symbolicate-token", atomically: true, encoding: .utf8)
        let script = project + "/upload-dsyms.sh"
        try recipe("xcode-build-phase").write(toFile: script, atomically: true, encoding: .utf8)
        return try ProcessRunner.run(
            "/bin/sh", [script],
            environment: [
                "SRCROOT": project, "PRODUCT_NAME": "HoldApp", "CONFIGURATION": "Release",
                "DEBUG_INFORMATION_FORMAT": format,
                "DWARF_DSYM_FOLDER_PATH": Repository.samplesBuild + "/ios-arm64-dwarf5",
                "DWARF_DSYM_FILE_NAME": "HoldApp.app.dSYM", "TARGET_NAME": "HoldApp",
                "SYMBOLICATE_URL": "http://127.0.0.1:\(server.port)", "SENTRY_DISABLE_TELEMETRY": "1",
                "HOME": NSTemporaryDirectory(),
            ], directory: project)
    }

    @Test func xcodeBuildPhaseUploadsTheDSYMs() throws {
        let token = SentryCLI.newToken()
        let server = try TestServer { $0.tokens = TokenSet(tokens: [token]) }
        let result = try Self.runBuildPhase(server, token: token, format: "dwarf-with-dsym")
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        let builds = try server.get("/v1/symbols?per_page=1000").json()["builds"] as? [[String: Any]] ?? []
        #expect(
            Set(builds.compactMap { $0["uuid"] as? String })
                == (try SentryCLIUploadTests.sampleUUIDs(["ios-arm64-dwarf5"])))
    }

    @Test func aBuildWithoutDSYMsUploadsNothing() throws {
        let token = SentryCLI.newToken()
        let server = try TestServer { $0.tokens = TokenSet(tokens: [token]) }
        let result = try Self.runBuildPhase(server, token: token, format: "dwarf")
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("no dSYMs to upload"))
        #expect(SentryCLIUploadTests.chunkPosts(server) == 0)
    }
}
