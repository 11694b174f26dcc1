// Builds .zip archives for tests: real dSYM bundles, a zip-slip archive (`../` names), a zip bomb
// (a few megabytes that inflate past a gigabyte), and zips with exactly the layout a test needs
// (stored or deflated members, data descriptors, with or without zip64 records), so that a test can
// cut or patch them at a known offset. Written by hand after APPNOTE.TXT (local file headers 4.3.7,
// data descriptors 4.3.9, central directory headers 4.3.12, the zip64 end records 4.3.14-15 and
// the end of central directory record 4.3.16) with zlib's deflate and crc32 (through the Zlib
// wrapper), so tests need no external tools.

import Compression
import Foundation

public struct ZipFixture {
    public enum Method: Sendable {
        case stored, deflated
    }

    /// Where each member's local header starts, and where its data starts and ends, in `bytes`.
    public struct Placement: Sendable {
        public var name: String
        public var header: Int
        public var dataStart: Int
        public var dataEnd: Int
    }

    /// With zip64 (the default), every size and offset is in a zip64 extra field and the archive
    /// ends with the zip64 end records; without, they are in the 32-bit fields.
    public let zip64: Bool
    public private(set) var placements: [Placement] = []
    private var data: [UInt8] = []
    private var central: [UInt8] = []

    public init(zip64: Bool = true) {
        self.zip64 = zip64
    }

    /// Adds a file, deflated unless said otherwise; with `dataDescriptor`, its CRC and sizes follow
    /// its data (general purpose flag bit 3) instead of standing in its local header.
    public mutating func add(
        _ name: String, contents: [UInt8], method: Method = .deflated, dataDescriptor: Bool = false
    ) {
        add(name, size: UInt64(contents.count), method: method, dataDescriptor: dataDescriptor) { sink in
            sink(contents)
        }
    }

    /// Adds every regular file under `directory`, named `prefix/relative/path`.
    public mutating func addTree(_ directory: String, as prefix: String) throws {
        let url = URL(fileURLWithPath: directory)
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return }
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = url.appendingPathComponent(relative).path
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            add(prefix + "/" + relative, contents: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
    }

    /// Adds an entry of `zeros` zero bytes (compressed on the fly: a bomb when large).
    public mutating func addZeros(_ name: String, zeros: UInt64) {
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        add(name, size: zeros, method: .deflated, dataDescriptor: false) { sink in
            var left = zeros
            while left > 0 {
                let n = Int(min(UInt64(chunk.count), left))
                sink(Array(chunk[0..<n]))
                left -= UInt64(n)
            }
        }
    }

    private mutating func add(
        _ name: String, size: UInt64, method: Method, dataDescriptor: Bool, produce: (([UInt8]) -> Void) -> Void
    ) {
        var stored: [UInt8] = []
        var crc: UInt32 = 0
        switch method {
        case .stored:
            produce { chunk in
                crc = Zlib.crc32(crc, chunk)
                stored += chunk
            }
        case .deflated:
            guard let deflater = Zlib.Deflater(framing: .raw, level: 1) else {
                preconditionFailure("zlib could not start")
            }
            produce { chunk in
                crc = Zlib.crc32(crc, chunk)
                stored += deflater.update(chunk)
            }
            stored += deflater.finish()
        }
        let nameBytes = Array(name.utf8)
        let offset = UInt64(data.count)
        let version: UInt16 = zip64 ? 45 : 20
        let flags: UInt16 = dataDescriptor ? 0x0008 : 0
        let methodID: UInt16 = method == .stored ? 0 : 8
        let compressed = UInt64(stored.count)
        // The local header's CRC and sizes are zero when a data descriptor carries them.
        let (localCRC, localSize, localCompressed) = dataDescriptor ? (0, 0, 0) : (crc, size, compressed)
        // zip64 extra field: uncompressed, compressed sizes (local); plus offset (central).
        let local64 = zip64 ? le16(1) + le16(16) + le64(localSize) + le64(localCompressed) : []
        data += le32(0x0403_4B50) + le16(version) + le16(flags) + le16(methodID) + le16(0) + le16(0x21) + le32(localCRC)
        data += zip64 ? le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) : le32(UInt32(localCompressed)) + le32(UInt32(localSize))
        data += le16(UInt16(nameBytes.count)) + le16(UInt16(local64.count)) + nameBytes + local64
        let dataStart = data.count
        data += stored
        placements.append(Placement(name: name, header: Int(offset), dataStart: dataStart, dataEnd: data.count))
        if dataDescriptor {
            data += le32(0x0807_4B50) + le32(crc)
            data += zip64 ? le64(compressed) + le64(size) : le32(UInt32(compressed)) + le32(UInt32(size))
        }
        let central64 = zip64 ? le16(1) + le16(24) + le64(size) + le64(compressed) + le64(offset) : []
        central +=
            le32(0x0201_4B50) + le16(version) + le16(version) + le16(flags) + le16(methodID) + le16(0) + le16(0x21)
        central += le32(crc)
        central += zip64 ? le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) : le32(UInt32(compressed)) + le32(UInt32(size))
        central += le16(UInt16(nameBytes.count)) + le16(UInt16(central64.count)) + le16(0) + le16(0) + le16(0)
        central += le32(0o100644 << 16) + (zip64 ? le32(0xFFFF_FFFF) : le32(UInt32(offset))) + nameBytes + central64
    }

    /// Where the central directory starts in `bytes`.
    public var centralDirectoryOffset: Int { data.count }

    /// The archive, ending with its end records and `comment`.
    public func bytes(comment: [UInt8] = []) -> [UInt8] {
        let count = UInt64(placements.count)
        let centralOffset = UInt64(data.count)
        var out = data + central
        guard zip64 else {
            out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(count)) + le16(UInt16(count))
            out += le32(UInt32(central.count)) + le32(UInt32(centralOffset)) + le16(UInt16(comment.count)) + comment
            return out
        }
        let zip64End = UInt64(out.count)
        out += le32(0x0606_4B50) + le64(44) + le16(45) + le16(45) + le32(0) + le32(0) + le64(count)
        out += le64(count) + le64(UInt64(central.count)) + le64(centralOffset)
        out += le32(0x0706_4B50) + le32(0) + le64(zip64End) + le32(1)
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(0xFFFF) + le16(0xFFFF) + le32(0xFFFF_FFFF)
        out += le32(0xFFFF_FFFF) + le16(UInt16(comment.count)) + comment
        return out
    }

    /// The archive with its default ending (zip64 records, no comment).
    public var bytes: [UInt8] { bytes() }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    private func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (8 * UInt64($0))) & 0xFF) } }
}
