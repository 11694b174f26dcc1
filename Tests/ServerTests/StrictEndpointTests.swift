// `POST /v1/symbolicate?strict=1`: 422 with a JSON body naming the images that are not system
// images and lack symbols; without it, 200 and an `X-Symbolicate-Warning` when nothing at all
// was symbolicated.

import Foundation
import TestSupport
import Testing

@Suite(.tags(.server)) struct StrictEndpointTests {
    static let report = Repository.samplesReports + "/HoldApp-ios-arm64-dwarf4.crash"

    @Test func strictNamesTheAppImagesWithoutSymbols() throws {
        let server = try TestServer()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.report)))
        let strict = try server.post("/v1/symbolicate?strict=1", bytes)
        #expect(strict.status == 422, "\(strict.text)")
        #expect(strict.errorCode == "missing_symbols")
        let names = (strict.json()["images"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(Set(names) == ["HoldApp", "HoldKit"], "system images do not count: \(names)")
        let plain = try server.post("/v1/symbolicate", bytes)
        #expect(plain.status == 200)
    }

    @Test func nothingSymbolicatedIsAWarningHeader() throws {
        let server = try TestServer()
        let text =
            "Exception Type:  EXC_CRASH (SIGABRT)\n\nThread 0 Crashed:\n"
            + "0   App                           \t            0x1010 0x1000 + 16\n\n"
            + "Binary Images:\n       0x1000 -        0x1fff App arm64  <82d13d98219e3040b62a07a297007a7c> /App\n"
        let r = try server.post("/v1/symbolicate", Array(text.utf8))
        #expect(r.status == 200)
        #expect(r.headers["x-symbolicate-warning"]?.contains("nothing was symbolicated") == true, "\(r.headers)")
    }
}

extension StrictEndpointTests {
    /// A report cut before `Binary Images` is answered with a warning naming the missing list.
    @Test func aMissingImageListIsAWarningHeader() throws {
        let server = try TestServer()
        let text = try String(contentsOfFile: Self.report, encoding: .utf8)
        let cut = try #require(text.range(of: "Binary Images:"))
        let r = try server.post("/v1/symbolicate", Array(text[..<cut.lowerBound].utf8))
        #expect(r.status == 200, "\(r.text)")
        #expect(
            r.headers["x-symbolicate-warning"]?.contains("Binary Images section is missing") == true, "\(r.headers)")
    }
}
