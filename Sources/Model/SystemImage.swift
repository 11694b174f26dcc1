// SystemImage: the one definition of an operating-system image, shared by everything that
// treats them apart (`--strict` does not fail on them; dyld shared cache support reads its
// images by it): an image whose path is under /System, /usr/lib or /usr/libexec, the places
// the dyld shared cache's images live, also inside a cryptex (`/private/preboot/Cryptexes/OS/...`
// on iOS 16 and later, `/System/Cryptexes/OS/...` on macOS 13 and later).

public enum SystemImage {
    /// Where system images live, as a report prints their paths.
    public static let pathPrefixes = ["/System/", "/usr/lib/", "/usr/libexec/", "/Library/Apple/System/"]

    /// The folder a cryptex's images sit under; what follows is a system path as above.
    static let cryptexMarker = "/Cryptexes/OS/"

    /// True when `path` names a system image.
    public static func isSystem(path: String?) -> Bool {
        guard var path, !path.isEmpty else { return false }
        if let start = path.indices.first(where: { path[$0...].hasPrefix(cryptexMarker) }) {
            path = "/" + path[path.index(start, offsetBy: cryptexMarker.count)...]
        }
        return pathPrefixes.contains { path.hasPrefix($0) }
    }

    /// True when `image` is a system image: by its path, the only thing a report says of it.
    public static func isSystem(_ image: BinaryImage) -> Bool {
        isSystem(path: image.path)
    }
}
