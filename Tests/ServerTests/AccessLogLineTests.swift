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

    @Test func requestLinesAreOneJSONObject() throws {
        let line = AccessLog.line(
            time: "2026-12-05T19:30:00.123Z", method: "POST", path: "/v1/symbolicate?x=\"y\"", route: "/v1/symbolicate",
            status: 200, bytesIn: 7_613, bytesOut: 9_040, seconds: 0.001_234_5, clientGone: true, token: "ci",
            closed: "idle")
        let text = String(decoding: line, as: UTF8.self)
        #expect(
            text
                == #"{"time":"2026-12-05T19:30:00.123Z","method":"POST","path":"/v1/symbolicate?x=\"y\"","route":"/v1/symbolicate","status":200,"bytes_in":7613,"bytes_out":9040,"duration_ms":1.235,"client_gone":true,"closed":"idle","token":"ci"}"#
                + "\n")
        for (seconds, shown) in [(0.0, "0.000"), (0.000_01, "0.010"), (2.5, "2500.000"), (0.099_999_9, "100.000")] {
            let object = try JSONSerialization.jsonObject(
                with: Data(
                    AccessLog.line(
                        time: "t", method: "GET", path: "/", route: "/", status: 404, bytesIn: 0, bytesOut: 1,
                        seconds: seconds, clientGone: false)))
            let fields = try #require(object as? [String: Any])
            #expect(fields["status"] as? Int == 404)
            #expect(fields["client_gone"] == nil)
            let text = String(
                decoding: AccessLog.line(
                    time: "t", method: "GET", path: "/", route: "/", status: 404, bytesIn: 0, bytesOut: 1,
                    seconds: seconds, clientGone: false), as: UTF8.self)
            #expect(text.hasSuffix("\"duration_ms\":\(shown)}\n"), "\(text)")
        }
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
