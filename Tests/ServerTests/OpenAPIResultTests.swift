// The JSON answers of the API, held to the schemas /openapi.json gives for them (the format=json
// result, builds, stored reports; the Sentry and Mozilla answers in SymbolicateEndpointTests):
// every key an answer has is described, every required key is there, nulls only where the schema
// allows them, enum values from the schema's list, all the way down to the symbols of inlined
// frames. A field added to an answer without its description fails here.

import Foundation
import TestSupport
import Testing

@Suite("OpenAPI describes the JSON answer", .tags(.server))
struct OpenAPIResultTests {
    /// Where `value` breaks `schema` (resolving `$ref`s in `schemas`), as paths; empty when it fits.
    static func violations(_ value: Any, _ schema: [String: Any], _ schemas: [String: Any], at path: String) -> [String]
    {
        if let reference = schema["$ref"] as? String {
            let name = String(reference.split(separator: "/").last ?? "")
            guard let resolved = schemas[name] as? [String: Any] else { return ["\(path): unknown \(reference)"] }
            return violations(value, resolved, schemas, at: path)
        }
        // One of the alternatives must fit; without this a route whose answer may take two
        // shapes would let anything through.
        if let alternatives = (schema["anyOf"] ?? schema["oneOf"]) as? [[String: Any]] {
            let tried = alternatives.map { violations(value, $0, schemas, at: path) }
            return tried.contains { $0.isEmpty } ? [] : tried.first ?? ["\(path): no alternatives"]
        }
        if value is NSNull { return schema["nullable"] as? Bool == true ? [] : ["\(path): null, not nullable"] }
        if let allowed = schema["enum"] as? [String], let text = value as? String, !allowed.contains(text) {
            return ["\(path): \(text) is not one of \(allowed)"]
        }
        switch schema["type"] as? String {
        case "object":
            guard let object = value as? [String: Any] else { return ["\(path): not an object"] }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            var found: [String] = []
            for key in (schema["required"] as? [String] ?? []) where object[key] == nil {
                found.append("\(path): lacks required \(key)")
            }
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                // A key the schema does not name is drift, unless the object is a map of them.
                guard
                    let described = properties[key] as? [String: Any] ?? schema["additionalProperties"]
                        as? [String: Any]
                else {
                    found.append("\(path).\(key): not in the schema")
                    continue
                }
                found += violations(member, described, schemas, at: "\(path).\(key)")
            }
            return found
        case "array":
            guard let array = value as? [Any] else { return ["\(path): not an array"] }
            let items = schema["items"] as? [String: Any] ?? [:]
            return array.enumerated().flatMap { violations($1, items, schemas, at: "\(path)[\($0)]") }
        case "string": return value is String ? [] : ["\(path): not a string"]
        case "integer": return value is Int ? [] : ["\(path): not an integer"]
        case "boolean": return (value as? NSNumber).map { _ in [] } ?? ["\(path): not a boolean"]
        default: return []
        }
    }

    @Test(arguments: ["HoldApp-ios-arm64-dwarf5.crash", "HoldApp-ios-arm64-dwarf5.ips"])
    func theAnswerFitsItsSchema(_ name: String) throws {
        let server = try TestServer()
        try server.importDirectly([try #require(Fixtures.build("ios-arm64-dwarf5"))])
        let answer = try server.post("/v1/symbolicate?format=json", try #require(Fixtures.report(name)))
        #expect(answer.status == 200)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        let document = try server.get("/openapi.json").json()
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        let schema = try #require(schemas["SymbolicationResult"] as? [String: Any])
        let found = Self.violations(result, schema, schemas, at: "answer")
        #expect(found.isEmpty, "\(found.count): \(found.prefix(8))")
        // The answer reached every level the schema describes: an inlined symbol with a file and line.
        let frames = (result["backtraces"] as? [[String: Any]] ?? []).flatMap { $0["frames"] as? [[String: Any]] ?? [] }
        let symbols = frames.flatMap { $0["symbols"] as? [[String: Any]] ?? [] }
        #expect(symbols.contains { $0["inline"] as? Bool == true && $0["line"] is Int })
        // The POST route names the schema for its JSON answers (this one, or a MetricKit payload).
        let paths = document["paths"] as? [String: Any] ?? [:]
        let post = (paths["/v1/symbolicate"] as? [String: Any])?["post"] as? [String: Any]
        let ok = (post?["responses"] as? [String: Any])?["200"] as? [String: Any]
        let json = ((ok?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"]
        let choices = ((json as? [String: Any])?["anyOf"] as? [[String: Any]] ?? []).compactMap {
            $0["$ref"] as? String
        }
        #expect(choices.contains("#/components/schemas/SymbolicationResult"), "\(choices)")
    }

    /// Every kind of report the server reads, as format=json, fits the same schema: text and
    /// `.ips` reports of every sample build, MetricKit payloads and trees, resource and spindump
    /// reports, `sample` output (sample trees, frames without numbers in their backtrace).
    @Test func everyReportKindFitsTheSchema() throws {
        let server = try TestServer()
        try server.importDirectly([try #require(Fixtures.build("ios-arm64-dwarf5"))])
        let document = try server.get("/openapi.json").json()
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        let schema = try #require(schemas["SymbolicationResult"] as? [String: Any])
        var formats: Set<String> = []
        for folder in ["reports", "diagnostics"] {
            let path = Fixtures.samples + "/" + folder
            for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            where name.hasPrefix("HoldApp-") {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
                let answer = try server.post("/v1/symbolicate?format=json", bytes)
                #expect(answer.status == 200, "\(name): \(answer.text.prefix(200))")
                let result = (try? JSONSerialization.jsonObject(with: Data(answer.body))) ?? NSNull()
                let found = Self.violations(result, schema, schemas, at: name)
                #expect(found.isEmpty, "\(found.count): \(found.prefix(8))")
                if let format = (result as? [String: Any])?["format"] as? String { formats.insert(format) }
            }
        }
        #expect(formats == ["text", "ips", "metrickit", "microstackshot", "sample"], "\(formats)")
    }

    /// The build answers: an upload (imported, then already present), the builds of a UUID, a
    /// removal, each held to the schema its route names for that status.
    @Test(.needsExecutable)
    func buildAnswersFitTheirSchemas() throws {
        let server = try TestServer()
        let document = try server.get("/openapi.json").json()
        func check(_ answer: TestResponse, _ path: String, _ method: String) {
            Self.check(answer, path, method, document)
        }
        let path = try #require(
            Fixtures.build("ios-arm64-dwarf5/HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let imported = try server.post("/v1/symbols?filename=HoldKit", bytes, headers: server.auth)
        #expect(imported.status == 201)
        check(imported, "/v1/symbols", "post")
        let again = try server.post("/v1/symbols?filename=HoldKit", bytes, headers: server.auth)
        #expect(again.status == 200)
        check(again, "/v1/symbols", "post")
        let uuid = try #require((imported.json()["imported"] as? [[String: Any]])?.first?["uuid"] as? String)
        check(try server.get("/v1/symbols/" + uuid), "/v1/symbols/{uuid}", "get")
        check(try server.get("/v1/symbols"), "/v1/symbols", "get")
        let removed = try TestHTTP.request(port: server.port, "DELETE", "/v1/symbols/" + uuid, headers: server.auth)
        #expect(removed.status == 200)
        check(removed, "/v1/symbols/{uuid}", "delete")
    }

    /// Holds `answer` to the schema `document` gives for `method path` at the answer's status.
    static func check(_ answer: TestResponse, _ path: String, _ method: String, _ document: [String: Any]) {
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        let paths = document["paths"] as? [String: Any] ?? [:]
        let operation = (paths[path] as? [String: Any])?[method] as? [String: Any]
        let response = (operation?["responses"] as? [String: Any])?[String(answer.status)] as? [String: Any]
        let content = (response?["content"] as? [String: Any])?["application/json"] as? [String: Any]
        guard let schema = content?["schema"] as? [String: Any] else {
            Issue.record("\(method) \(path) \(answer.status) has no JSON schema")
            return
        }
        let value = (try? JSONSerialization.jsonObject(with: Data(answer.body))) ?? NSNull()
        let found = violations(value, schema, schemas, at: "\(method) \(path) \(answer.status)")
        #expect(found.isEmpty, "\(found.prefix(8))")
    }

    /// The stored-report answers: a POST, the report, the listing, what reports wait for, a removal.
    @Test func storedReportAnswersFitTheirSchemas() throws {
        let server = try TestServer()
        let document = try server.get("/openapi.json").json()
        let report = try #require(Fixtures.report("HoldApp-ios-arm64-dwarf5.crash"))
        let posted = try server.post("/v1/reports", report, headers: server.auth)
        #expect(posted.status == 201)
        Self.check(posted, "/v1/reports", "post", document)
        let id = try #require(posted.json()["id"] as? String)
        Self.check(try server.get("/v1/reports/\(id)?view=json"), "/v1/reports/{id}", "get", document)
        Self.check(try server.get("/v1/reports?limit=5"), "/v1/reports", "get", document)
        Self.check(try server.get("/v1/missing"), "/v1/missing", "get", document)
        let removed = try TestHTTP.request(port: server.port, "DELETE", "/v1/reports/\(id)", headers: server.auth)
        #expect(removed.status == 200)
        Self.check(removed, "/v1/reports/{id}", "delete", document)
    }

    /// The answers at the edges of what the routes promise: a report stored as JSON and read raw,
    /// a Mozilla module no frame uses, and an ELF build id where a UUID is asked for.
    @Test func edgeAnswersFitTheirSchemas() throws {
        let server = try TestServer()
        let document = try server.get("/openapi.json").json()
        let report = try #require(Fixtures.report("HoldApp-ios-arm64-dwarf5.crash"))
        let posted = try server.post("/v1/reports?format=json", report, headers: server.auth)
        #expect(posted.status == 201)
        let id = try #require(posted.json()["id"] as? String)
        let raw = try server.get("/v1/reports/\(id)?view=raw")
        #expect(raw.status == 200 && raw.headers["content-type"] == "application/json")
        Self.check(raw, "/v1/reports/{id}", "get", document)

        let body = #"{"memoryMap": [["Unused", "0A0B0C0D0E0F40008000000000000001" ]], "stacks": [[]]}"#
        let mozilla = try server.post("/symbolicate/v5", Array(body.utf8))
        #expect(mozilla.status == 200)
        Self.check(mozilla, "/symbolicate/v5", "post", document)

        let paths = document["paths"] as? [String: Any] ?? [:]
        let parameters = (paths["/v1/symbols/{uuid}"] as? [String: Any])?["parameters"] as? [[String: Any]]
        let pattern = try #require((parameters?.first?["schema"] as? [String: Any])?["pattern"] as? String)
        let regex = try NSRegularExpression(pattern: pattern)
        for id in ["C89156EBDABF859F4EE70CB0C303004DCCF1AE51", "82D13D98-219E-3040-B62A-07A297007A7C", "ab"] {
            #expect(regex.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) != nil, "\(id)")
        }
        for id in ["abc", "", "xyz1", "../etc"] {
            #expect(regex.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) == nil, "\(id)")
        }
    }
}
