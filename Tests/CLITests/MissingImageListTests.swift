// A report with frames but no image list: the Samples' `.crash` cut before `Binary Images` and
// their `.ips` without `usedImages`. The summary says "no image list", not "0 images", and a
// line says what is missing and what it means, on stderr, in `--format json`'s warnings and in
// the server's `X-Symbolicate-Warning`.

import Foundation
import TestSupport
import Testing

@Suite struct MissingImageListTests {
    static let crash = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf4.crash"
    static let ips = Paths.samples + "/reports/HoldApp-ios-arm64-dwarf4.ips"

    /// The `.crash` up to (not including) its `Binary Images:` line.
    static func cutCrash() throws -> [UInt8] {
        let text = try String(contentsOfFile: crash, encoding: .utf8)
        let cut = try #require(text.range(of: "Binary Images:"))
        return Array(text[..<cut.lowerBound].utf8)
    }

    /// The `.ips` with its body's `usedImages` deleted.
    static func ipsWithoutImages() throws -> [UInt8] {
        let text = try String(contentsOfFile: ips, encoding: .utf8)
        let newline = try #require(text.firstIndex(of: "\n"))
        var body = try #require(
            try JSONSerialization.jsonObject(with: Data(text[text.index(after: newline)...].utf8)) as? [String: Any])
        #expect(body.removeValue(forKey: "usedImages") != nil)
        let json = try JSONSerialization.data(withJSONObject: body)
        return Array(text[...newline].utf8) + [UInt8](json)
    }

    @Test(.needsSamples) func aCrashCutBeforeBinaryImagesSaysSo() throws {
        let r = try CLI.run(["--no-store", "-"], stdin: try Self.cutCrash())
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("no image list"), "\(r.stderr)")
        #expect(!r.stderr.contains("0 images"), "\(r.stderr)")
        #expect(r.stderr.contains("Binary Images section is missing"), "\(r.stderr)")
        #expect(r.stderr.contains("no frame can be matched to a build"), "\(r.stderr)")
        let whole = try CLI.run(["--no-store", Self.crash])
        #expect(!whole.stderr.contains("no image list"), "\(whole.stderr)")
    }

    @Test(.needsSamples) func anIPSWithoutUsedImagesSaysSo() throws {
        let r = try CLI.run(["--no-store", "-"], stdin: try Self.ipsWithoutImages())
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("no image list"), "\(r.stderr)")
        #expect(r.stderr.contains("usedImages are missing"), "\(r.stderr)")
    }

    @Test(.needsSamples) func jsonOutputCarriesTheWarning() throws {
        let r = try CLI.run(["--no-store", "--format", "json", "-"], stdin: try Self.cutCrash())
        #expect(r.status == 0, "\(r.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any]
        let warnings = object?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("Binary Images section is missing") }, "\(r.stdoutText)")
    }
}
