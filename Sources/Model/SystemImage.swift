// SystemImage: the one definition of an operating-system image, shared by everything that
// treats them apart (`--strict` does not fail on them; dyld shared cache support reads its
// images by it): an image whose path is under /System, /usr/lib or /usr/libexec, the places
// the dyld shared cache's images live, also inside a cryptex (`/private/preboot/Cryptexes/OS/...`
// on iOS 16 and later, `/System/Cryptexes/OS/...` on macOS 13 and later) or a simulator runtime's
// root (`.../RuntimeRoot/usr/lib/...`).

public enum SystemImage {
    /// Where system images live, as a report prints their paths.
    public static let pathPrefixes = ["/System/", "/usr/lib/", "/usr/libexec/", "/Library/Apple/System/"]

    /// The folders a cryptex's and a simulator runtime's images sit under; what follows is a
    /// system path as above.
    static let rootMarkers = ["/Cryptexes/OS/", "/RuntimeRoot/"]

    /// True when `path` names a system image.
    public static func isSystem(path: String?) -> Bool {
        guard var path, !path.isEmpty else { return false }
        for marker in rootMarkers {
            if let start = path.indices.first(where: { path[$0...].hasPrefix(marker) }) {
                path = "/" + path[path.index(start, offsetBy: marker.count)...]
            }
        }
        return pathPrefixes.contains { path.hasPrefix($0) }
    }

    /// True when `image` is a system image: by its path, the only thing a report says of it.
    public static func isSystem(_ image: BinaryImage) -> Bool {
        isSystem(path: image.path)
    }
}
