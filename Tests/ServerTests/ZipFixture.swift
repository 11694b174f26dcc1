// Builds .zip archives for upload tests: real dSYM bundles, a zip-slip archive (`../` names) and a
// zip bomb (a few megabytes that inflate past a gigabyte). Written by hand (local headers, central
// directory, zip64 when needed) with zlib's deflate and crc32 (through the Zlib wrapper), so tests
// need no external tools.

import Foundation
import ObjectFiles

struct ZipFixture {
    private var data: [UInt8] = []
    private var central: [UInt8] = []
    private var count = 0

    /// Adds a file stored with deflate.
    mutating func add(_ name: String, contents: [UInt8]) {
        add(name, size: UInt64(contents.count)) { sink in sink(contents) }
    }

    /// Adds every regular file under `directory`, named `prefix/relative/path`.
    mutating func addTree(_ directory: String, as prefix: String) throws {
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
    mutating func addZeros(_ name: String, zeros: UInt64) {
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        add(name, size: zeros) { sink in
            var left = zeros
            while left > 0 {
                let n = Int(min(UInt64(chunk.count), left))
                sink(Array(chunk[0..<n]))
                left -= UInt64(n)
            }
        }
    }

    private mutating func add(_ name: String, size: UInt64, produce: (([UInt8]) -> Void) -> Void) {
        guard let deflater = Zlib.Deflater(framing: .raw, level: 1) else {
            preconditionFailure("zlib could not start")
        }
        var compressed: [UInt8] = []
        var crc: UInt32 = 0
        produce { chunk in
            crc = Zlib.crc32(crc, chunk)
            compressed += deflater.update(chunk)
        }
        compressed += deflater.finish()

        let nameBytes = Array(name.utf8)
        let offset = UInt64(data.count)
        // zip64 extra field: uncompressed, compressed sizes (local); plus offset (central).
        let local64 = le16(1) + le16(16) + le64(size) + le64(UInt64(compressed.count))
        data += le32(0x0403_4B50) + le16(45) + le16(0) + le16(8) + le16(0) + le16(0x21) + le32(crc)
        data += le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) + le16(UInt16(nameBytes.count)) + le16(UInt16(local64.count))
        data += nameBytes + local64 + compressed
        let central64 = le16(1) + le16(24) + le64(size) + le64(UInt64(compressed.count)) + le64(offset)
        central += le32(0x0201_4B50) + le16(45) + le16(45) + le16(0) + le16(8) + le16(0) + le16(0x21) + le32(crc)
        central += le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) + le16(UInt16(nameBytes.count)) + le16(UInt16(central64.count))
        central += le16(0) + le16(0) + le16(0) + le32(0o100644 << 16) + le32(0xFFFF_FFFF) + nameBytes + central64
        count += 1
    }

    var bytes: [UInt8] {
        let centralOffset = UInt64(data.count)
        var out = data + central
        let zip64End = UInt64(out.count)
        out += le32(0x0606_4B50) + le64(44) + le16(45) + le16(45) + le32(0) + le32(0) + le64(UInt64(count))
        out += le64(UInt64(count)) + le64(UInt64(central.count)) + le64(centralOffset)
        out += le32(0x0706_4B50) + le32(0) + le64(zip64End) + le32(1)
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(0xFFFF) + le16(0xFFFF) + le32(0xFFFF_FFFF)
        out += le32(0xFFFF_FFFF) + le16(0)
        return out
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    private func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (8 * UInt64($0))) & 0xFF) } }
}
