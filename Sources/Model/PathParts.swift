// PathParts: paths and object keys cut at their slashes, by bytes. A Swift String compares and
// splits by characters, and a slash followed by a combining mark (U+0301, a variation selector,
// a zero-width joiner) is one character with it, not a slash: `"a/\u{301}b".split(separator: "/")`
// is one part, and `"/\u{301}b".hasPrefix("/")` is false. The file system and S3 see the bytes,
// so every rule about a path's parts (the folder to create, whether a name climbs out with `..`,
// the name of a file) reads them here.

public enum PathParts {
    /// The parts between slashes (and backslashes, with `backslash`), empty ones left out:
    /// `/a//b/` -> `a`, `b`.
    public static func split(_ path: String, backslash: Bool = false) -> [String] {
        path.utf8.split { $0 == slash || (backslash && $0 == backslashByte) }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// The last non-empty part (`a/b/` -> `b`); nil when there is none (`/`, the empty path).
    public static func last(_ path: String) -> String? {
        let bytes = path.utf8
        guard let end = bytes.lastIndex(where: { $0 != slash }) else { return nil }
        let start = bytes[..<end].lastIndex(of: slash).map { bytes.index(after: $0) } ?? bytes.startIndex
        return String(decoding: bytes[start...end], as: UTF8.self)
    }

    /// What follows the last slash (and backslash, with `backslash`): `a/b` -> `b`, `a/` -> the
    /// empty name; the whole path without one.
    public static func name(_ path: String, backslash: Bool = false) -> String {
        // Over the contiguous UTF-8 when the String has it (a native one does): a walk back
        // without the view's index arithmetic.
        let fast = path.utf8.withContiguousStorageIfAvailable { b -> String in
            var i = b.count
            while i > 0, b[i - 1] != slash, !(backslash && b[i - 1] == backslashByte) { i -= 1 }
            return i == 0 ? path : String(decoding: UnsafeBufferPointer(rebasing: b[i...]), as: UTF8.self)
        }
        if let fast { return fast }
        let bytes = path.utf8
        guard let last = bytes.lastIndex(where: { $0 == slash || (backslash && $0 == backslashByte) }) else {
            return path
        }
        return String(decoding: bytes[bytes.index(after: last)...], as: UTF8.self)
    }

    /// What precedes the last slash: `.` without one, `/` for a path right under the root.
    public static func parent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: slash) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(decoding: path.utf8[..<slash], as: UTF8.self)
    }

    /// What follows `prefix` in `path`, or nil when `path` does not begin with its bytes (`a/b`
    /// under `a/` -> `b`). By bytes: `/` and a combining mark are one character, and `a/` is
    /// still a prefix of `a/\u{301}b`.
    public static func relative(_ path: String, under prefix: String) -> String? {
        guard path.utf8.starts(with: prefix.utf8) else { return nil }
        return String(decoding: path.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }

    /// True when the first byte is a slash.
    public static func isAbsolute(_ path: String) -> Bool { path.utf8.first == slash }

    private static let slash = UInt8(ascii: "/")
    private static let backslashByte = UInt8(ascii: "\\")
}
