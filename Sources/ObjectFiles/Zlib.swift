// zlib behind one function: inflating the older `.zdebug_*` "ZLIB" form of compressed ELF debug
// sections (libelf inflates SHF_COMPRESSED ones, after their header is checked against the same
// limits). The expected size comes from the section; it is capped so that a hostile header cannot
// make us allocate without limit.

internal import CZlib

enum Zlib {
    /// Largest section we agree to inflate, and the largest expansion ratio we believe (zlib's
    /// deflate cannot exceed about 1032:1, so a header claiming more is lying).
    static let maxOutput = 1 << 30
    static let maxRatio = 1100

    static func inflate(_ input: ByteReader, expectedSize: UInt64) throws -> [UInt8] {
        guard expectedSize <= UInt64(maxOutput), expectedSize <= UInt64(max(input.count, 1)) * UInt64(maxRatio) else {
            throw DecodeError("compressed section claims an implausible size of \(expectedSize) bytes")
        }
        guard expectedSize > 0 else { return [] }
        guard let src = input.pointer else { throw DecodeError("compressed section is empty") }
        var out = [UInt8](repeating: 0, count: Int(expectedSize))
        var destLen = uLongf(expectedSize)
        let rc = out.withUnsafeMutableBytes { dst -> Int32 in
            guard let d = dst.baseAddress else { return Z_BUF_ERROR }
            return uncompress(
                d.assumingMemoryBound(to: Bytef.self), &destLen, src.assumingMemoryBound(to: Bytef.self),
                uLong(input.count))
        }
        guard rc == Z_OK else { throw DecodeError("compressed section does not inflate (zlib error \(rc))") }
        guard destLen == uLongf(expectedSize) else {
            throw DecodeError("compressed section inflates to \(destLen) bytes, header says \(expectedSize)")
        }
        return out
    }
}
