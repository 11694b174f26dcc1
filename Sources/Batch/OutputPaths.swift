// OutputPaths: how a report's place in the input becomes its place in the output, and how the
// shard of a report is chosen. Three rules, each deterministic so that N machines running the
// same command agree on every name without talking to each other:
//
// 1. Sanitizing: a member path or listed path loses empty, `.` and `..` components and any
//    leading `/` (a hostile archive cannot write outside the output folder); `\` counts as `/`.
// 2. Collisions: names are handed out in input order. A name already handed out in this run
//    gets, when several INPUTs were given, the input's base name as a first folder
//    (`reports.zip` -> `reports/...`); if that is taken too, or there is one INPUT, a `~2`,
//    `~3`, ... before the extension. A file and a folder never share a name: a name that is an
//    earlier file's folder is numbered, and so is a folder that is an earlier file's name
//    (`a/b.crash` after a file `a` becomes `a~2/b.crash`). Only 64-bit hashes of the names and
//    their folders are kept.
// 3. Format: with `--format F`, a name ending in .crash, .ips, .json or .txt takes F's extension
//    instead; other names get `.F` appended. Without `--format` the name is kept.
// 4. Length: in an output folder, a name whose file or folder part is longer than the file system
//    allows (NAME_MAX, 255 bytes, less room for the temporary name written beside it) cannot be
//    written; its report is skipped with that reason, and the run goes on.
//
// The shard of a report is a stable 64-bit hash (FNV-1a, then a SplitMix64 finalizer for an
// even spread) of its sanitized path inside its input, modulo N.

import Archives
import SymbolicateModel
import Symbolication

enum OutputPaths {
    /// Longest file or folder name of an output in an output folder, in UTF-8 bytes: NAME_MAX
    /// (255) less room for the `.NAME.partial-PID-N` temporary name the output is written under.
    static let maxNameBytes = 255 - 40

    /// Why `path` cannot be an output file's relative path in a folder, or nil when it can.
    static func unwritableReason(_ path: String) -> String? {
        guard let longest = PathParts.split(path).map(\.utf8.count).max(), longest > maxNameBytes else {
            return nil
        }
        return "name too long for an output file (\(longest) bytes in one part of the path; at most \(maxNameBytes))"
    }

    /// The path with every unsafe component removed; nil when nothing is left.
    static func sanitize(_ path: String) -> String? {
        ArchiveNames.sanitize(path)
    }

    static let reportExtensions: Set<String> = ["crash", "ips", "json", "txt"]

    /// The output name of a report at `path` rendered in `format` (nil: the input's own format).
    static func outputName(_ path: String, format: OutputFormat?) -> String {
        guard let format else { return path }
        let (stem, ext) = splitExtension(path)
        if let ext, reportExtensions.contains(ext.lowercased()) {
            return stem + "." + format.rawValue
        }
        return path + "." + format.rawValue
    }

    /// `a/b/x.crash` -> (`a/b/x`, `crash`); `a/b.d/x` -> (`a/b.d/x`, nil); `.hidden` has no extension.
    static func splitExtension(_ path: String) -> (stem: String, ext: String?) {
        let nameStart = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path.utf8.index(after: $0) } ?? path.startIndex
        guard let dot = path[nameStart...].lastIndex(of: "."), dot > nameStart else { return (path, nil) }
        return (String(path[..<dot]), String(path[path.index(after: dot)...]))
    }

    /// The base name an input contributes when its outputs need a folder of their own:
    /// the last path component without an archive extension.
    static func inputBaseName(_ input: String) -> String {
        let name = sanitize(input).flatMap(PathParts.last) ?? "input"
        let lower = name.lowercased()
        for ext in [".tar.gz", ".tgz", ".zip", ".tar"] where lower.hasSuffix(ext) && lower.count > ext.count {
            return String(name.dropLast(ext.count))
        }
        return name
    }

    /// True for names libarchive should read as an archive of reports.
    static func isArchiveName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".zip") || lower.hasSuffix(".tar") || lower.hasSuffix(".tar.gz")
            || lower.hasSuffix(".tgz")
    }

    /// FNV-1a over the UTF-8 bytes, finished with SplitMix64's mixer.
    static func stableHash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01b3
        }
        h ^= h >> 30
        h = h &* 0xbf58_476d_1ce4_e5b9
        h ^= h >> 27
        h = h &* 0x94d0_49bb_1331_11eb
        h ^= h >> 31
        return h
    }
}

/// Hands out unique output names in input order (rule 2 above). Used by the reader thread only.
struct PathAllocator {
    /// Names handed out (output files) and the folders they make, by stable hash.
    private var files = Set<UInt64>()
    private var folders = Set<UInt64>()
    let multipleInputs: Bool

    init(multipleInputs: Bool) {
        self.multipleInputs = multipleInputs
    }

    mutating func allocate(_ name: String, inputBase: String) -> String {
        if claim(name) { return name }
        var candidate = name
        if multipleInputs {
            let prefixed = inputBase + "/" + name
            if claim(prefixed) { return prefixed }
            if blockedFolder(prefixed) == nil { candidate = prefixed }
        }
        // A number on the name, or on its first folder that is an earlier file's name (`a` taken
        // as a file: `a/b.crash` becomes `a~2/b.crash`).
        var parts = PathParts.split(candidate)
        guard !parts.isEmpty else { return candidate }
        let target = blockedFolder(candidate) ?? parts.count - 1
        let (stem, ext) = target == parts.count - 1 ? OutputPaths.splitExtension(parts[target]) : (parts[target], nil)
        var n = 2
        while true {
            parts[target] = stem + "~\(n)" + (ext.map { "." + $0 } ?? "")
            let numbered = parts.joined(separator: "/")
            if claim(numbered) { return numbered }
            n += 1
        }
    }

    /// The index of the first folder of `name` that an earlier file has taken, if any.
    private func blockedFolder(_ name: String) -> Int? {
        let parts = PathParts.split(name)
        return (0..<max(0, parts.count - 1)).first {
            files.contains(OutputPaths.stableHash(parts[0...$0].joined(separator: "/")))
        }
    }

    /// Takes `name` when no file or folder has it and no earlier file is one of its folders.
    private mutating func claim(_ name: String) -> Bool {
        let hash = OutputPaths.stableHash(name)
        guard !files.contains(hash), !folders.contains(hash) else { return false }
        let parts = PathParts.split(name)
        var ancestors: [UInt64] = []
        for i in 0..<max(0, parts.count - 1) {
            let folder = OutputPaths.stableHash(parts[0...i].joined(separator: "/"))
            if files.contains(folder) { return false }
            ancestors.append(folder)
        }
        files.insert(hash)
        folders.formUnion(ancestors)
        return true
    }
}

/// `--shard I/N`: this run takes the reports whose path hash is I modulo N.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws(SymbolicateError) {
        guard count >= 1, index >= 0, index < count else {
            throw SymbolicateError(.badInput, "a shard is I/N with 0 <= I < N, got \(index)/\(count)")
        }
        self.index = index
        self.count = count
    }

    /// Parses `I/N` (`0/4`, `3/4`).
    public init(parsing text: String) throws(SymbolicateError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw SymbolicateError(.badInput, "a shard is written I/N (e.g. 0/4), got '\(text)'")
        }
        try self.init(index: i, count: n)
    }

    /// True when the report at this sanitized path (inside its input) belongs to this shard.
    public func contains(_ relativePath: String) -> Bool {
        OutputPaths.stableHash(relativePath) % UInt64(count) == UInt64(index)
    }

    public var description: String { "\(index)/\(count)" }
}
