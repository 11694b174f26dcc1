// SHA-256 and HMAC-SHA-256 for the places that need a digest: object-storage request signing
// (AWS Signature Version 4), token fingerprints and crash-group ids. Nettle does the work (Debian's
// libnettle, which libarchive already links); this file is the only one that imports it, and no
// nettle type appears in a signature.

internal import CNettle

/// An incremental SHA-256: `update` any number of times, then `finalize` once.
public struct SHA256: ~Copyable {
    private var context = sha256_ctx()

    public init() { nettle_sha256_init(&context) }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var h = SHA256()
        h.update(bytes)
        return h.finalize()
    }

    /// The digest as lowercase hexadecimal, as Signature V4 and fingerprints print it.
    public static func hex(_ bytes: [UInt8]) -> String { hexString(hash(bytes)) }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        nettle_sha256_update(&context, bytes.count, base.assumingMemoryBound(to: UInt8.self))
    }

    /// The 32-byte digest; the hash starts over afterwards.
    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
        digest.withUnsafeMutableBufferPointer { nettle_sha256_digest(&context, $0.count, $0.baseAddress) }
        return digest
    }
}

/// HMAC-SHA-256 of `message` under `key` (RFC 2104).
public func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var context = hmac_sha256_ctx()
    key.withUnsafeBufferPointer { nettle_hmac_sha256_set_key(&context, $0.count, $0.baseAddress) }
    message.withUnsafeBufferPointer { nettle_hmac_sha256_update(&context, $0.count, $0.baseAddress) }
    var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
    digest.withUnsafeMutableBufferPointer { nettle_hmac_sha256_digest(&context, $0.count, $0.baseAddress) }
    return digest
}

/// Lowercase hexadecimal of `bytes`.
public func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0xf)])
    }
    return String(decoding: out, as: UTF8.self)
}
