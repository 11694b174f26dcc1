// Which images of a report are Apple's system libraries: the ones every OS build ships in its
// dyld shared cache (`/System/...`, `/usr/lib/...`), whose symbols come from importing that
// cache rather than from the app's own dSYMs. A minimal definition by install path; images a
// report names without a path are not counted as system images.

public enum SystemImages {
    /// Install-path prefixes of the images a dyld shared cache holds.
    static let prefixes = ["/System/", "/usr/lib/", "/usr/libexec/", "/Library/Apple/System/"]

    /// True when `image`'s path says it is an OS library from the dyld shared cache.
    public static func isSystem(_ image: BinaryImage) -> Bool {
        guard let path = image.path else { return false }
        // iOS 16+ cryptex paths (`/System/Cryptexes/OS/System/...`) start with `/System/` too.
        return prefixes.contains { path.hasPrefix($0) }
    }
}
