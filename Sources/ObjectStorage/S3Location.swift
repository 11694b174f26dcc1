// S3Location: a bucket and a key prefix, parsed from `s3://BUCKET[/PREFIX]` as `--store` and
// SYMBOLICATE_STORE take it. The prefix is kept as written apart from its slashes at either end
// (S3 keys are not paths: nothing else is normalized), and every key of the store is
// `prefix + relative key`.

import SymbolicateModel

public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public static let scheme = "s3://"

    public let bucket: String
    /// Empty, or the prefix followed by one `/` (`team-a/symbols/`).
    public let prefix: String

    /// The prefix without its closing `/` ("" for none). By bytes: a prepended mark (U+0600 to
    /// U+0605) is one character with the slash that follows it.
    public var folder: String { String(decoding: prefix.utf8.dropLast(), as: UTF8.self) }

    public init(bucket: String, prefix: String = "") throws(ObjectStorageError) {
        try S3Location.validate(bucket: bucket)
        // Bytes, not characters: a slash followed by a combining mark is one character.
        let slash = UInt8(ascii: "/")
        let bytes = prefix.utf8.drop { $0 == slash }.reversed().drop { $0 == slash }.reversed()
        guard !bytes.contains(0) else {
            throw ObjectStorageError(.invalidLocation, "the prefix holds a NUL byte", bucket: bucket)
        }
        self.bucket = bucket
        self.prefix = bytes.isEmpty ? "" : String(decoding: bytes, as: UTF8.self) + "/"
    }

    /// Parses `s3://BUCKET` or `s3://BUCKET/PREFIX`.
    public init(parsing text: String) throws(ObjectStorageError) {
        // Bytes, not characters, throughout: a slash followed by a combining mark is one character.
        guard S3Location.isBucketLocation(text) else {
            throw ObjectStorageError(
                .invalidLocation, "\(text) is not a bucket location: write s3://BUCKET or s3://BUCKET/PREFIX")
        }
        let rest = text[text.utf8.index(text.utf8.startIndex, offsetBy: S3Location.scheme.utf8.count)...]
        guard !rest.utf8.contains(UInt8(ascii: "?")), !rest.utf8.contains(UInt8(ascii: "#")) else {
            throw ObjectStorageError(
                .invalidLocation, "\(text): a bucket location takes no query or fragment (s3://BUCKET/PREFIX)")
        }
        let bucket: Substring
        let prefix: Substring
        if let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) {
            bucket = rest[..<slash]
            prefix = rest[rest.utf8.index(after: slash)...]
        } else {
            bucket = rest
            prefix = ""
        }
        try self.init(bucket: String(bucket), prefix: String(prefix))
    }

    /// True when `text` names a bucket (starts with `s3://`), so callers can tell it from a folder.
    public static func isBucketLocation(_ text: String) -> Bool { text.utf8.starts(with: scheme.utf8) }

    /// The full key of `relative` under this location's prefix.
    public func key(_ relative: String) -> String { prefix + relative }

    /// The key relative to the prefix, or nil when `key` is not under it.
    public func relativeKey(_ key: String) -> String? { S3Location.relativeKey(key, under: prefix) }

    /// `key` without `prefix`, or nil when it does not begin with it, by bytes as S3 lists keys
    /// (a listing's keys all begin with the prefix asked for; a key whose next scalar is a
    /// combining mark would not, as characters).
    public static func relativeKey(_ key: String, under prefix: String) -> String? {
        PathParts.relative(key, under: prefix)
    }

    public var description: String {
        prefix.isEmpty ? S3Location.scheme + bucket : S3Location.scheme + bucket + "/" + folder
    }

    /// AWS's bucket naming rules: 3-63 characters of lowercase letters, digits, dots and hyphens,
    /// beginning and ending with a letter or digit, no two dots in a row. (S3-compatible services
    /// accept the same set.)
    static func validate(bucket: String) throws(ObjectStorageError) {
        func refuse(_ why: String) -> ObjectStorageError {
            ObjectStorageError(
                .invalidLocation,
                "\"\(bucket)\" is not a bucket name: \(why) (3-63 lowercase letters, digits, '.' and '-')")
        }
        let bytes = Array(bucket.utf8)
        guard (3...63).contains(bytes.count) else { throw refuse("it has \(bytes.count) characters") }
        func alphanumeric(_ byte: UInt8) -> Bool { (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) }
        for byte in bytes where !(alphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")) {
            throw refuse("it holds \"\(String(decoding: [byte], as: UTF8.self))\"")
        }
        guard let first = bytes.first, let last = bytes.last, alphanumeric(first), alphanumeric(last) else {
            throw refuse("it must begin and end with a letter or digit")
        }
        guard !bucket.contains("..") else { throw refuse("it has two dots in a row") }
    }
}
