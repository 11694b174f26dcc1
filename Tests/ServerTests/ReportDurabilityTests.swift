// A stored report answered 201 survives its server being killed with SIGKILL the moment the
// answer arrives: `symbolicate serve` runs as its own process, a report is posted, the process is
// killed as soon as the 201 is read, and the report is then read straight from where it was
// stored (the folder's reports.sqlite, or the bucket on moto's stand-in server).

import Foundation
import ObjectStorage
import Store
import TestSupport
import Testing

@testable import Server

@Suite("Stored reports survive SIGKILL")
struct ReportDurabilityTests {
    static var ready: Bool { Fixtures.executable != nil && StoredReportTests.reportPresent }
    static let notReady = "needs the symbolicate executable built beside the tests and Samples/reports"

    /// Starts `symbolicate serve ARGUMENTS` on a free port; answers the process and its port.
    static func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, UInt16) {
        let (process, port) = try ServeProcess.start(
            try #require(Fixtures.executable), arguments, environment: environment)
        return (process, UInt16(port))
    }

    /// Posts three reports, kills the server with SIGKILL right after the third 201; answers the ids.
    static func postThenKill(_ process: Process, port: UInt16) throws -> [String] {
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        var ids: [String] = []
        for round in 0..<3 {
            let response = try TestHTTP.request(
                port: port, "POST", "/v1/reports",
                headers: [("Authorization", "Bearer \(TestServer.token)"), ("Idempotency-Key", "kill-\(round)")],
                body: try StoredReportTests.report())
            #expect(response.status == 201)
            ids.append(try #require(response.json()["id"] as? String))
        }
        kill(process.processIdentifier, SIGKILL)
        return ids
    }

    static func scratch() throws -> (directory: String, tokens: String) {
        let directory = NSTemporaryDirectory() + "symbolicate-durability-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("\(TestServer.token)\n".utf8).write(to: URL(fileURLWithPath: directory + "/tokens"))
        return (directory, directory + "/tokens")
    }

    @Test(.enabled(if: ready, "\(notReady)"))
    func inAFolder() throws {
        let (directory, tokens) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store"
        let (process, port) = try Self.serve(["--store", store, "--token-file", tokens])
        let ids = try Self.postThenKill(process, port: port)
        let database = try ReportDatabase(path: store + "/reports.sqlite")
        for id in ids { #expect(try database.report(id: id) != nil, "\(id)") }
    }

    @Test(.enabled(if: ready, "\(notReady)"), .needsMoto)
    func inABucket() throws {
        let (directory, tokens) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bucket = try MotoStandIn.bucket()
        let endpoint = try #require(bucket.configuration.endpoint)
        let environment = [
            "AWS_ACCESS_KEY_ID": bucket.configuration.credentials.accessKeyID,
            "AWS_SECRET_ACCESS_KEY": bucket.configuration.credentials.secretAccessKey,
            "AWS_ENDPOINT_URL": endpoint.description, "AWS_REGION": bucket.configuration.region,
        ]
        let (process, port) = try Self.serve(
            ["--store", directory + "/store", "--token-file", tokens, "--report-store", bucket.location],
            environment: environment)
        let ids = try Self.postThenKill(process, port: port)
        let storage = try #require(try ReportStorageLocation(parsing: bucket.location).open(s3: bucket.configuration))
        for id in ids { #expect(try storage.report(id: id) != nil, "\(id)") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/store/reports.sqlite"))
    }
}
