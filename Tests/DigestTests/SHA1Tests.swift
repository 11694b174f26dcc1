// The Digest wrapper's SHA-1 against the FIPS 180-4 examples and coreutils' sha1sum, on inputs of
// every length around the block boundaries.

import Digest
import Foundation
import TestSupport
import Testing

struct SHA1Tests {
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func publishedVectors(input: String, digest: String) {
        #expect(SHA1.hex(Array(input.utf8)) == digest)
    }

    @Test func agreesWithSha1sum() throws {
        let bytes = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sha1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for length in [0, 1, 55, 56, 63, 64, 65, 127, 128, 200] {
            let file = folder.appendingPathComponent("\(length)")
            try Data(bytes.prefix(length)).write(to: file)
            let result = try ProcessRunner.run("/usr/bin/sha1sum", [file.path])
            let expected = String(result.stdoutText.prefix(40))
            var h = SHA1()
            bytes.prefix(length).withUnsafeBytes { h.update($0) }
            #expect(hexString(h.finalize()) == expected, "length \(length)")
        }
    }
}
