// The import report that crosses the process boundary between the server and its import child:
// what one side writes the other reads back unchanged, and a report of another version, or
// anything that is not a report, is refused by name rather than misread.

import Foundation
import SymbolicateModel
import Testing

@testable import Store

struct ImportReportTests {
    static func sample() -> ImportReport {
        var summary = ImportSummary()
        let uuid = BuildID(string: "82D13D98-219E-3040-B62A-07A297007A7C") ?? BuildID(bytes: [])
        summary.imported = [
            .init(
                uuid: uuid, arch: .arm64, name: "HoldApp", kind: .debugInfo, source: "/tmp/u/App.dSYM",
                outcome: .imported)
        ]
        summary.alreadyPresent = [
            .init(uuid: uuid, arch: .x86_64, name: "HoldApp", kind: .symbolTable, source: "b", outcome: .alreadyPresent)
        ]
        summary.failures = [.init(path: "/tmp/u/broken", error: SymbolicateError(.badInput, "truncated"))]
        return ImportReport(summary)
    }

    @Test func whatOneSideWritesTheOtherReads() throws {
        let report = Self.sample()
        let bytes = try report.json()
        #expect(try ImportReport.decode(bytes) == report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["version"] as? Int == ImportReport.currentVersion)
        #expect((object["already_present"] as? [Any])?.count == 1)
        #expect(report.failed == [.init(path: "/tmp/u/broken", error: "truncated", code: "bad_input")])
    }

    @Test func anotherVersionIsRefusedByName() throws {
        var report = Self.sample()
        report.version = ImportReport.currentVersion + 1
        #expect {
            try ImportReport.decode(try report.json())
        } throws: { error in
            (error as? SymbolicateError)?.message.contains("version \(ImportReport.currentVersion + 1)") == true
        }
    }

    /// The server reads the report its child wrote into the upload's folder, up to a bound.
    @Test func aReportFileIsReadUpToItsBound() throws {
        let path = NSTemporaryDirectory() + "import-report-\(UUID().uuidString).json"
        defer { unlink(path) }
        #expect {
            try ImportReport.read(path, maxBytes: 1 << 20)
        } throws: { error in
            (error as? SymbolicateError)?.code == .notFound
        }
        let bytes = try Self.sample().json()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try ImportReport.read(path, maxBytes: bytes.count) == Self.sample())
        #expect {
            try ImportReport.read(path, maxBytes: bytes.count - 1)
        } throws: { error in
            (error as? SymbolicateError)?.code == .limit
        }
    }

    @Test(arguments: ["", "imported 1 builds", "{\"imported\": []}", "[1, 2]"])
    func whatIsNotAReportIsRefused(_ text: String) {
        #expect(throws: SymbolicateError.self) { try ImportReport.decode(Array(text.utf8)) }
    }
}
