// The two XML documents S3 answers with that we read: ListObjectsV2's ListBucketResult and the
// Error document of a refused request. A small pull parser over the bytes (elements, text,
// the five predefined entities and character references, CDATA; comments, processing
// instructions and attributes skipped) is enough for these fixed shapes; it is not a general XML
// engine (no DTDs, no namespaces beyond dropping a prefix) and anything it cannot read is a
// `badResponse` error, never a trap.

import SymbolicateModel

/// One page of a ListObjectsV2 listing.
public struct ListPage: Sendable, Equatable {
    public var objects: [ListedObject] = []
    /// With a delimiter: the "folders" one level below the prefix, each ending in the delimiter.
    public var commonPrefixes: [String] = []
    public var isTruncated: Bool = false
    /// Pass to the next request to get the next page; nil on the last page.
    public var nextContinuationToken: String?
}

public struct ListedObject: Sendable, Equatable {
    public var key: String
    public var size: Int64
    /// The entity tag without its quotes.
    public var etag: String?
    /// As S3 writes it (ISO 8601, `2026-12-01T01:02:03.000Z`).
    public var lastModified: String?
}

/// S3's `<Error>` document.
struct S3ErrorDocument: Equatable {
    var code: String?
    var message: String?
    var requestID: String?
    /// For PermanentRedirect and AuthorizationHeaderMalformed: the bucket's region.
    var region: String?
    var endpoint: String?
}

enum S3XML {
    struct Malformed: Error { var reason: String }

    /// Reads a ListBucketResult; keys are decoded when the server says it URL-encoded them
    /// (`<EncodingType>url</EncodingType>`, which we ask for because keys may hold characters XML 1.0 cannot).
    static func listPage(_ bytes: [UInt8]) throws(Malformed) -> ListPage {
        var parser = XMLPullParser(bytes)
        var page = ListPage()
        var encoded = false
        var object: ListedObject?
        var path: [String] = []
        var text = ""
        var sawRoot = false
        var rawKeys: [String] = []
        var rawPrefixes: [String] = []
        while let event = try parser.next() {
            switch event {
            case .start(let name):
                if path.isEmpty {
                    guard name == "ListBucketResult" else {
                        throw Malformed(reason: "expected ListBucketResult, found \(name)")
                    }
                    sawRoot = true
                }
                path.append(name)
                text = ""
                if path == ["ListBucketResult", "Contents"] { object = ListedObject(key: "", size: 0) }
            case .text(let value):
                text += value
            case .end:
                switch path {
                case ["ListBucketResult", "IsTruncated"]: page.isTruncated = text == "true"
                case ["ListBucketResult", "NextContinuationToken"]: page.nextContinuationToken = text
                case ["ListBucketResult", "EncodingType"]: encoded = text == "url"
                case ["ListBucketResult", "CommonPrefixes", "Prefix"]: rawPrefixes.append(text)
                case ["ListBucketResult", "Contents", "Key"]: object?.key = text
                case ["ListBucketResult", "Contents", "Size"]:
                    guard let size = Int64(text), size >= 0 else { throw Malformed(reason: "object size \(text)") }
                    object?.size = size
                case ["ListBucketResult", "Contents", "ETag"]: object?.etag = EntityTag.unquoted(text)
                case ["ListBucketResult", "Contents", "LastModified"]: object?.lastModified = text
                case ["ListBucketResult", "Contents"]:
                    if let finished = object {
                        rawKeys.append(finished.key)
                        page.objects.append(finished)
                    }
                    object = nil
                default: break
                }
                path.removeLast()
                text = ""
            }
        }
        guard sawRoot else { throw Malformed(reason: "empty document") }
        guard path.isEmpty else { throw Malformed(reason: "the document ends inside <\(path.last ?? "")>") }
        if page.isTruncated, page.nextContinuationToken == nil {
            throw Malformed(reason: "a truncated listing without NextContinuationToken")
        }
        if encoded {
            for index in page.objects.indices {
                guard let key = formDecode(rawKeys[index]) else { throw Malformed(reason: "key \(rawKeys[index])") }
                page.objects[index].key = key
            }
            page.commonPrefixes = try rawPrefixes.map { (raw: String) throws(Malformed) -> String in
                guard let prefix = formDecode(raw) else { throw Malformed(reason: "prefix \(raw)") }
                return prefix
            }
        } else {
            page.commonPrefixes = rawPrefixes
        }
        return page
    }

    /// Reads an `<Error>` document; nil when the body is not one (HEAD answers have no body).
    static func errorDocument(_ bytes: [UInt8]) -> S3ErrorDocument? {
        var parser = XMLPullParser(bytes)
        var document = S3ErrorDocument()
        var path: [String] = []
        var text = ""
        do {
            while let event = try parser.next() {
                switch event {
                case .start(let name):
                    if path.isEmpty, name != "Error" { return nil }
                    path.append(name)
                    text = ""
                case .text(let value):
                    text += value
                case .end:
                    if path.count == 2 {
                        switch path[1] {
                        case "Code": document.code = text
                        case "Message": document.message = text
                        case "RequestId": document.requestID = text
                        case "Region": document.region = text
                        case "Endpoint": document.endpoint = text
                        default: break
                        }
                    }
                    path.removeLast()
                    text = ""
                }
            }
        } catch {
            return document.code == nil ? nil : document
        }
        return document.code == nil ? nil : document
    }

