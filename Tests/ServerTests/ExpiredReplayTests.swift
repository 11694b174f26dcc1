// A POST retried with its Idempotency-Key after the report it stored has passed its retention:
// the retention sweep may remove that report at any moment, so the replay must not answer 200
// for a report about to go. The replay writes the report afresh (it is then as new as the
// retry, and the sweep keeps it), or, when the sweep has removed it already, stores it again
// and answers 201 as a first POST would.

import Foundation
import TestSupport
import Testing

@testable import Server

@Suite("Idempotent replays of expired reports")
struct ExpiredReplayTests {
    static var reportPresent: Bool { StoredReportTests.reportPresent }

    /// Posts the report under `key`, then dates it `days` days back, as if it were that old.
    private static func storeAged(_ server: TestServer, key: String, days: Double) throws -> String {
        let first = try server.post(
            "/v1/reports", try StoredReportTests.report(), headers: server.auth + [("Idempotency-Key", key)])
        #expect(first.status == 201)
        let id = try #require(first.json()["id"] as? String)
        let reports = server.server.context.reports
        let stored = try #require(try reports.report(id: id))
        var aged = stored
        aged.updatedAt -= days * 86_400
        aged.createdAt -= days * 86_400
        #expect(try reports.replace(stored, with: aged) == .replaced)
        return id
    }

    /// Replayed while expired (the sweep has not run yet), then swept: the report is still there.
    @Test(.enabled(if: reportPresent, "\(StoredReportTests.noReport)"))
    func aReplayOfAnExpiredReportKeepsItFromTheSweep() throws {
        let server = try TestServer { $0.reportRetentionDays = 1 }
        let id = try Self.storeAged(server, key: "expired-replay-1", days: 2)
        let replay = try server.post(
            "/v1/reports", try StoredReportTests.report(),
            headers: server.auth + [("Idempotency-Key", "expired-replay-1")])
        #expect(replay.status == 200 || replay.status == 201, "\(replay.status) \(replay.text)")
        #expect(replay.json()["id"] as? String == id)
        let cutoff = StoredReportRetention.cutoff(days: 1)
        let removed = try server.server.context.reports.removeExpired(before: cutoff, dryRun: false)
        #expect(!removed.contains(id))
        #expect(try server.get("/v1/reports/\(id)").status == 200)
    }

    /// Replayed after the sweep removed it: stored again and answered as a first POST.
    @Test(.enabled(if: reportPresent, "\(StoredReportTests.noReport)"))
    func aReplayAfterTheSweepStoresTheReportAgain() throws {
        let server = try TestServer { $0.reportRetentionDays = 1 }
        let id = try Self.storeAged(server, key: "expired-replay-2", days: 2)
        let cutoff = StoredReportRetention.cutoff(days: 1)
        #expect(try server.server.context.reports.removeExpired(before: cutoff, dryRun: false) == [id])
        #expect(try server.get("/v1/reports/\(id)").status == 404)
        let replay = try server.post(
            "/v1/reports", try StoredReportTests.report(),
            headers: server.auth + [("Idempotency-Key", "expired-replay-2")])
        #expect(replay.status == 201, "\(replay.status) \(replay.text)")
        #expect(replay.json()["id"] as? String == id)
        #expect(try server.get("/v1/reports/\(id)").status == 200)
    }
}
