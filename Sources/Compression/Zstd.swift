// zstd behind one small wrapper, the only code that talks to libzstd: decompressing the
// SHF_COMPRESSED ELF debug sections whose compression header says ELFCOMPRESS_ZSTD
// (`objcopy --compress-debug-sections=zstd`, `-gz=zstd`), which libelf 0.188 cannot. The limits
// are the zlib path's: a section is refused when its header claims more than Zlib.maxOutput bytes
// or an expansion past Zlib.maxRatio, and when its data holds more or fewer bytes than the header
// says, before anything is allocated past what the header claims.

internal import CZstd

public enum Zstd {
    /// One or more zstd frames known to decompress to `expectedSize` bytes (a compressed section).
    public static func decompress(_ input: UnsafeRawBufferPointer, expectedSize: UInt64) throws(Zlib.SectionError)
        -> [UInt8]
    {
        guard expectedSize <= UInt64(Zlib.maxOutput),
            expectedSize <= UInt64(max(input.count, 1)) * UInt64(Zlib.maxRatio)
        else {
            throw Zlib.SectionError(
                message: "zstd-compressed section claims an implausible size of \(expectedSize) bytes")
        }
        guard let src = input.baseAddress, input.count > 0 else {
            throw Zlib.SectionError(message: "zstd-compressed section is empty")
        }
        // One byte more than the header says: a section that holds more fills it and is caught.
        var out = [UInt8](repeating: 0, count: Int(expectedSize) + 1)
        let written = out.withUnsafeMutableBytes { dst in
            ZSTD_decompress(dst.baseAddress, dst.count, src, input.count)
        }
        if ZSTD_isError(written) != 0 {
            let name = String(cString: ZSTD_getErrorName(written))
            if ZSTD_getErrorCode(written) == ZSTD_error_dstSize_tooSmall {
                throw Zlib.SectionError(
                    message: "zstd-compressed section holds more than the \(expectedSize) bytes its header says")
            }
            throw Zlib.SectionError(message: "zstd-compressed section does not decompress (\(name))")
        }
        guard written == Int(expectedSize) else {
            throw Zlib.SectionError(
                message: written > Int(expectedSize)
                    ? "zstd-compressed section holds more than the \(expectedSize) bytes its header says"
                    : "zstd-compressed section holds \(written) bytes, its header says \(expectedSize)")
        }
        out.removeLast()
        return out
    }
}
