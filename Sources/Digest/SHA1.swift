// SHA-1, for the one place a protocol names it: sentry-cli's chunked uploads address every chunk,
// and every file they assemble, by the SHA-1 of its bytes (`hashAlgorithm: sha1`). Nothing of our
// own is signed or trusted on a SHA-1; chunk names are only checked against their bytes. Nettle
// does the work, as for SHA-256.

internal import CNettle

/// An incremental SHA-1: `update` any number of times, then `finalize` once.
public struct SHA1: ~Copyable {
    private var context = sha1_ctx()

    public init() { nettle_sha1_init(&context) }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var h = SHA1()
        h.update(bytes)
        return h.finalize()
    }

    /// The digest as 40 lowercase hex digits, as sentry-cli names chunks.
    public static func hex(_ bytes: [UInt8]) -> String { hexString(hash(bytes)) }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        nettle_sha1_update(&context, bytes.count, base.assumingMemoryBound(to: UInt8.self))
    }

    /// The 20-byte digest; the hash starts over afterwards.
    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA1_DIGEST_SIZE))
        digest.withUnsafeMutableBufferPointer { nettle_sha1_digest(&context, $0.count, $0.baseAddress) }
        return digest
    }
}
