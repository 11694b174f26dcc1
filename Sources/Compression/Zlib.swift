// zlib behind one small wrapper, the only code that talks to it: inflating the older
// `.zdebug_*` "ZLIB" form of compressed ELF debug sections (libelf inflates SHF_COMPRESSED ones,
// after their header is checked against the same limits), inflating a gzip or zlib stream of
// unknown length within an output limit (the server's `Content-Encoding: gzip` bodies), and
// checking a gzip file against the CRC-32 and length its members end with (libarchive, which
// reads .tar.gz archives, inflates without checking them). The first two refuse what would make
// us allocate without limit: a section header claiming an implausible size, a stream that
// inflates past the caller's limit (refused as soon as it is passed).

internal import CZlib

#if canImport(Glibc)
    import Glibc
#endif

public enum Zlib {
    /// Largest section we agree to inflate, and the largest expansion ratio we believe (zlib's
    /// deflate cannot exceed about 1032:1, so a header claiming more is lying).
    public static let maxOutput = 1 << 30
    public static let maxRatio = 1100

    /// Why a stream did not inflate.
    public enum StreamError: Error, Sendable, Equatable {
        /// The output passed the caller's limit.
        case tooLarge(limit: Int)
        /// Not gzip or zlib data, or truncated: zlib's status code.
        case badData(status: Int32)
        /// zlib could not start (no memory).
        case cannotStart
    }

    /// Why a compressed section did not inflate, in words.
    public struct SectionError: Error, Sendable {
        public var message: String
    }

    /// A zlib stream known to inflate to `expectedSize` bytes (a compressed section).
    public static func inflate(_ input: UnsafeRawBufferPointer, expectedSize: UInt64) throws(SectionError) -> [UInt8] {
        guard expectedSize <= UInt64(maxOutput), expectedSize <= UInt64(max(input.count, 1)) * UInt64(maxRatio) else {
            throw SectionError(message: "compressed section claims an implausible size of \(expectedSize) bytes")
        }
        guard expectedSize > 0 else { return [] }
        guard let src = input.baseAddress, input.count > 0 else {
            throw SectionError(message: "compressed section is empty")
        }
        var out = [UInt8](repeating: 0, count: Int(expectedSize))
        var destLen = uLongf(expectedSize)
        let rc = out.withUnsafeMutableBytes { dst -> Int32 in
            guard let d = dst.baseAddress else { return Z_BUF_ERROR }
            return uncompress(
                d.assumingMemoryBound(to: Bytef.self), &destLen, src.assumingMemoryBound(to: Bytef.self),
                uLong(input.count))
        }
        guard rc == Z_OK else { throw SectionError(message: "compressed section does not inflate (zlib error \(rc))") }
        guard destLen == uLongf(expectedSize) else {
            throw SectionError(
                message: "compressed section inflates to \(destLen) bytes, header says \(expectedSize)")
        }
        return out
    }

    /// Inflates gzip or zlib data (the header is detected by zlib), up to `limit` output bytes. A
    /// gzip body may be several members one after another (RFC 1952 section 2.2: `cat a.gz b.gz`),
    /// inflated as one; anything else after the end of the stream is refused, not dropped.
    public static func inflate(_ input: [UInt8], limit: Int) throws(StreamError) -> [UInt8] {
        var stream = z_stream()
        // 15 + 32: any window size, gzip or zlib header detected automatically.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .cannotStart
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = input
        let overLimit: Int32 = -100
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
                if output.count + produced > limit { return overLimit }
                output.append(contentsOf: chunk[0..<produced])
                if rc == Z_STREAM_END {
                    guard stream.avail_in > 0 else { return Z_STREAM_END }
                    // More input: the next gzip member (ID1 ID2), or data that does not belong.
                    let next = source.count - Int(stream.avail_in)
                    guard stream.avail_in >= 2, source[next] == 0x1F, source[next + 1] == 0x8B else {
                        return Z_DATA_ERROR
                    }
                    guard inflateReset(&stream) == Z_OK else { return Z_STREAM_ERROR }
                    continue
                }
                if rc != Z_OK { return rc }
                if stream.avail_in == 0 && produced == 0 { return Z_BUF_ERROR }
            }
        }
        switch status {
        case Z_STREAM_END: return output
        case overLimit: throw .tooLarge(limit: limit)
        default: throw .badData(status: status)
        }
    }
}

extension Zlib {
    /// What a deflater writes around the compressed data.
    public enum Framing: Sendable {
        /// No header or trailer (a zip member's data).
        case raw
        /// A gzip member (`Content-Encoding: gzip`).
        case gzip
    }

    /// Deflates a stream fed in chunks. Only tests and fixtures write compressed data; the
    /// product only inflates, but zlib stays behind this one wrapper either way.
    public final class Deflater {
        private var stream = z_stream()
        private var started = false
        private var out = [UInt8](repeating: 0, count: 1 << 16)

