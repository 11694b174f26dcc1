// Originals on a bucket store (moto's S3 stand-in): `import --keep-originals` puts the file under
// the store's prefix by SHA-256 with its index record, `list` reports it, `verify --deep` reads it
// back, and `reindex` rebuilds a build from it on a machine with an empty cache; `sync` copies a
// folder store's originals into a bucket, once.

import Foundation
import TestSupport
import Testing

@Suite(.serialized, .needsMoto)
struct BucketOriginalsTests {
    static let clang: String? = ProcessRunner.which("clang")

    @Test(.enabled(if: clang != nil, "needs clang"))
    func originalsLiveInTheBucket() throws {
        let (_, bucket, environment, folder) = try MotoServer.scratch(prefix: "originals")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let f = try OriginalsTests.Fixture()
        defer { f.remove() }
        let store = "s3://\(bucket)/team/symbols"
        func run(_ args: [String], cache: String) throws -> CLIResult {
            try CLI.run(args + ["--store", store, "--cache", folder + "/" + cache], environment: environment)
        }
        let imported = try run(["import", "--keep-originals", f.kept], cache: "c1")
        #expect(imported.status == 0, "\(imported.stderr)")
        let list = try run(["list", "--json"], cache: "c2")
        #expect(list.stdoutText.contains(#""originals":["debuginfo"]"#), "\(list.stdoutText)\(list.stderr)")
        let verify = try run(["verify", "--deep"], cache: "c2")
        #expect(verify.status == 0, "\(verify.stderr)")
        let reindex = try run(["reindex"], cache: "c3")
        #expect(reindex.status == 0, "\(reindex.stderr)")
        #expect(reindex.stderr.contains("1 already current"), "\(reindex.stderr)")
    }

    @Test(.enabled(if: clang != nil, "needs clang"))
    func syncCopiesOriginalsOnce() throws {
        let (_, bucket, environment, folder) = try MotoServer.scratch(prefix: "originals-sync")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let f = try OriginalsTests.Fixture()
        defer { f.remove() }
        #expect(try CLI.run(["import", "--store", f.store, "--keep-originals", f.kept]).status == 0)
        let store = "s3://\(bucket)/team/symbols"
        func sync() throws -> CLIResult {
            try CLI.run(
                ["sync", "--from", f.store, "--store", store, "--cache", folder + "/sync"], environment: environment)
        }
        let first = try sync()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("copied 1 original to"), "\(first.stderr)")
        let again = try sync()
        #expect(again.stderr.contains("copied 0 originals to") && again.stderr.contains("1 already there, 0 failed"))

        let list = try CLI.run(
            ["list", "--json", "--store", store, "--cache", folder + "/c2"], environment: environment)
        #expect(list.stdoutText.contains(#""originals":["debuginfo"]"#), "\(list.stdoutText)\(list.stderr)")
        let verify = try CLI.run(
            ["verify", "--deep", "--store", store, "--cache", folder + "/c2"], environment: environment)
        #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderr)")
    }
}
