// SwiftBacktraceJSONParser: the Swift runtime's own crash report in its JSON form
// (`SWIFT_BACKTRACE=enable=yes,format=json`): `kind: crashReport`, `threads[].frames[]` of kind
// `programCounter`, `returnAddress`, `asyncResumePoint` (frames), `omittedFrames` and `truncated`
// (no frames), and `images[]` with `buildId`, `path`, `baseAddress` (the lowest mapping) and
// `endOfText`. The runtime writes an image's `name` and `path` without JSON escaping, so a path
// with a quote, a backslash or a control character makes the document invalid JSON: such a
// document is read from a copy whose name and path strings have those bytes replaced one for one
// (every offset stays the same) and the strings themselves are taken from the original bytes.
// A frame of a kind the runtime does not write is kept as a malformed frame. Frames marked
// `inlined` that an earlier run wrote are levels of the frame after them, which the writer replaces.

import SymbolicateModel

enum SwiftBacktraceJSONParser {
    /// True when the JSON document starting at `start` is the runtime's crash report.
    static func isSwiftBacktrace(_ bytes: [UInt8], from start: Int) -> Bool {
        FormatSniffer.contains(bytes, "\"kind\": \"crashReport\"") && FormatSniffer.contains(bytes, "\"threads\"")
    }

    /// The document at `start`, parsed from the repaired copy when the original is invalid, and
    /// whether it was.
    static func document(_ bytes: [UInt8], from start: Int) throws -> (node: JSONNode, repaired: Bool) {
        if let (node, _) = try? JSONScanner.parse(bytes, from: start) { return (node, false) }
        do {
            return (try JSONScanner.parse(repaired(bytes), from: start).0, true)
        } catch let error as SymbolicateError {
            throw SymbolicateError(.badInput, "malformed Swift runtime crash report (cut short?): \(error.message)")
        }
    }

    /// `bytes` with the unescaped `"name"` and `"path"` strings made valid JSON, byte for byte.
    static func repaired(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        for key in ["\"name\": \"", "\"path\": \""] {
            var from = 0
            while let found = ByteText.firstRange(of: key, in: bytes, from..<bytes.count) {
                let value = found.upperBound
                let end = stringEnd(bytes, from: value)
                for i in value..<end
                where bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "\\") || bytes[i] < 0x20 {
                    out[i] = UInt8(ascii: "_")
                }
                from = max(end, value)
            }
        }
        return out
    }

    /// Where an unescaped string value that starts at `start` ends: the first quote followed by
    /// a `,` and another key, or by the `}` closing its object.
    static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\"") {
                var k = i + 1
                while k < bytes.count, bytes[k] == 0x20 { k += 1 }
                if k < bytes.count, bytes[k] == UInt8(ascii: "}") { return i }
                if k < bytes.count, bytes[k] == UInt8(ascii: ",") {
                    k += 1
                    while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x0A { k += 1 }
                    if k < bytes.count, bytes[k] == UInt8(ascii: "\"") { return i }
                }
            }
            i += 1
        }
        return bytes.count
    }

    static func parse(_ bytes: [UInt8], from start: Int) throws -> CrashReport {
        let (root, repaired) = try document(bytes, from: start)
        let arch = root["architecture"]?.string.map(SwiftBacktraceParser.arch)
        var fields: [HeaderField] = []
        for key in ["timestamp", "description", "faultAddress", "platform", "architecture"] {
            if let value = root[key]?.scalarText { fields.append(HeaderField(key: key, value: value)) }
        }
        guard let imageList = root["images"]?.elements, !imageList.isEmpty else {
            throw SymbolicateError(
                .badInput,
                "Swift runtime crash report without images (written with images=none?): nothing to match its"
                    + " frames to")
        }
        let images = imageList.compactMap { image(bytes, $0, arch: arch, unescaped: repaired) }
        var backtraces: [Backtrace] = []
        for (n, thread) in (root["threads"]?.elements ?? []).enumerated() {
            var backtrace = Backtrace(
                kind: .thread, number: n, name: thread["name"]?.string, crashed: thread["crashed"]?.bool ?? false)
            var levelStart: Int?
            var number = 0
            for object in thread["frames"]?.elements ?? [] {
                let kind = object["kind"]?.string ?? ""
                if kind == "omittedFrames" || kind == "truncated" {
                    levelStart = nil
                    continue
                }
                let address = object["address"]?.uint64
                if object["inlined"]?.bool == true, address != nil {
                    if levelStart == nil { levelStart = object.range.lowerBound }
                    continue
                }
                let known = ["programCounter", "returnAddress", "asyncResumePoint"].contains(kind)
                var frame = Frame(
                    number: number, imageName: object["image"]?.string, address: address ?? 0,
                    symbol: object["symbol"]?.string, isReturnAddress: kind == "returnAddress",
                    symbolColumn: object.range, isMalformed: !known || address == nil)
                if let start = levelStart { frame.levelLines = start..<object.range.lowerBound }
                levelStart = nil
                backtrace.frames.append(frame)
                number += 1
            }
            backtraces.append(backtrace)
        }
        return CrashReport(
            format: .swiftBacktraceJSON, original: bytes, fields: fields, backtraces: backtraces, images: images,
            arch: arch)
    }

    /// One `images[]` entry; in an `unescaped` document its name and path are the original bytes.
    static func image(_ bytes: [UInt8], _ node: JSONNode, arch: Arch?, unescaped: Bool) -> BinaryImage? {
        guard let base = node["baseAddress"]?.uint64 else { return nil }
        let end = node["endOfText"]?.uint64
        func raw(_ key: String) -> String? {
            guard let value = node[key], value.range.count >= 2 else { return nil }
            let inner = (value.range.lowerBound + 1)..<(value.range.upperBound - 1)
            return unescaped ? ByteText.string(bytes, inner) : value.string
        }
        let path = raw("path")
        let name = raw("name") ?? path.map { PathParts.name($0, backslash: false) } ?? "???"
        return BinaryImage(
            loadAddress: base, size: end.flatMap { $0 >= base ? $0 - base : nil }, name: name, arch: arch,
            uuid: node["buildId"]?.string.flatMap { BuildID(reported: $0) }, path: path)
    }
}
