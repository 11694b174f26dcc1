// What the access log writes each request: its timestamp (UTC, milliseconds, as ISO 8601 reads
// it) and its JSON strings, whose escaping is checked against a JSON reader on strings that need
// none and strings that need every kind.

import Foundation
import Reports
import Testing

@testable import Server

struct AccessLogLineTests {
    @Test func timestampsAreUTCMillisecondsOfNow() throws {
        let before = Date()
        let stamp = AccessLog.timestamp()
        let after = Date()
        #expect(stamp.utf8.count == 24)
        #expect(stamp.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil)
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(parser.date(from: stamp), "\(stamp)")
        #expect(
            date >= before.addingTimeInterval(-0.002) && date <= after, "\(stamp) not between \(before) and \(after)")
    }

    @Test(arguments: [
        "/v1/symbolicate", "", "curl/8.5.0", "é ünïcode ✓", "quote \" and backslash \\", "tab\tnew\nline\r",
        "control \u{01}\u{1F}\u{7F} end", "\"", "\\",
    ])
    func quotedStringsReadBackAsThemselves(_ text: String) throws {
        var out = ""
        JSONWriter.appendQuoted(text, to: &out)
        let read = try JSONSerialization.jsonObject(with: Data("[\(out)]".utf8)) as? [String]
        #expect(read == [text], "\(out)")
    }
}
