// Originals kept by `import --keep-originals`: the file comes back byte for byte from the blob
// store under its SHA-256, the index names it by build id and kind, `list` tells builds with and
// without originals apart, and `verify`, `remove` and `gc` see the index and the blobs. The ELF
// programs are built here with clang (`-g -Wl,--build-id`).

import Foundation
import TestSupport
import Testing

@Suite struct OriginalsTests {
    static let clang: String? = ProcessRunner.which("clang")

    /// A folder with a store path and two linked programs of different build ids.
    struct Fixture {
        let dir: String
        var store: String { dir + "/store" }
        let kept: String
        let plain: String

        init() throws {
            dir = NSTemporaryDirectory() + "/symbolicate-originals-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            kept = try Self.link(in: dir, name: "kept", body: "return 2 * x;")
            plain = try Self.link(in: dir, name: "plain", body: "return 3 * x;")
        }

        static func link(in dir: String, name: String, body: String) throws -> String {
            let source = dir + "/\(name).c"
            try Data("int f(int x) { \(body) }\nint main(int c, char **v) { return f(c); }\n".utf8)
                .write(to: URL(fileURLWithPath: source))
            let out = dir + "/" + name
            let r = try ProcessRunner.run(clang ?? "/usr/bin/clang", ["-g", "-Wl,--build-id", "-o", out, source])
            #expect(r.status == 0, "clang failed: \(r.stderrText)")
            return out
        }

        func buildID(_ file: String) throws -> String {
            let r = try CLI.run(["import", "--store", dir + "/probe", "--json", file])
            let text = r.stdoutText
            guard let range = text.range(of: #""uuid":"([0-9A-F-]+)""#, options: .regularExpression) else {
                Issue.record("no uuid in \(text)")
                return ""
            }
            return String(text[range].dropFirst(8).dropLast()).lowercased()
        }

        /// The SHA-256 of `file` and its debuginfo index record in the store, after checking that the
        /// blob under that digest holds the file's bytes.
        func keptOriginal(of file: String) throws -> (digest: String, record: String) {
            let digest = try OriginalsTests.sha256(file)
            let blob = store + "/blobs/sha256/" + digest.prefix(2) + "/" + digest.dropFirst(2)
            #expect(FileManager.default.contents(atPath: blob) == FileManager.default.contents(atPath: file))
            let record = try String(
                contentsOfFile: store + "/originals/\(try buildID(file))/debuginfo", encoding: .utf8)
            return (digest, record)
        }

        func remove() { try? FileManager.default.removeItem(atPath: dir) }
    }

    static func sha256(_ path: String) throws -> String {
        let r = try ProcessRunner.run("/usr/bin/sha256sum", [path])
        return String(r.stdoutText.prefix(64))
    }

    @Test(.enabled(if: clang != nil, "needs clang"))
    func keptFileComesBackWholeAndIsIndexed() throws {
        let f = try Fixture()
        defer { f.remove() }
        let imported = try CLI.run(["import", "--store", f.store, "--keep-originals", f.kept])
        #expect(imported.status == 0, "\(imported.stderr)")
        let (digest, record) = try f.keptOriginal(of: f.kept)
        #expect(record.hasPrefix("sha256:\(digest)\n"))

        let plain = try CLI.run(["import", "--store", f.store, f.plain])
        #expect(plain.status == 0)
        let list = try CLI.run(["list", "--store", f.store]).stdoutText
        let lines = list.split(separator: "\n")
        #expect(lines.first { $0.hasSuffix("  kept") } != nil, "\(list)")
        #expect(lines.first { $0.hasSuffix("  plain  (no originals)") } != nil, "\(list)")
        let json = try CLI.run(["list", "--json", "--store", f.store]).stdoutText
        #expect(json.contains(#""originals":["debuginfo"]"#) && json.contains(#""originals":[]"#), "\(json)")
    }

