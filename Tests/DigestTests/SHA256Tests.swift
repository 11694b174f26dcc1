// The Digest wrapper's SHA-256 and HMAC-SHA-256 against the published vectors (FIPS 180-4 examples, RFC 4231) and against
// coreutils' sha256sum on inputs of every length around the block boundaries.

import Digest
import Foundation
import TestSupport
import Testing

struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func publishedVectors(input: String, digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    @Test func incrementalUpdatesEqualOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for split in [0, 1, 55, 56, 63, 64, 65, 127, 128, 999, 1000] {
            var h = SHA256()
            bytes[..<split].withUnsafeBytes { h.update($0) }
            h.update(Array(bytes[split...]))
            #expect(hexString(h.finalize()) == SHA256.hex(bytes), "split at \(split)")
        }
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum"), "sha256sum is not installed"))
    func agreesWithSHA256SumAroundBlockBoundaries() throws {
        for length in [0, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 70_000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ length) }
            let text = try ProcessRunner.run("/usr/bin/sha256sum", stdin: bytes).stdoutText
            #expect(text.hasPrefix(SHA256.hex(bytes) + " "), "length \(length)")
        }
    }

    /// RFC 4231, test cases 1, 2, 4 and 6 (a key longer than the block).
    @Test func hmacVectors() {
        func bytes(_ hex: String) -> [UInt8] {
            var out: [UInt8] = []
            var i = hex.startIndex
            while i < hex.endIndex {
                let j = hex.index(i, offsetBy: 2)
                out.append(UInt8(hex[i..<j], radix: 16) ?? 0)
                i = j
            }
            return out
        }
        #expect(
            hexString(hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            hexString(hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            hexString(
                hmacSHA256(
                    key: bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"),
                    message: [UInt8](repeating: 0xcd, count: 50)))
                == "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
        #expect(
            hexString(
                hmacSHA256(
                    key: [UInt8](repeating: 0xaa, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
