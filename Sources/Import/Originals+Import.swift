// Keeping originals at import: after `importPaths`, each file that gave builds (imported or
// already present) is stored as it was, under the build ids it holds, as `debuginfo` when its
// build has DWARF and `executable` otherwise. A dSYM bundle's original is its DWARF file (the
// file the build was read from). A member of a .zip / .tar archive (`dSYMs.zip:App.app.dSYM/...`,
// an upload to the server) is read from the archive again and kept as the member's bytes; a member
// of an archive inside an archive is not kept (it is reported). A failure to keep a file is
// reported beside the import's own failures and leaves no record: the blob goes in before the
// records that name it.

import Archives
import Foundation
import Store
import SymbolicateModel
import SystemSupport

extension Originals {
    /// Keeps the files `summary`'s builds were read from; answers the failures.
    public func keep(from summary: ImportSummary) -> [ImportSummary.Failure] {
        var builds: [String: [(BuildID, OriginalKind)]] = [:]
        var order: [String] = []
        for item in summary.imported + summary.alreadyPresent {
            let kind: OriginalKind = item.kind == .debugInfo ? .debuginfo : .executable
            if builds[item.source] == nil { order.append(item.source) }
            if builds[item.source, default: []].contains(where: { $0.0 == item.uuid && $0.1 == kind }) { continue }
            builds[item.source, default: []].append((item.uuid, kind))
        }
        var failures: [ImportSummary.Failure] = []
        func failed(_ source: String, _ error: any Error) {
            let e = SymbolicateError.wrapping(error)
            failures.append(
                .init(
                    path: source,
                    error: SymbolicateError(
                        e.code, "imported, but its original could not be kept: \(e.message)", path: source)))
        }
        // Archive members, by archive, in the order their archives came.
        var members: [String: [String: [(BuildID, OriginalKind)]]] = [:]
        var archives: [String] = []
        for source in order {
            if Self.isRegularFile(source) {
                do {
                    try keep(source, for: builds[source] ?? [])
                } catch {
                    failed(source, error)
                }
            } else if let (archive, member) = Self.archiveMember(source) {
                if members[archive] == nil { archives.append(archive) }
                members[archive, default: [:]][member] = builds[source] ?? []
            }
        }
        for archive in archives {
            let wanted = members[archive] ?? [:]
            var kept = Set<String>()
            do {
                try keepMembers(of: archive, wanted) { kept.insert($0) }
            } catch {
                for member in wanted.keys.sorted() where !kept.contains(member) {
                    failed(archive + ":" + member, error)
                }
                continue
            }
            for member in wanted.keys.sorted() where !kept.contains(member) {
                failed(
                    archive + ":" + member,
                    SymbolicateError(
                        .unsupported,
                        "it is a member of an archive inside the archive; import that archive on its own to keep it"))
            }
        }
        return failures
    }

    /// `archive.zip:member/path` as the archive (a regular file) and the member's name in it.
    static func archiveMember(_ source: String) -> (archive: String, member: String)? {
        var index = source.startIndex
        while let colon = source[index...].firstIndex(of: ":") {
            let archive = String(source[..<colon])
            let member = String(source[source.index(after: colon)...])
            if isRegularFile(archive), !member.isEmpty { return (archive, member) }
            index = source.index(after: colon)
        }
        return nil
    }

    /// Reads `archive` once and keeps each member `wanted` names as the original of its builds;
    /// `kept` hears each member kept.
    func keepMembers(
        of archive: String, _ wanted: [String: [(BuildID, OriginalKind)]], kept: (String) -> Void
    ) throws {
        let reader = try ArchiveReader.forImport(path: archive, limits: ArchiveImportLimits())
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var remaining = wanted.count
        while remaining > 0, let entry = try reader.nextForImport() {
            guard entry.type == .file, let builds = wanted[entry.name] else { continue }
            let copy = try TemporaryFile(in: NSTemporaryDirectory(), suffix: ".original")
            while true {
                let n = try buffer.withUnsafeMutableBytes { try reader.readForImport(into: $0) }
                if n == 0 { break }
                try buffer.withUnsafeBytes { try copy.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
            try keep(copy.path, name: PathParts.last(entry.name) ?? entry.name, for: builds)
            kept(entry.name)
            remaining -= 1
        }
    }

    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
}
