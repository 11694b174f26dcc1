// Decoding `Content-Encoding: gzip` (and `deflate`) request bodies with zlib, within a size limit:
// a few kilobytes that inflate to gigabytes are refused with a 413 as soon as the limit is passed,
// never held in memory.

internal import CZlib

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
        var stream = z_stream()
        // 15 + 32: any window size, gzip or zlib header detected automatically.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw HTTPError(500, "internal", "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while true {
                let rc: Int32 = chunk.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                if output.count + produced > limit { return -100 }
                output.append(contentsOf: chunk[0..<produced])
                if rc == Z_STREAM_END { return Z_STREAM_END }
                if rc != Z_OK { return rc }
                if stream.avail_in == 0 && produced == 0 { return Z_BUF_ERROR }
            }
        }
        switch status {
        case Z_STREAM_END: return output
        case -100: throw HTTPError(413, "too_large", "the decompressed body exceeds \(limit) bytes")
        default: throw HTTPError(400, "bad_encoding", "the body is not valid gzip data (zlib status \(status))")
        }
    }
}
