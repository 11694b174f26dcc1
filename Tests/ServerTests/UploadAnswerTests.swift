// The upload's answer whatever the size of the import behind it: an upload of one dSYM and
// thousands of Mach-O files without a UUID (one failure each, megabytes of import report) is
// answered with the build it imported, the first failures and how many were left out, and
// re-symbolicates the stored report that waited for the build; an import whose report cannot be
// read is answered as an outcome unknown, never as "nothing imported", and the reports waiting
// for builds the store now has are re-symbolicated all the same.

import Foundation
import Store
import SymbolicateModel
import TestSupport
import Testing

@testable import Server

@Suite("Upload answers of any size", .tags(.server))
struct UploadAnswerTests {
    static let variant = UploadTests.variant
    static var ready: Bool { UploadTests.ready }
    static let notReady = UploadTests.notReady

    /// A mach_header_64 and nothing after it (MH_MAGIC_64, CPU_TYPE_ARM64, subtype 0, MH_DYLIB,
    /// no load commands): a Mach-O without LC_UUID, which the import names as a failure. The
    /// constants keep <mach-o/loader.h>'s names.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    static let stub: [UInt8] = {
        let MH_MAGIC_64: UInt32 = 0xFEED_FACF
        let CPU_TYPE_ARM64: UInt32 = 0x0100_000C
        let MH_DYLIB: UInt32 = 0x6
        let header = [MH_MAGIC_64, CPU_TYPE_ARM64, 0, MH_DYLIB, 0, 0, 0, 0]
        return header.flatMap { word in (0..<4).map { UInt8((word >> (8 * $0)) & 0xFF) } }
    }()

    /// HoldKit's dSYM and `stubs` Mach-O files without a UUID, deep in folders, so that the
    /// import's report of them passes 4 MB.
    static func upload(stubs: Int) throws -> [UInt8] {
        var zip = ZipFixture()
        let dsym = try #require(Fixtures.build("\(variant)/HoldKit.framework.dSYM"))
        try zip.addTree(dsym, as: "HoldKit.framework.dSYM")
        let folder = "Frameworks/" + (0..<30).map { "Stubs\($0).framework" }.joined(separator: "/")
        for index in 0..<stubs {
            zip.add("\(folder)/stub-\(index).dylib", contents: stub, method: .stored)
        }
        return zip.bytes
    }

    /// A stored report waiting for HoldKit (HoldApp is in the store): its id.
    /// (The tests' servers do not look at the store every few seconds, so the re-symbolication an
    /// answer counts is the upload's own.)
    static func storeReportWaitingForHoldKit(_ server: TestServer) throws -> String {
        try server.importDirectly([try #require(Fixtures.build("\(variant)/HoldApp.app.dSYM"))])
        let report = try #require(Fixtures.report("HoldApp-\(variant).crash"))
        let posted = try server.post("/v1/reports", report, headers: server.auth)
        #expect(posted.status == 201)
        return try #require(posted.json()["id"] as? String)
    }

    static func isWaitingForHoldKit(_ server: TestServer, _ id: String) throws -> Bool {
        let holdKit = try #require(Fixtures.uuids(variant: variant)["HoldKit"])
        return (try server.get("/v1/reports/\(id)").json()["missing"] as? [String] ?? []).contains(holdKit)
    }

    @Test(.enabled(if: ready, "\(notReady)"))
    func thousandsOfFailuresBesideOneBuild() throws {
        let server = try TestServer { $0.reportWatchInterval = 0 }
        let id = try Self.storeReportWaitingForHoldKit(server)
        let stubs = 8000
        let response = try server.post("/v1/symbols", try Self.upload(stubs: stubs), headers: server.auth)
        #expect(response.status == 201, "\(response.text.prefix(500))")
        let answer = response.json()
        let imported = (answer["imported"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(imported == ["HoldKit"])
        // The answer lists the first failures and counts the rest.
        let failures = answer["failures"] as? [String] ?? []
        let omitted = answer["omitted"] as? [String: Any] ?? [:]
        #expect(!failures.isEmpty && failures.count <= SymbolUploads.listedFailures)
        #expect((failures.first?.utf8.count ?? 0) * stubs > 4 << 20, "the import's report must pass 4 MB")
        #expect(
            failures.allSatisfy { $0.contains("no UUID") && !$0.contains(server.directory) }, "\(failures.first ?? "")")
        #expect(omitted["failures"] as? Int == stubs - failures.count)
        #expect(omitted["imported"] as? Int == 0 && omitted["already_present"] as? Int == 0)
        #expect(response.body.count < 256 << 10)
        #expect(answer["resymbolicated_reports"] as? Int == 1)
        OpenAPIResultTests.check(response, "/v1/symbols", "post", try server.get("/openapi.json").json())
        #expect(!(try Self.isWaitingForHoldKit(server, id)))
        let metrics = try server.get("/metrics").text
        #expect(metrics.contains(#"symbolicate_imports_total{outcome="ok"} 1"#))
        #expect(metrics.contains(#"symbolicate_imports_total{outcome="failed"} 0"#))
    }

    /// The import child is the real one, whose report is then cut short: the builds are in the
    /// store, the answer says that what the import did is unknown.
    @Test(.enabled(if: ready, "\(notReady)"))
    func anUnreadableReportIsAnOutcomeUnknown() throws {
        let executable = try #require(Fixtures.executable)
        let script = try ExecutableScript.write(
            """
            #!/bin/sh
            "\(executable)" "$@" >/dev/null 2>&1
            status=$?
            while [ $# -gt 0 ]; do
                if [ "$1" = "-o" ]; then printf '{"version":1,"imported":[{"uuid":' > "$2"; fi
                shift
            done
            exit $status

            """, named: "cut-report-import")
        defer { unlink(script) }
        let server = try TestServer {
            $0.importExecutable = script
            $0.reportWatchInterval = 0
        }
        let id = try Self.storeReportWaitingForHoldKit(server)

        let response = try server.post(
            "/v1/symbols", try UploadTests.zip(["HoldKit.framework.dSYM"]), headers: server.auth)
        #expect(response.status == 500, "\(response.text)")
        #expect(response.errorCode == "import_outcome_unknown")
        let error = response.json()["error"] as? [String: Any] ?? [:]
        #expect((error["message"] as? String ?? "").contains("unknown"), "\(error)")
        #expect(error["resymbolicated_reports"] as? Int == 1)
        OpenAPIResultTests.check(response, "/v1/symbols", "post", try server.get("/openapi.json").json())
        #expect(!(try Self.isWaitingForHoldKit(server, id)))
        let holdKit = try #require(Fixtures.uuids(variant: Self.variant)["HoldKit"])
        #expect(try server.get("/v1/symbols/\(holdKit)").status == 200)
        let metrics = try server.get("/metrics").text
        #expect(metrics.contains(#"symbolicate_imports_total{outcome="unknown"} 1"#))
        #expect(metrics.contains(#"symbolicate_imports_total{outcome="failed"} 0"#))
    }

    /// An import of many builds (a DeviceSupport folder's thousands of libraries): the answer
    /// lists the first builds and counts the rest; re-symbolication and the log have them all.
    @Test func manyBuildsAreListedUpToTheLimitAndCounted() throws {
        let builds: [[String: Any]] = (0..<12_000).map { index in
            [
                "uuid": UUID().uuidString, "arch": "arm64", "name": "lib\(index).dylib", "kind": "symtab",
                "source": "/staging/upload.zip:Symbols/usr/lib/lib\(index).dylib", "outcome": "imported",
            ]
        }
        let document: [String: Any] = [
            "version": ImportReport.currentVersion, "imported": builds, "already_present": [], "failed": [],
        ]
        let report = try ImportReport.decode(Array(try JSONSerialization.data(withJSONObject: document)))
        let summary = SymbolUploads.ChildSummary(report: report, uploadPath: "/staging/")
        #expect(summary.imported.count == builds.count)
        let answer = summary.answer(resymbolicated: 0)
        let listed = answer["imported"] as? [[String: Any]] ?? []
        #expect(listed.count == SymbolUploads.listedBuilds)
        #expect(listed.first?["source"] as? String == "upload.zip:Symbols/usr/lib/lib0.dylib")
        #expect((answer["omitted"] as? [String: Int])?["imported"] == builds.count - SymbolUploads.listedBuilds)
    }
}
