// `symbolicate sync` moves the server's stored reports with the builds: a report stored by
// `serve --store DIR` is answered, byte for byte, by `serve --store s3://…` after a sync, still
// waits for the build it was missing, and a second sync copies nothing again. Runs against
// moto's S3 stand-in (PyPI moto[server]) and real server processes on loopback.

import Foundation
import ObjectStorage
import TestSupport
import Testing

@Suite(
    .serialized,
    .needsMoto,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs /usr/bin/curl"))
struct SyncReportsTests {
    let environment: [String: String]
    let bucket: String
    let folder: String

    init() throws {
        (_, bucket, environment, folder) = try MotoServer.scratch(prefix: "sync")
    }

    /// `symbolicate serve` with `arguments` on a free loopback port, the bucket's variables set.
    func serve(_ arguments: [String]) throws -> (Process, Int) {
        try ServeProcess.start(
            CLI.executable, ["--token-file", folder + "/tokens"] + arguments, environment: environment)
    }

    /// One curl call; answers the status code and the body.
    func curl(_ arguments: [String]) throws -> (status: Int, body: [UInt8]) {
        let data = try ProcessRunner.run(
            "/usr/bin/curl",
            ["-s", "--max-time", "30", "-w", "\n%{http_code}", "-H", "Authorization: Bearer t0ken"] + arguments
        ).stdout
        guard let newline = data.lastIndex(of: UInt8(ascii: "\n")) else { return (0, data) }
        return (Int(String(decoding: data[(newline + 1)...], as: UTF8.self)) ?? 0, Array(data[..<newline]))
    }

    static func stop(_ server: Process) {
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
    }

    @Test func storedReportsFollowTheBuildsIntoTheBucket() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("t0ken\n".utf8).write(to: URL(fileURLWithPath: folder + "/tokens"))
        let local = folder + "/local"
        // The store holds the dwarf5 build only: the dwarf4 report waits for its build.
        let imported = try CLI.run(["import", "--store", local, Paths.samples + "/build/ios-arm64-dwarf5"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let reports = ["HoldApp-ios-arm64-dwarf5.crash", "HoldApp-ios-arm64-dwarf4.crash"]

        let (folderServer, folderPort) = try serve(["--store", local])
        var ids: [String] = []
        var answers: [[UInt8]] = []
        var waitingFor = ""
        do {
            defer { Self.stop(folderServer) }
            for name in reports {
                let posted = try curl([
                    "--data-binary", "@" + Paths.samples + "/reports/" + name,
                    "http://127.0.0.1:\(folderPort)/v1/reports",
                ])
                #expect(posted.status == 201, "\(name): \(String(decoding: posted.body, as: UTF8.self))")
                let object = try JSONSerialization.jsonObject(with: Data(posted.body)) as? [String: Any]
                ids.append(try #require(object?["id"] as? String))
                if name.contains("dwarf4") {
                    waitingFor = try #require(
                        (object?["missing"] as? [String])?.first, "the dwarf4 report misses nothing")
                }
            }
            for id in ids {
                let raw = try curl(["http://127.0.0.1:\(folderPort)/v1/reports/\(id)?view=raw"])
                #expect(raw.status == 200)
                answers.append(raw.body)
            }
        }

        let store = "s3://\(bucket)/team"
        let first = try CLI.run(
            ["sync", "--from", local, "--store", store, "--cache", folder + "/cache"], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("copied 2 stored reports"), "\(first.stderr)")
        let second = try CLI.run(
            ["sync", "--from", local, "--store", store, "--cache", folder + "/cache"], environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stderr.contains("copied 0 stored reports") && second.stderr.contains("2 already there"),
            "\(second.stderr)")

        let (bucketServer, bucketPort) = try serve(["--store", store, "--cache", folder + "/serve-cache"])
        defer { Self.stop(bucketServer) }
        for (id, answer) in zip(ids, answers) {
            let raw = try curl(["http://127.0.0.1:\(bucketPort)/v1/reports/\(id)?view=raw"])
            #expect(raw.status == 200, "\(id) is not in the bucket")
            #expect(raw.body == answer, "\(id) differs after the sync")
        }
        // The dwarf4 report still waits for its build in the bucket.
        let waiting = try curl(["http://127.0.0.1:\(bucketPort)/v1/reports?missing=\(waitingFor)"])
        #expect(waiting.status == 200)
        #expect(
            String(decoding: waiting.body, as: UTF8.self).contains(ids[1]),
            "\(String(decoding: waiting.body, as: UTF8.self))")
    }

    @Test func aFolderWithoutStoredReportsCopiesNone() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let local = folder + "/local"
        #expect(try CLI.run(["import", "--store", local, Paths.samples + "/build/ios-arm64-dwarf5"]).status == 0)
        let synced = try CLI.run(
            ["sync", "--from", local, "--store", "s3://\(bucket)/empty", "--cache", folder + "/cache"],
            environment: environment)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stderr.contains("copied 0 stored reports"), "\(synced.stderr)")
    }
}
