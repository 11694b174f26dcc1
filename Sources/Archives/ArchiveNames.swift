// ArchiveNames: the rules for member names, in one place. An archive is never extracted by name,
// but a name is still someone else's path: an import refuses an archive that holds one climbing
// out of its folder, and a batch run uses the name for an output file, so it keeps only the
// parts that stay inside the output folder.

public enum ArchiveNames {
    /// False for names that would climb out of an extraction folder: absolute paths, `..`
    /// components, NUL bytes, Windows drive letters.
    public static func isSafe(_ name: String) -> Bool {
        let parts = name.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        return
            !(name.hasPrefix("/") || name.hasPrefix("\\") || parts.contains("..") || name.contains("\0")
            || (name.count >= 2 && name.dropFirst().first == ":" && name.first?.isLetter == true))
    }

    /// A relative path without empty, `.` or `..` components (either slash separates); nil when
    /// nothing is left.
    public static func sanitize(_ path: String) -> String? {
        let parts = path.split(whereSeparator: { $0 == "/" || $0 == "\\" })
            .filter { $0 != "." && $0 != ".." && !$0.isEmpty }
        guard !parts.isEmpty else { return nil }
        return parts.joined(separator: "/")
    }
}
