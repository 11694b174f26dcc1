// The S3 client against moto_server on loopback, an in-memory stand-in for S3 (moto does not
// check signatures: the signer is checked against botocore in SignatureV4Tests and by
// flaky-s3.py): every operation, keys that need encoding, create-only PUTs, listings with
// prefixes, delimiters and continuation, missing objects and buckets, and the metrics counters.

import Foundation
import ObjectStorage
import Synchronization
import TestSupport
import Testing

@Suite(
    .tags(.slow),
    .needsMoto)
struct S3ClientMotoTests {
    let client: S3Client
    let bucket = "t-" + UUID().uuidString.lowercased()

    init() throws {
        let endpoint = try #require(MotoServer.endpoint, "moto_server did not start")
        client = try S3Client(configuration: StandInServers.configuration(endpoint: endpoint))
        try client.createBucket(bucket)
    }

    @Test(arguments: [
        "builds/v3/0A1B-arm64.sqlite", "My App/Crash Report (1)+[x]&y=z;~!*'@$%.crash",
        "résumé/日本語/💥.txt", "a//b/./c/../d",
    ])
    func putGetHeadDelete(_ key: String) throws {
        let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let etag = try client.putObject(bucket: bucket, key: key, bytes: bytes, contentType: "application/x-sqlite3")
        #expect(etag != nil)

        let got = try client.getObject(bucket: bucket, key: key)
        #expect(got.body == bytes)
        #expect(got.info.etag == etag)
        #expect(got.info.contentType == "application/x-sqlite3")

        let info = try #require(try client.headObject(bucket: bucket, key: key))
        #expect(info.size == 3000 && info.etag == etag)

        #expect(try client.listAllObjects(bucket: bucket).objects.map(\.key) == [key])
        try client.deleteObject(bucket: bucket, key: key)
        #expect(try client.headObject(bucket: bucket, key: key) == nil)
        try client.deleteObject(bucket: bucket, key: key)  // deleting nothing succeeds, as in S3
    }

    @Test func filesStreamBothWays() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("s3-files-" + UUID().uuidString)
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = directory + "/source.bin"
        let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        try Data(bytes).write(to: URL(fileURLWithPath: source))

        try client.uploadObject(bucket: bucket, key: "big/file.bin", fromFile: source)
        let destination = directory + "/copy.bin"
        let info = try client.downloadObject(bucket: bucket, key: "big/file.bin", to: destination)
        #expect(info.size == Int64(bytes.count))
        #expect(FileManager.default.contents(atPath: destination) == Data(bytes))

