// `batch` on object storage, as a Kubernetes Indexed Job runs it: two shards read one prefix of
// reports from a bucket, write their outputs under one prefix and their summaries as objects,
// and `--merge-summaries` joins the summaries; the outputs are byte for byte those of a local
// run over the same files, the merged counts its counts. Also one object in, an archive object
// out, `--resume` against what the output prefix holds, and a missing input named. Runs against moto's S3 stand-in (PyPI moto[server]).

import Foundation
import ObjectStorage
import TestSupport
import Testing

@Suite(.serialized, .needsMoto)
struct BatchBucketTests {
    let environment: [String: String]
    let bucket: String
    let folder: String
    let client: S3Client

    init() throws {
        (client, bucket, environment, folder) = try MotoServer.scratch(prefix: "batch")
    }

    func run(_ args: [String]) throws -> CLIResult {
        try CLI.run(args + ["--cache", folder + "/cache"], environment: environment)
    }

    /// The sample reports and one file that is not a report, under `in/` in the bucket.
    func uploadInputs() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: Paths.samples + "/reports")
            .filter { $0.hasSuffix(".crash") || $0.hasSuffix(".ips") }.sorted()
        for name in names {
            try client.uploadObject(bucket: bucket, key: "in/set/" + name, fromFile: Paths.samples + "/reports/" + name)
        }
        try client.putObject(bucket: bucket, key: "in/notes.txt", bytes: Array("not a report\n".utf8))
        return names
    }

    @Test func shardsReadAPrefixWriteAPrefixAndTheirSummariesMerge() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let names = try uploadInputs()
        let symbols = Paths.samples + "/build"
        for index in 0..<2 {
            let shard = try run([
                "batch", "--no-store", "-d", symbols, "--progress", "none", "--shard", "\(index)/2",
                "-o", "s3://\(bucket)/out", "--summary", "s3://\(bucket)/summaries/\(index).json", "s3://\(bucket)/in/",
            ])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        // Truth: the same files, local, one run.
        let local = folder + "/local"
        try FileManager.default.createDirectory(atPath: local + "/set", withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(atPath: Paths.samples + "/reports/" + name, toPath: local + "/set/" + name)
        }
        try Data("not a report\n".utf8).write(to: URL(fileURLWithPath: local + "/notes.txt"))
        let whole = try run([
            "batch", "--no-store", "-d", symbols, "--progress", "none", "-o", folder + "/whole",
            "--summary", folder + "/whole.json", local,
        ])
        #expect(whole.status == 0, "\(whole.stderr)")

        let outputs = try client.listAllObjects(bucket: bucket, prefix: "out/").objects.map(\.key)
        #expect(outputs == names.map { "out/set/" + $0 })
        for key in outputs {
            let object = try client.getObject(bucket: bucket, key: key).body
            let expected = try Data(contentsOf: URL(fileURLWithPath: folder + "/whole/" + key.dropFirst(4)))
            #expect(object == [UInt8](expected), "\(key) differs from the local run's output")
        }

        let merged = try run([
            "batch", "--merge-summaries", folder + "/merged.json", "s3://\(bucket)/summaries/0.json",
            "s3://\(bucket)/summaries/1.json",
        ])
        #expect(merged.status == 0, "\(merged.stderr)")
        let joined = try summary(folder + "/merged.json")
        let single = try summary(folder + "/whole.json")
        #expect((joined["counts"] as? NSDictionary) == (single["counts"] as? NSDictionary))
        #expect(joined["shard"] as? String == "0/2,1/2")
        let skipped = (joined["skipped_files"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(skipped == ["s3://\(bucket)/in/notes.txt"])
        let missing = { (s: [String: Any]) in
            (s["missing_images"] as? [[String: Any]])?.compactMap { $0["uuid"] as? String }
        }
        #expect(missing(joined) == missing(single))

        // Into an object too; a summary twice is refused with 65.
        #expect(
            try run(["batch", "--merge-summaries", "s3://\(bucket)/merged.json", folder + "/merged.json"]).status == 0)
        #expect(try client.headObject(bucket: bucket, key: "merged.json") != nil)
        let twice = try run([
            "batch", "--merge-summaries", folder + "/again.json", "s3://\(bucket)/summaries/0.json",
            "s3://\(bucket)/summaries/0.json",
        ])
        #expect(twice.status == 65, "\(twice.stderr)")
    }

    @Test func oneObjectInAnArchiveObjectOut() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let names = try uploadInputs()
        let name = try #require(names.first { $0.hasSuffix(".crash") })
        let result = try run([
            "batch", "--no-store", "-d", Paths.samples + "/build", "--progress", "none",
            "--output-archive", "s3://\(bucket)/runs/out.tar.gz", "--report-list", "s3://\(bucket)/runs/list.jsonl",
            "s3://\(bucket)/in/set/\(name)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let archive = try #require(try client.headObject(bucket: bucket, key: "runs/out.tar.gz"))
        #expect(archive.size > 0)
        try client.downloadObject(bucket: bucket, key: "runs/out.tar.gz", to: folder + "/out.tar.gz")
        let tar = try ProcessRunner.run("/bin/tar", ["-xzf", folder + "/out.tar.gz", "-C", folder])
        #expect(tar.status == 0, "\(tar.stderrText)")
        let expected = try CLI.run(["--no-store", Paths.samples + "/reports/" + name, Paths.samples + "/build"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)) == Data(expected.stdout))
        let list = String(decoding: try client.getObject(bucket: bucket, key: "runs/list.jsonl").body, as: UTF8.self)
        #expect(list.split(separator: "\n").count == 1)
    }

    /// Keys are bytes: a report whose name begins with a combining mark (one character with the
    /// '/' before it) is under the prefix all the same: it is fetched, its output is uploaded,
    /// and a file that is not a report is named by its URL.
    @Test func aKeyBeginningWithACombiningMarkIsFetchedAndNamed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try #require(
            try FileManager.default.contentsOfDirectory(atPath: Paths.samples + "/reports").sorted().first {
                $0.hasSuffix(".crash")
            })
        let name = "\u{301}" + report
        try client.uploadObject(bucket: bucket, key: "in/" + name, fromFile: Paths.samples + "/reports/" + report)
        try client.putObject(bucket: bucket, key: "in/\u{301}notes.txt", bytes: Array("not a report\n".utf8))
        let result = try run([
            "batch", "--no-store", "-d", Paths.samples + "/build", "--progress", "none", "-o", "s3://\(bucket)/out",
            "--summary", folder + "/summary.json", "s3://\(bucket)/in/",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try client.listAllObjects(bucket: bucket, prefix: "out/").objects.map(\.key) == ["out/" + name])
        let skipped = (try summary(folder + "/summary.json")["skipped_files"] as? [[String: Any]])?.compactMap {
            $0["path"] as? String
        }
        #expect(skipped == ["s3://\(bucket)/in/\u{301}notes.txt"])
    }

    @Test func aMissingInputIsNamed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try run(["batch", "--no-store", "-o", folder + "/out", "s3://\(bucket)/nothing/here"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("s3://\(bucket)/nothing/here"), "\(result.stderr)")
    }

    @Test func resumeSkipsWhatTheOutputPrefixHolds() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let names = try uploadInputs()
        let arguments = [
            "batch", "--no-store", "-d", Paths.samples + "/build", "--progress", "none", "--resume",
            "-o", "s3://\(bucket)/out", "--summary", folder + "/summary.json", "s3://\(bucket)/in/",
        ]
        #expect(try run(arguments).status == 0)
        // One output lost, one kept with other bytes: a resumed run writes the first only.
        let lost = "out/set/" + names[0]
        let kept = "out/set/" + names[1]
        try client.deleteObject(bucket: bucket, key: lost)
        try client.putObject(bucket: bucket, key: kept, bytes: Array("kept\n".utf8))
        let again = try run(arguments)
        #expect(again.status == 0, "\(again.stderr)")
        let counts = try #require(try summary(folder + "/summary.json")["counts"] as? [String: Any])
        #expect(counts["written"] as? Int == 1)
        #expect(counts["already_done"] as? Int == names.count - 1)
        #expect(try client.headObject(bucket: bucket, key: lost) != nil)
        #expect(try client.getObject(bucket: bucket, key: kept).body == Array("kept\n".utf8))
        #expect(try client.listAllObjects(bucket: bucket, prefix: "out/").objects.count == names.count)
    }

    func summary(_ path: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }
}
