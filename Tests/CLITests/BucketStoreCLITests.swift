// The commands with `--store s3://BUCKET/PREFIX`, run as a user runs them, against moto's S3
// stand-in (PyPI moto[server]; it does not check signatures, which ObjectStorageTests check
// against botocore): import, the default command (byte-identical to symbolicating from the
// symbol files), list, verify, remove, gc, batch and sync; and the failures a user meets:
// a missing bucket, an endpoint that does not answer, no credentials, a malformed location.

import Foundation
import ObjectStorage
import TestSupport
import Testing

@Suite(.serialized, .needsMoto)
struct BucketStoreCLITests {
    let environment: [String: String]
    let bucket: String
    let folder: String

    init() throws {
        (_, bucket, environment, folder) = try MotoServer.scratch(prefix: "cli")
    }

    func run(_ args: [String], environment extra: [String: String] = [:]) throws -> CLIResult {
        try CLI.run(args, environment: environment.merging(extra) { $1 })
    }

    @Test func everyStoreCommandWorksOnABucket() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = "s3://\(bucket)/team/symbols"
        let build = Paths.samples + "/build"
        let imported = try run(["import", "--store", store, "--cache", folder + "/cache1", build])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("0 failed"))

        // A second machine (an empty cache) answers byte for byte as the symbol files do.
        let reports = try FileManager.default.contentsOfDirectory(atPath: Paths.samples + "/reports")
            .filter { $0.hasSuffix(".crash") || $0.hasSuffix(".ips") }.sorted().prefix(6)
        #expect(reports.count == 6)
        for name in reports {
            let report = Paths.samples + "/reports/" + name
            let fromFiles = try run(["--no-store", report, build])
            let fromBucket = try run(["--store", store, "--cache", folder + "/cache2", report])
            #expect(fromBucket.status == 0, "\(name): \(fromBucket.stderr)")
            #expect(fromFiles.stdout == fromBucket.stdout, "\(name) differs")
        }
        let cached = try FileManager.default.subpathsOfDirectory(atPath: folder + "/cache2").filter {
            $0.hasSuffix(".sqlite")
        }
        #expect(!cached.isEmpty)

        let list = try run(["list", "--store", store, "--cache", folder + "/cache2", "--json"])
        #expect(list.status == 0)
        let builds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout)) as? [[String: Any]])
        #expect(builds.count >= 9)
        let again = try run(["import", "--store", store, "--cache", folder + "/cache1", build])
        #expect(again.stderr.hasPrefix("imported 0 builds"), "\(again.stderr)")
        #expect(try run(["verify", "--store", store, "--cache", folder + "/cache2"]).status == 0)

        let batch = try run([
            "batch", "--store", store, "--cache", folder + "/cache3", "-o", folder + "/out",
            Paths.samples + "/reports/" + reports[0],
        ])
        #expect(batch.status == 0, "\(batch.stderr)")

        // gc keeps what was just imported, however small --older-than (a bucket has no lock).
        let gc = try run(["gc", "--store", store, "--cache", folder + "/cache2", "--older-than", "0"])
        #expect(gc.status == 0 && gc.stdoutText.contains("removed 0 builds"), "\(gc.stderr)")

        let uuid = try #require(builds.first?["uuid"] as? String)
        #expect(try run(["remove", "--store", store, "--cache", folder + "/cache2", uuid]).status == 0)
        let after = try run(["list", "--store", store, "--cache", folder + "/cache2"])
        #expect(!after.stdoutText.contains(uuid))
    }

    @Test func syncCopiesAFolderStoreAndResumes() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let local = folder + "/local"
        #expect(try run(["import", "--store", local, Paths.samples + "/build/ios-arm64-dwarf5"]).status == 0)
        let store = "s3://\(bucket)/synced"
        let first = try run(["sync", "--from", local, "--store", store, "--cache", folder + "/cache"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("[1/") && first.stderr.contains("copied"))
        #expect(!first.stderr.contains("copied 0 builds"))
        let second = try run(["sync", "--from", local, "--store", store, "--cache", folder + "/cache"])
        #expect(second.status == 0)
        #expect(second.stderr.contains("copied 0 builds"), "\(second.stderr)")
        let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash"
        let fromFolder = try run(["--store", local, report])
        let fromBucket = try run(["--store", store, "--cache", folder + "/cache", report])
        #expect(fromFolder.stdout == fromBucket.stdout)
        #expect(try run(["sync", "--from", local]).status == 64)
    }

    @Test func failuresAreNamed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = try run(["list", "--store", "s3://no-such-bucket-\(getpid())", "--cache", folder])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("s3://no-such-bucket-\(getpid())") && missing.stderr.contains("does not exist"))

        let port = try #require(Loopback.freePort())
        let dead = try run(
            ["list", "--store", "s3://\(bucket)", "--cache", folder],
            environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:\(port)"])
        #expect(dead.status == 1)
        #expect(dead.stderr.contains("cannot reach http://127.0.0.1:\(port)"), "\(dead.stderr)")
        // An import into a bucket that does not answer is a failure to retry (1), not bad input (65).
        let deadImport = try run(
            ["import", "--store", "s3://\(bucket)", "--cache", folder, Paths.samples + "/build/ios-arm64-dwarf5"],
            environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:\(port)"])
        #expect(deadImport.status == 1, "\(deadImport.stderr)")
        #expect(deadImport.stderr.contains("cannot reach"), "\(deadImport.stderr)")

        let anonymous = try run(
            ["list", "--store", "s3://\(bucket)", "--cache", folder], environment: ["AWS_ACCESS_KEY_ID": ""])
        #expect(anonymous.status == 65 && anonymous.stderr.contains("AWS_ACCESS_KEY_ID"))

        let malformed = try run(["list", "--store", "s3://Not_A_Bucket", "--cache", folder])
        #expect(malformed.status == 65 && malformed.stderr.contains("is not a bucket name"))

        // The default command with a dead bucket still writes the report (frames unsymbolicated),
        // but fails naming the bucket's error unless --partial accepts that.
        let report = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf5.crash"
        let unsymbolicated = try run(
            ["--store", "s3://\(bucket)", "--cache", folder, report],
            environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:\(port)"])
        #expect(unsymbolicated.status == 1, "\(unsymbolicated.stderr)")
        #expect(unsymbolicated.stdout == [UInt8](try Data(contentsOf: URL(fileURLWithPath: report))))
        #expect(unsymbolicated.stderr.contains("cannot reach"), "\(unsymbolicated.stderr)")
        let partial = try run(
            ["--store", "s3://\(bucket)", "--cache", folder, "--partial", report],
            environment: ["AWS_ENDPOINT_URL": "http://127.0.0.1:\(port)"])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(partial.stdout == unsymbolicated.stdout)

        let size = try run(["list", "--store", "s3://\(bucket)", "--cache-size", "lots"])
        #expect(size.status == 64)
    }
}
