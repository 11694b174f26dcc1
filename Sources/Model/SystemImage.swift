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

    /// True when `path` names a system image. Compares UTF-8 bytes: it runs for every image of
    /// every report, and String's character-wise search cost more than the rest of the check.
    public static func isSystem(path: String?) -> Bool {
        guard let path, !path.isEmpty else { return false }
        var bytes = Array(path.utf8)
        for marker in rootMarkers {
            let m = Array(marker.utf8)
            guard bytes.count >= m.count else { continue }
            if let start = (0...(bytes.count - m.count)).first(where: { bytes[$0..<$0 + m.count].elementsEqual(m) }) {
                bytes = [UInt8(ascii: "/")] + bytes[(start + m.count)...]
            }
        }
        return pathPrefixes.contains { bytes.starts(with: $0.utf8) }
    }

    /// True when `image` is a system image: by its path, the only thing a report says of it.
    public static func isSystem(_ image: BinaryImage) -> Bool {
        isSystem(path: image.path)
    }
}