        /// `level` 0-9 as zlib's; nil when zlib cannot start (no memory).
        public init?(framing: Framing, level: Int32 = 6) {
            let windowBits: Int32 = framing == .raw ? -15 : 15 + 16
            let rc = deflateInit2_(
                &stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size))
            guard rc == Z_OK else { return nil }
            started = true
        }

        deinit { if started { deflateEnd(&stream) } }

        /// Compresses `chunk`, returning what zlib has produced so far.
        public func update(_ chunk: [UInt8]) -> [UInt8] { pump(chunk, flush: Z_NO_FLUSH) }

        /// Ends the stream, returning the rest of the compressed data.
        public func finish() -> [UInt8] { pump([], flush: Z_FINISH) }

        private func pump(_ input: [UInt8], flush: Int32) -> [UInt8] {
            var produced: [UInt8] = []
            var input = input
            input.withUnsafeMutableBufferPointer { source in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                repeat {
                    out.withUnsafeMutableBufferPointer { target in
                        stream.next_out = target.baseAddress
                        stream.avail_out = UInt32(target.count)
                        _ = CZlib.deflate(&stream, flush)
                    }
                    produced.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                } while stream.avail_out == 0
            }
            return produced
        }
    }

    /// `bytes` deflated in one call.
    public static func deflate(_ bytes: [UInt8], framing: Framing, level: Int32 = 6) -> [UInt8]? {
        guard let deflater = Deflater(framing: framing, level: level) else { return nil }
        return deflater.update(bytes) + deflater.finish()
    }

    /// The CRC-32 of `bytes` continued from `crc` (0 to start), as zip and gzip use it.
    public static func crc32(_ crc: UInt32, _ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(uLong(crc), $0.baseAddress, UInt32($0.count))) }
    }

    /// The same over bytes in memory of any size (a mapped file), a gigabyte at a time.
    public static func crc32(_ crc: UInt32, _ buffer: UnsafeRawBufferPointer) -> UInt32 {
        var crc = uLong(crc)
        var offset = 0
        while offset < buffer.count {
            let n = min(buffer.count - offset, 1 << 30)
            crc = CZlib.crc32(
                crc, buffer.baseAddress?.advanced(by: offset).assumingMemoryBound(to: UInt8.self), UInt32(n))
            offset += n
        }
        return UInt32(crc)
    }
}

extension Zlib {
    /// Checks the gzip file at `path` as gzip(1) -t does: every member is inflated (the output
    /// thrown away) and checked against the CRC-32 and length it ends with (RFC 1952 2.3.1).
    /// Members follow one another (`cat a.gz b.gz`); bytes after the last member that do not begin
    /// another one are ignored, as libarchive ignores them. Nil when the file checks out, else
    /// what is wrong, in words (zlib's own: "incorrect data check", "invalid block type", ...).
    public static func gzipFileProblem(atPath path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "cannot open it: \(String(cString: strerror(errno)))" }
        defer { close(descriptor) }
        var stream = z_stream()
        // 15 + 16: any window size, a gzip header and trailer only.
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return "zlib could not start (no memory)"
        }
        defer { inflateEnd(&stream) }
        let input = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
        defer {
            input.deallocate()
            output.deallocate()
        }
        var start = 0
        var end = 0
        var memberEnded = false
        /// Reads more input after what is left of the buffer; false at the end of the file.
        func fill() -> Bool? {
            if start > 0 {
                input.update(from: input + start, count: end - start)
                end -= start
                start = 0
            }
            var n: Int
            repeat { n = read(descriptor, input + end, (1 << 16) - end) } while n < 0 && errno == EINTR
            guard n >= 0 else { return nil }
            end += n
            return n > 0
        }
        while true {
            if memberEnded {
                // Another member follows only where its two ID bytes stand next.
                while end - start < 2 {
                    guard let more = fill() else { return "cannot read it: \(String(cString: strerror(errno)))" }
                    if !more { return nil }
                }
                guard input[start] == 0x1F, input[start + 1] == 0x8B else { return nil }
                guard inflateReset(&stream) == Z_OK else { return "zlib could not start again" }
                memberEnded = false
            }
            if start == end {
                guard let more = fill() else { return "cannot read it: \(String(cString: strerror(errno)))" }
                if !more { return "the gzip data ends before its end" }
            }
            stream.next_in = input + start
            stream.avail_in = UInt32(end - start)
            stream.next_out = output
            stream.avail_out = 1 << 16
            let rc = CZlib.inflate(&stream, Z_NO_FLUSH)
            start = end - Int(stream.avail_in)
            switch rc {
            case Z_STREAM_END: memberEnded = true
            case Z_OK: continue
            case Z_BUF_ERROR where start == end: continue  // more input wanted
            default: return stream.msg.map { String(cString: $0) } ?? "zlib error \(rc)"
            }
        }
    }
}