    /// A member of an archive (what an upload to the server is) is kept as the member's bytes,
    /// under the member's file name.
    @Test(.enabled(if: clang != nil, "needs clang"))
    func archiveMembersAreKept() throws {
        let f = try Fixture()
        defer { f.remove() }
        try FileManager.default.createDirectory(atPath: f.dir + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: f.kept, toPath: f.dir + "/bin/kept")
        let archive = f.dir + "/builds.tar.gz"
        let tar = try ProcessRunner.run("tar", ["-czf", archive, "-C", f.dir, "bin/kept"])
        #expect(tar.status == 0, "\(tar.stderrText)")

        let imported = try CLI.run(["import", "--store", f.store, "--keep-originals", archive])
        #expect(imported.status == 0, "\(imported.stderr)")
        let (digest, record) = try f.keptOriginal(of: f.kept)
        #expect(record == "sha256:\(digest)\n\(try Self.size(f.kept))\nkept\n", "\(record)")
        let json = try CLI.run(["list", "--json", "--store", f.store]).stdoutText
        #expect(json.contains(#""originals":["debuginfo"]"#), "\(json)")
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test(.enabled(if: clang != nil, "needs clang"))
    func verifyFindsMissingAndDamagedBlobs() throws {
        let f = try Fixture()
        defer { f.remove() }
        #expect(try CLI.run(["import", "--store", f.store, "--keep-originals", f.kept]).status == 0)
        #expect(try CLI.run(["verify", "--deep", "--store", f.store]).status == 0)
        let digest = try Self.sha256(f.kept)
        let blob = f.store + "/blobs/sha256/" + digest.prefix(2) + "/" + digest.dropFirst(2)

        try Data("not the program".utf8).write(to: URL(fileURLWithPath: blob))
        let shallow = try CLI.run(["verify", "--store", f.store])
        #expect(shallow.status == 1, "a blob of the wrong size is no blob: \(shallow.stderr)")
        let damaged = try CLI.run(["verify", "--deep", "--store", f.store])
        #expect(damaged.status == 1)
        #expect(damaged.stdoutText.contains("no longer hashes to sha256:\(digest)"), "\(damaged.stdoutText)")

        unlink(blob)
        let missing = try CLI.run(["verify", "--store", f.store])
        #expect(missing.status == 1)
        #expect(missing.stdoutText.contains("problem  missing-file: originals/"), "\(missing.stdoutText)")
        #expect(missing.stdoutText.contains("is not in the blob store"), "\(missing.stdoutText)")
    }

    @Test(.enabled(if: clang != nil, "needs clang"))
    func removeForgetsAndGCDeletesTheFile() throws {
        let f = try Fixture()
        defer { f.remove() }
        #expect(try CLI.run(["import", "--store", f.store, "--keep-originals", f.kept, f.plain]).status == 0)
        let id = try f.buildID(f.kept)
        let digest = try Self.sha256(f.kept)
        let blob = f.store + "/blobs/sha256/" + digest.prefix(2) + "/" + digest.dropFirst(2)
        #expect(try CLI.run(["remove", "--store", f.store, id]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: f.store + "/originals/\(id)/debuginfo"))
        #expect(FileManager.default.fileExists(atPath: blob))

        // A file written in the last hour may belong to an import still running: kept.
        #expect(try CLI.run(["gc", "--older-than", "30", "--store", f.store]).status == 0)
        #expect(FileManager.default.fileExists(atPath: blob))
        let old = Date().addingTimeInterval(-7200)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: blob)
        let otherDigest = try Self.sha256(f.plain)
        let other = f.store + "/blobs/sha256/" + otherDigest.prefix(2) + "/" + otherDigest.dropFirst(2)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: other)
        let gc = try CLI.run(["gc", "--older-than", "30", "--store", f.store])
        #expect(gc.stdoutText.contains("removed 1 original no build names"), "\(gc.stdoutText)")
        #expect(!FileManager.default.fileExists(atPath: blob))
        #expect(FileManager.default.fileExists(atPath: other), "still named by the plain build")
        #expect(try CLI.run(["verify", "--deep", "--store", f.store]).status == 0)
    }
}
