// ArchiveNames: the rules for member names, in one place. An archive is never extracted by name,
// but a name is still someone else's path: an import refuses an archive that holds one climbing
// out of its folder, and a batch run uses the name for an output file, so it keeps only the
// parts that stay inside the output folder.

import SymbolicateModel

public enum ArchiveNames {
    /// False for names that would climb out of an extraction folder: absolute paths, `..`
    /// components, NUL bytes, Windows drive letters. Slashes are bytes (see PathParts): one
    /// followed by a combining mark still separates.
    public static func isSafe(_ name: String) -> Bool {
        let first = name.utf8.first
        return
            !(first == UInt8(ascii: "/") || first == UInt8(ascii: "\\")
            || PathParts.split(name, backslash: true).contains("..") || name.utf8.contains(0)
            || (name.count >= 2 && name.dropFirst().first == ":" && name.first?.isLetter == true))
    }

    /// A relative path without empty, `.` or `..` components (either slash separates), nor one
    /// holding a NUL byte (the file system would read the name only up to it); nil when nothing
    /// is left.
    public static func sanitize(_ path: String) -> String? {
        let parts = PathParts.split(path, backslash: true).filter { $0 != "." && $0 != ".." && !$0.utf8.contains(0) }
        guard !parts.isEmpty else { return nil }
        return parts.joined(separator: "/")
    }
}
