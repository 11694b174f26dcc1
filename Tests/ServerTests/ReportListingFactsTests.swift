// Stored reports a person can tell apart: `GET /v1/reports` lists each report with its app,
// version, OS, exception type, crashed function, missing build count and crash group, written when
// the report is stored; `?app=` and `?version=` filter by them, in a store folder's reports.sqlite
// and in a bucket (whose index entries carry the facts).

import Foundation
import TestSupport
import Testing

@Suite(.enabled(if: StoredReportTests.reportPresent, "Samples/reports is absent (run Samples/generate.sh)"))
struct ReportListingFactsTests {
    @Test func inAStoreFolder() throws {
        try Self.listingsCarryWhatTellsReportsApartAndFilterByAppAndVersion(try TestServer())
    }

    @Test(.needsMoto) func inABucket() throws {
        try Self.listingsCarryWhatTellsReportsApartAndFilterByAppAndVersion(
            try BucketReportTests.server(try MotoStandIn.bucket()))
    }

    static func listingsCarryWhatTellsReportsApartAndFilterByAppAndVersion(_ server: TestServer) throws {
        let report = try StoredReportTests.report()
        var other = ReportFields.replacing(report, "Identifier", with: "com.example.Other")
        other = ReportFields.replacing(other, "Version", with: "2.0 (20)")
        let first = try server.post("/v1/reports", report, headers: server.auth)
        let second = try server.post("/v1/reports", other, headers: server.auth)
        #expect(first.status == 201 && second.status == 201)
        let firstID = try #require(first.json()["id"] as? String)
        let secondID = try #require(second.json()["id"] as? String)

        let all = try #require(try server.get("/v1/reports").json()["reports"] as? [[String: Any]])
        let item = try #require(all.first { $0["id"] as? String == firstID })
        #expect(item["app"] as? String == "com.example.HoldApp")
        #expect((item["version"] as? String)?.isEmpty == false)
        #expect((item["os"] as? String)?.contains("iPhone OS") == true, "\(item)")
        #expect((item["exception_type"] as? String)?.hasPrefix("EXC_") == true, "\(item)")
        #expect((item["crashed_function"] as? String)?.isEmpty == false, "\(item)")
        #expect((item["missing_count"] as? Int ?? 0) > 0, "no dSYM is in this store: \(item)")
        let group = try #require(item["group_id"] as? String)
        let otherItem = try #require(all.first { $0["id"] as? String == secondID })
        #expect(otherItem["group_id"] as? String != group, "two apps never share a group")
        #expect(otherItem["version"] as? String == "2.0 (20)")

        let byApp = try server.get("/v1/reports?app=com.example.Other").json()
        #expect((byApp["reports"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [secondID])
        #expect(byApp["app"] as? String == "com.example.Other")
        let byVersion = try server.get("/v1/reports?version=2.0%20(20)").json()["reports"] as? [[String: Any]]
        #expect(byVersion?.compactMap { $0["id"] as? String } == [secondID])
        let none = try server.get("/v1/reports?app=com.example.HoldApp&version=2.0%20(20)").json()
        #expect((none["reports"] as? [[String: Any]])?.isEmpty == true)
    }
}

/// `GET /v1/missing` names the dyld shared cache that holds each missing system image, and groups
/// those images by cache: one import for them all. The sample report states iPhone OS 15.5 (19F77)
/// and misses three arm64e system images.
@Suite(.enabled(if: StoredReportTests.reportPresent, "Samples/reports is absent (run Samples/generate.sh)"))
struct MissingDyldCacheTests {
    @Test func inAStoreFolder() throws { try Self.missingNamesTheCache(try TestServer()) }

    @Test(.needsMoto) func inABucket() throws {
        try Self.missingNamesTheCache(try BucketReportTests.server(try MotoStandIn.bucket()))
    }

    static func missingNamesTheCache(_ server: TestServer) throws {
        let report = try #require(Fixtures.report("HoldApp-ios-arm64-dwarf4.crash"))
        #expect(try server.post("/v1/reports", report, headers: server.auth).status == 201)
        let json = try server.get("/v1/missing").json()
        let entries = json["missing"] as? [[String: Any]] ?? []
        let system = ["libsystem_kernel.dylib", "UIKitCore", "libdyld.dylib"]
        for name in system {
            let entry = entries.first { $0["name"] as? String == name }
            #expect(entry?["dyld_cache"] as? String == "19F77 arm64e", "\(name): \(entries)")
        }
        let app = entries.first { $0["name"] as? String == "HoldApp" }
        #expect(app != nil && app?["dyld_cache"] == nil, "\(entries)")
        let caches = json["dyld_caches"] as? [[String: Any]] ?? []
        #expect(caches.count == 1, "\(caches)")
        #expect(caches.first?["cache"] as? String == "19F77 arm64e")
        #expect(Set(caches.first?["images"] as? [String] ?? []) == Set(system))
        #expect(
            (caches.first?["advice"] as? String)?.hasPrefix("import the dyld shared cache of 19F77 arm64e: ") == true)
    }
}
