// Keeping originals at import: after `importPaths`, each plain file that gave builds (imported or
// already present) is stored as it was, under the build ids it holds, as `debuginfo` when its
// build has DWARF and `executable` otherwise. A dSYM bundle's original is its DWARF file (the
// file the build was read from). Members of .zip / .tar archives are not plain files and are not
// kept. A failure to keep a file is reported beside the import's own failures and leaves no
// record: the blob goes in before the records that name it.

import Foundation
import SymbolicateModel

extension Originals {
    /// Keeps the files `summary`'s builds were read from; answers the failures.
    public func keep(from summary: ImportSummary) -> [ImportSummary.Failure] {
        var builds: [String: [(BuildID, OriginalKind)]] = [:]
        var order: [String] = []
        for item in summary.imported + summary.alreadyPresent {
            guard Self.isRegularFile(item.source) else { continue }
            let kind: OriginalKind = item.kind == .debugInfo ? .debuginfo : .executable
            if builds[item.source] == nil { order.append(item.source) }
            if builds[item.source, default: []].contains(where: { $0.0 == item.uuid && $0.1 == kind }) { continue }
            builds[item.source, default: []].append((item.uuid, kind))
        }
        var failures: [ImportSummary.Failure] = []
        for source in order {
            do {
                try keep(source, for: builds[source] ?? [])
            } catch {
                let e = SymbolicateError.wrapping(error)
                failures.append(
                    .init(
                        path: source,
                        error: SymbolicateError(
                            e.code, "imported, but its original could not be kept: \(e.message)", path: source)))
            }
        }
        return failures
    }

    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
}
