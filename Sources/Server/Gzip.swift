// Decoding `Content-Encoding: gzip` (and `deflate`) request bodies within a size limit, through
// the zlib wrapper (Compression): a few kilobytes that inflate to gigabytes are refused with a 413 as
// soon as the limit is passed, never held in memory.

import Compression

enum ContentDecoding {
    /// The decoded body for the request's Content-Encoding (identity, gzip, x-gzip, deflate).
    static func decode(_ body: [UInt8], encoding: String?, limit: Int) throws -> [UInt8] {
        guard let encoding = encoding?.trimmingCharacters(in: " ").lowercased(), !encoding.isEmpty,
            encoding != "identity"
        else { return body }
        switch encoding {
        case "gzip", "x-gzip", "deflate": return try inflate(body, limit: limit)
        default:
            throw HTTPError(415, "unsupported_encoding", "Content-Encoding '\(encoding)' is not supported (use gzip)")
        }
    }

    /// Inflates gzip or zlib data (header detected by zlib), up to `limit` output bytes.
    static func inflate(_ input: [UInt8], limit: Int) throws -> [UInt8] {
        do {
            return try Zlib.inflate(input, limit: limit)
        } catch {
            switch error {
            case .cannotStart: throw HTTPError(500, "internal", "zlib could not start")
            case .tooLarge: throw HTTPError(413, "too_large", "the decompressed body exceeds \(limit) bytes")
            case .badData(let status):
                throw HTTPError(400, "bad_encoding", "the body is not valid gzip data (zlib status \(status))")
            }
        }
    }
}