    /// Percent-decoding with `+` as a space (S3's encoding-type=url writes spaces as `+` and a
    /// plus as %2B); nil when an escape is malformed or the bytes are not UTF-8.
    static func formDecode(_ text: String) -> String? { decode(text, plusIsSpace: true) }

    /// Percent-decoding (a `+` stays a `+`); nil when an escape is malformed or the bytes are not UTF-8.
    static func percentDecode(_ text: String) -> String? { decode(text, plusIsSpace: false) }

    private static func decode(_ text: String, plusIsSpace: Bool) -> String? {
        var out: [UInt8] = []
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace:
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = bytes.next().flatMap(ASCII.hexDigitValue),
                    let low = bytes.next().flatMap(ASCII.hexDigitValue)
                else { return nil }
                out.append(high << 4 | low)
            default:
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}

/// Events of a well-formed XML document, one at a time. Checks that end tags match start tags.
struct XMLPullParser {
    enum Event: Equatable {
        case start(String)
        case text(String)
        case end(String)
    }

    private let bytes: [UInt8]
    private var position = 0
    private var open: [String] = []
    private var pendingEnd: String?
    /// Nesting deeper than this is refused (no S3 answer comes close).
    static let maximumDepth = 64

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() throws(S3XML.Malformed) -> Event? {
        if let name = pendingEnd {
            pendingEnd = nil
            return .end(name)
        }
        while position < bytes.count {
            if bytes[position] != UInt8(ascii: "<") {
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "<") { position += 1 }
                if open.isEmpty { continue }  // whitespace around the root element
                return .text(try decodeText(bytes[start..<position]))
            }
            if starts(with: "<?") {
                try skip(past: "?>")
            } else if starts(with: "<!--") {
                try skip(past: "-->")
            } else if starts(with: "<![CDATA[") {
                position += 9
                let start = position
                try skip(past: "]]>")
                return .text(String(decoding: bytes[start..<position - 3], as: UTF8.self))
            } else if starts(with: "<!") {
                throw S3XML.Malformed(reason: "a document type declaration")
            } else if starts(with: "</") {
                position += 2
                let name = readName()
                try skip(past: ">")
                guard let expected = open.popLast(), expected == localName(name) else {
                    throw S3XML.Malformed(reason: "unexpected </\(name)>")
                }
                return .end(expected)
            } else {
                position += 1
                let name = localName(readName())
                guard !name.isEmpty else { throw S3XML.Malformed(reason: "an element without a name") }
                // Attributes are skipped; a '>' inside a quoted attribute value is respected.
                var quote: UInt8?
                while position < bytes.count {
                    let byte = bytes[position]
                    if let q = quote {
                        if byte == q { quote = nil }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: ">") {
                        break
                    }
                    position += 1
                }
                guard position < bytes.count else {
                    throw S3XML.Malformed(reason: "the document ends inside <\(name)>")
                }
                let selfClosing = bytes[position - 1] == UInt8(ascii: "/")
                position += 1
                if selfClosing {
                    pendingEnd = name
                } else {
                    guard open.count < XMLPullParser.maximumDepth else {
                        throw S3XML.Malformed(reason: "nesting too deep")
                    }
                    open.append(name)
                }
                return .start(name)
            }
        }
        guard open.isEmpty else { throw S3XML.Malformed(reason: "the document ends inside <\(open.last ?? "")>") }
        return nil
    }

    private func starts(with text: String) -> Bool {
        let prefix = Array(text.utf8)
        return bytes.count - position >= prefix.count && bytes[position..<position + prefix.count].elementsEqual(prefix)
    }

    private mutating func skip(past terminator: String) throws(S3XML.Malformed) {
        let end = Array(terminator.utf8)
        while position + end.count <= bytes.count {
            if bytes[position..<position + end.count].elementsEqual(end) {
                position += end.count
                return
            }
            position += 1
        }
        throw S3XML.Malformed(reason: "unterminated markup (no \(terminator))")
    }

    private mutating func readName() -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: " ")
                || byte == UInt8(ascii: "\t")
                || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
            {
                break
            }
            position += 1
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// `s3:Key` -> `Key`.
    private func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    private func decodeText(_ raw: ArraySlice<UInt8>) throws(S3XML.Malformed) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "&") else {
                out.append(byte)
                index += 1
                continue
            }
            guard let semicolon = raw[index...].firstIndex(of: UInt8(ascii: ";")), semicolon - index <= 10 else {
                throw S3XML.Malformed(reason: "an unterminated entity")
            }
            let entity = String(decoding: raw[index + 1..<semicolon], as: UTF8.self)
            switch entity {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let scalarValue: UInt32?
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    scalarValue = UInt32(entity.dropFirst(2), radix: 16)
                } else if entity.hasPrefix("#") {
                    scalarValue = UInt32(entity.dropFirst(), radix: 10)
                } else {
                    scalarValue = nil
                }
                guard let value = scalarValue, let scalar = Unicode.Scalar(value) else {
                    throw S3XML.Malformed(reason: "unknown entity &\(entity);")
                }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            index = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
