// An object's entity tag as S3 writes it: in a listing's <ETag>, in the ETag header of a GET,
// HEAD or PUT answer, always between double quotes (RFC 9110, section 8.8.3), and as the client
// sends it back in If-Match. The client keeps and compares tags without their quotes.

enum EntityTag {
    /// `tag` without the double quotes around it, when it has them (one ASCII `"` first and one
    /// last); otherwise as it is. The quotes are bytes, not characters: a tag beginning with a
    /// combining mark would otherwise join the opening quote into one character and keep it.
    static func unquoted(_ tag: String) -> String {
        let bytes = tag.utf8
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else {
            return tag
        }
        return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    /// `tag` between double quotes, as If-Match wants it.
    static func quoted(_ tag: String) -> String { "\"" + tag + "\"" }
}

extension HTTPResponse {
    /// The answer's ETag header without its quotes; nil when there is none.
    var entityTag: String? { header("etag").map { EntityTag.unquoted($0) } }
}