        // A failed download leaves neither the destination nor a temporary file behind.
        #expect(throws: ObjectStorageError.self) {
            try client.downloadObject(bucket: bucket, key: "big/missing.bin", to: directory + "/missing.bin")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["copy.bin", "source.bin"])

        #expect {
            try client.uploadObject(bucket: bucket, key: "x", fromFile: directory + "/absent")
        } throws: { error in
            (error as? ObjectStorageError)?.code == .io
        }
    }

    @Test func createOnlyRefusesAnExistingKey() throws {
        try client.putObject(bucket: bucket, key: "builds/once", bytes: Array("first".utf8), createOnly: true)
        #expect {
            try client.putObject(bucket: bucket, key: "builds/once", bytes: Array("second".utf8), createOnly: true)
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .preconditionFailed && error.httpStatus == 412 && error.key == "builds/once"
        }
        #expect(try client.getObject(bucket: bucket, key: "builds/once").body == Array("first".utf8))
        // Without the condition the object is replaced.
        try client.putObject(bucket: bucket, key: "builds/once", bytes: Array("third".utf8))
        #expect(try client.getObject(bucket: bucket, key: "builds/once").body == Array("third".utf8))
    }

    /// Compare-and-swap: a PUT or DELETE with If-Match acts only on the version whose ETag it
    /// names; another version is `.preconditionFailed`, no object `.noSuchKey`.
    @Test func ifMatchActsOnTheVersionReadOnly() throws {
        let key = "catalog/entry.json"
        let first = try #require(try client.putObject(bucket: bucket, key: key, bytes: Array("first".utf8)))
        let second = try #require(
            try client.putObject(bucket: bucket, key: key, bytes: Array("second".utf8), ifMatch: first))
        func failsWith(_ code: ObjectStorageError.Code, _ body: () throws -> Void) {
            #expect {
                try body()
            } throws: { error in
                (error as? ObjectStorageError)?.code == code && (error as? ObjectStorageError)?.key == key
            }
        }
        failsWith(.preconditionFailed) { try client.putObject(bucket: bucket, key: key, bytes: [1], ifMatch: first) }
        failsWith(.preconditionFailed) { try client.deleteObject(bucket: bucket, key: key, ifMatch: first) }
        #expect(try client.getObject(bucket: bucket, key: key).body == Array("second".utf8))
        try client.deleteObject(bucket: bucket, key: key, ifMatch: second)
        #expect(try client.headObject(bucket: bucket, key: key) == nil)
        failsWith(.noSuchKey) { try client.deleteObject(bucket: bucket, key: key, ifMatch: second) }
        failsWith(.noSuchKey) { try client.putObject(bucket: bucket, key: key, bytes: [1], ifMatch: second) }
    }

    @Test func listingsPageWithContinuationTokens() throws {
        let keys = (0..<7).map { "reports/r \($0)+x.ips" } + ["reports/2026/a", "reports/2026/b", "builds/v3/u", "top"]
        for key in keys { try client.putObject(bucket: bucket, key: key, bytes: Array(key.utf8)) }

        var seen: [String] = []
        var token: String? = nil
        var pages = 0
        repeat {
            let page = try client.listObjects(bucket: bucket, prefix: "reports/", continuationToken: token, maxKeys: 2)
            #expect(page.objects.count <= 2)
            seen += page.objects.map(\.key)
            token = page.nextContinuationToken
            pages += 1
        } while token != nil && pages < 20
        #expect(pages == 5)
        #expect(
            seen
                == keys.filter { $0.hasPrefix("reports/") }.sorted {
                    Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
                })

        let grouped = try client.listAllObjects(bucket: bucket, prefix: "reports/", delimiter: "/")
        #expect(grouped.commonPrefixes == ["reports/2026/"])
        #expect(grouped.objects.count == 7)
        #expect(grouped.objects.allSatisfy { $0.size == Int64($0.key.utf8.count) })

        let root = try client.listAllObjects(bucket: bucket, delimiter: "/")
        #expect(root.commonPrefixes == ["builds/", "reports/"])
        #expect(root.objects.map(\.key) == ["top"])
    }

    @Test func missingObjectsAndBucketsAreNamed() throws {
        #expect {
            _ = try client.getObject(bucket: bucket, key: "nothing/here")
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .noSuchKey && error.description.contains("s3://\(bucket)/nothing/here")
        }
        let absent = "absent-" + UUID().uuidString.lowercased().prefix(8)
        for operation in ["get", "put", "head", "list"] {
            #expect {
                switch operation {
                case "get": _ = try client.getObject(bucket: String(absent), key: "k")
                case "put": try client.putObject(bucket: String(absent), key: "k", bytes: [1])
                case "head": _ = try client.headObject(bucket: String(absent), key: "k")
                default: _ = try client.listObjects(bucket: String(absent))
                }
            } throws: { error in
                guard let error = error as? ObjectStorageError else { return false }
                return error.code == .noSuchBucket && error.bucket == String(absent)
                    && error.message.contains("create it")
            }
        }
    }

    @Test func largeObjectsRefuseToLoadIntoMemory() throws {
        try client.putObject(bucket: bucket, key: "big", bytes: [UInt8](repeating: 7, count: 10_000))
        #expect {
            _ = try client.getObject(bucket: bucket, key: "big", maxBytes: 1000)
        } throws: { error in
            (error as? ObjectStorageError)?.code == .tooLarge
        }
        #expect(try client.getObject(bucket: bucket, key: "big", maxBytes: 10_000).body.count == 10_000)
    }

    @Test func oneClientServesManyThreads() throws {
        let results = Mutex<[Int: [UInt8]]>([:])
        let client = self.client
        let bucket = self.bucket
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let body = Array("object \(index)".utf8)
            let got = try? { () throws -> [UInt8] in
                try client.putObject(bucket: bucket, key: "threads/\(index)", bytes: body)
                return try client.getObject(bucket: bucket, key: "threads/\(index)").body
            }()
            results.withLock { $0[index] = got }
        }
        let all = results.withLock { $0 }
        for index in 0..<16 { #expect(all[index] == Array("object \(index)".utf8)) }
        #expect(try client.listAllObjects(bucket: bucket, prefix: "threads/").objects.count == 16)
    }

    @Test func metricsCountPerOperation() throws {
        try client.putObject(bucket: bucket, key: "m", bytes: [1, 2, 3])
        _ = try client.getObject(bucket: bucket, key: "m")
        _ = try? client.getObject(bucket: bucket, key: "missing")
        let counters = client.metrics.snapshot()
        #expect(counters["PutObject"]?.requests == 1)
        #expect(counters["GetObject"]?.requests == 2)
        #expect(counters["GetObject"]?.errors == 1)
        #expect(counters["GetObject"]?.attempts == 2)
        #expect(counters["GetObject"]?.latencyCount == 2)
        #expect((counters["GetObject"]?.latencySum ?? 0) > 0)
    }
}
