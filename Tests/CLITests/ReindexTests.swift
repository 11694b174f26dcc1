// `symbolicate reindex`: a store whose build files were deleted is rebuilt from its kept
// originals (the programs built here with clang, `-g -Wl,--build-id`), `verify` then finds it
// healthy, a second run has nothing to do, and a build imported without its original is named as
// one that cannot be rebuilt.

import Foundation
import TestSupport
import Testing

@Suite struct ReindexTests {
    static let clang: String? = ProcessRunner.which("clang")

    @Test(.enabled(if: clang != nil, "needs clang"))
    func deletedBuildFilesAreRebuiltFromOriginals() throws {
        let f = try OriginalsTests.Fixture()
        defer { f.remove() }
        #expect(try CLI.run(["import", "--store", f.store, "--keep-originals", f.kept]).status == 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: f.store + "/builds") {
            try FileManager.default.removeItem(atPath: f.store + "/builds/" + file)
        }
        #expect(try CLI.run(["verify", "--store", f.store]).status == 1)

        let first = try CLI.run(["reindex", "--jobs", "2", "--store", f.store])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("rebuilt 1 build, 0 already current, 0 not rebuilt"), "\(first.stderr)")
        let verify = try CLI.run(["verify", "--deep", "--store", f.store])
        #expect(verify.status == 0, "\(verify.stderr)")
        let list = try CLI.run(["list", "--store", f.store]).stdoutText
        #expect(list.contains("  ready  kept"), "the build keeps the file's name: \(list)")

        let again = try CLI.run(["reindex", "--store", f.store])
        #expect(again.stderr.contains("rebuilt 0 builds, 1 already current"), "\(again.stderr)")
    }

    @Test(.enabled(if: clang != nil, "needs clang"))
    func buildsWithoutOriginalsAreNamed() throws {
        let f = try OriginalsTests.Fixture()
        defer { f.remove() }
        #expect(try CLI.run(["import", "--store", f.store, "--keep-originals", f.kept]).status == 0)
        #expect(try CLI.run(["import", "--store", f.store, f.plain]).status == 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: f.store + "/builds") {
            try FileManager.default.removeItem(atPath: f.store + "/builds/" + file)
        }
        let r = try CLI.run(["reindex", "--store", f.store])
        #expect(r.status == 1)
        let id = try f.buildID(f.plain).uppercased()
        #expect(r.stderr.contains("cannot rebuild \(id) x86_64 plain (missing): no original kept"), "\(r.stderr)")
        #expect(r.stderr.contains("rebuilt 1 build"), "\(r.stderr)")
    }
}
