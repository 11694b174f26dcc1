// The null UUID (all zeros) is what Apple writes for an image it does not know: the last Binary
// Images line of macOS 12 reports, `0x0 - 0xffffffffffffffff ??? (*) <00000000-…> ???`, and an
// `.ips` absolute image (`"source":"A"`, base 0). No build has that id, so the image is one
// without a UUID: its frames are missing symbols, and it is never a dSYM to look for.

import Foundation
import Reports
import SymbolicateModel
import Symbolication
import Testing

struct NullUUIDImageTests {
    static let text = """
        Process:               Tool [1710]
        Identifier:            Tool
        Version:               ???
        Code Type:             X86-64 (Native)
        OS Version:            macOS 12.4 (21F79)
        Report Version:        12

        Exception Type:        EXC_BAD_ACCESS (SIGSEGV)

        Thread 0 Crashed::  Dispatch queue: com.apple.main-thread
        0   Tool                          	       0x10e311e45 0x10e30e000 + 15941
        1   ???                           	       0x7ff80000 0x0 + 0

        Binary Images:
               0x10e30e000 -        0x10e311fff Tool (*) <01d2a9d5-0000-4000-8000-7c7cca13c5fc> /usr/local/bin/Tool
                       0x0 - 0xffffffffffffffff ??? (*) <00000000-0000-0000-0000-000000000000> ???

        """

    static let ips = """
        {"app_name":"Tool","bug_type":"309","os_version":"macOS 12.4 (21F79)","incident_id":"6F8B4B38-2C30-4D8B-9B1E-1B6C2A1B7E10"}
        {
          "procName" : "Tool", "cpuType" : "X86-64", "faultingThread" : 0,
          "exception" : {"type" : "EXC_BAD_ACCESS", "signal" : "SIGSEGV"},
          "threads" : [{"triggered" : true, "frames" : [{"imageOffset" : 15941, "imageIndex" : 0}, {"imageOffset" : 2146959360, "imageIndex" : 1}]}],
          "usedImages" : [
            {"source" : "P", "arch" : "x86_64", "base" : 4533051392, "size" : 16384, "uuid" : "01d2a9d5-0000-4000-8000-7c7cca13c5fc", "path" : "/usr/local/bin/Tool", "name" : "Tool"},
            {"size" : 0, "source" : "A", "base" : 0, "uuid" : "00000000-0000-0000-0000-000000000000"}
          ]
        }
        """

    @Test(arguments: [text, ips])
    func theNullUUIDIsNoUUID(report: String) throws {
        let parsed = try ReportParser.parse(Array(report.utf8))
        #expect(parsed.images.map { $0.uuid?.uuidString } == ["01D2A9D5-0000-4000-8000-7C7CCA13C5FC", nil])
        let service = SymbolicationService(locator: try SymbolPathLocator(paths: []))
        let outcome = try service.process(Array(report.utf8), format: nil).outcome
        #expect(outcome.missing.map(\.name) == ["Tool"])
        let unknown = try #require(outcome.images.first { $0.image.uuid == nil })
        #expect(unknown.status == .noUUID)
        #expect(unknown.summary == "???: the report gives no UUID for this image")
    }
}
