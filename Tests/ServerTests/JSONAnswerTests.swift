// The server's JSON answers go through the one JSON writer (JSONWriter): what the routes build
// (dictionaries, arrays, strings, integers of every width, doubles, Bools, NSNull) and what they
// may pass on from a parsed request come out as Foundation's own parser reads them back, with
// keys in sorted order, and a value JSON cannot hold is an error answer, never broken JSON.

import Foundation
import Testing

@testable import Server

@Suite struct JSONAnswerTests {
    @Test func whatRoutesBuildReadsBackTheSame() throws {
        let value: [String: Any] = [
            "string": "a \"quoted\" / slashed\nline\u{1}", "int": 42, "negative": -7, "int64": Int64(1) << 40,
            "uint64": UInt64.max, "int32": Int32(-5), "uint32": UInt32(7), "double": 0.25, "small": 1e-5,
            "whole": 3.0, "true": true, "false": false, "null": NSNull(), "list": ["x", "y"],
            "objects": [["b": 1, "a": 2]], "empty": [String: Any](), "strings": ["k": "v"],
        ]
        let bytes = JSONValue.encode(value)
        let text = String(decoding: bytes, as: UTF8.self)
        let back = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(back["string"] as? String == "a \"quoted\" / slashed\nline\u{1}")
        #expect(back["int"] as? Int == 42 && back["negative"] as? Int == -7)
        #expect((back["int64"] as? NSNumber)?.int64Value == Int64(1) << 40)
        #expect(text.contains("\"uint64\":18446744073709551615"), "\(text)")
        #expect(back["int32"] as? Int == -5 && back["uint32"] as? Int == 7)
        #expect(back["double"] as? Double == 0.25 && back["small"] as? Double == 1e-5 && back["whole"] as? Double == 3)
        #expect(text.contains("\"true\":true") && text.contains("\"false\":false") && text.contains("\"null\":null"))
        #expect(back["list"] as? [String] == ["x", "y"])
        #expect(text.contains(#""objects":[{"a":2,"b":1}]"#), "keys are sorted: \(text)")
        #expect(text.hasPrefix(#"{"double":0.25,"empty":{},"false":false,"#), "\(text)")
    }

    @Test func parsedValuesPassOnAsTheyWere() throws {
        let request = #"{"flag":true,"off":false,"n":12,"x":1.5,"list":[1,"two",null],"nested":{"k":[true]}}"#
        let parsed = try JSONValue.object(Array(request.utf8))
        let text = String(decoding: JSONValue.encode(parsed), as: UTF8.self)
        #expect(text == #"{"flag":true,"list":[1,"two",null],"n":12,"nested":{"k":[true]},"off":false,"x":1.5}"#)
    }

    @Test func aValueJSONCannotHoldIsAnErrorAnswer() throws {
        for bad: Any in [["nan": Double.nan], ["date": Date()], ["infinity": [Double.infinity]]] {
            let text = String(decoding: JSONValue.encode(bad), as: UTF8.self)
            #expect(text.contains("response could not be encoded"), "\(text)")
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil)
        }
    }
}
