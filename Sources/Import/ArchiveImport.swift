// What an import accepts from an archive, and how the archive reader's errors read in the store's
// terms. Archives are read by the Archives target's ArchiveReader under the import's policy:
// an entry named with `..` or an absolute path refuses the archive (we never extract by name,
// but such an archive is not one we should trust), any damaged member refuses it too (an archive
// is imported as a whole), and so does an expansion bomb: more than `maxEntries` entries, or
// more uncompressed bytes than both `expansionRatio` times the archive's size and
// `expansionFloor`.

import Archives
import Store
import SymbolicateModel

extension ArchiveImportLimits {
    /// The reader's policy for an import: refuse unsafe names, any damage, and bombs.
    var policy: ArchiveReader.Policy {
        ArchiveReader.Policy(
            names: .refuseUnsafe, memberErrors: .fatal,
            limits: ArchiveReader.Limits(
                maxEntries: maxEntries, expansionRatio: expansionRatio, expansionFloor: expansionFloor))
    }
}

extension SymbolicateError {
    /// The store's error for an archive that cannot be imported.
    init(_ error: ArchiveError) {
        switch error.code {
        case .tooManyEntries, .expansionBomb:
            self.init(.limit, error.message, path: error.path)
        case .resources:
            self.init(.internal, error.message, path: error.path)
        case .libraryMissing:
            self.init(.notFound, error.message, path: error.path)
        case .damagedHeader, .damagedData:
            let place = error.member.map { " in \($0)" } ?? ""
            self.init(.badInput, "the archive is damaged\(place): \(error.detail)", path: error.path)
        default:
            self.init(.badInput, error.message, path: error.path)
        }
    }
}

extension ArchiveReader {
    /// Opens an archive for an import (or `symbolicate upload`), with the store's errors.
    public static func forImport(path: String, limits: ArchiveImportLimits) throws(SymbolicateError) -> ArchiveReader {
        do {
            return try ArchiveReader(path: path, policy: limits.policy)
        } catch {
            throw SymbolicateError(error)
        }
    }

    /// The next entry, with the store's errors.
    public func nextForImport() throws(SymbolicateError) -> Entry? {
        do {
            return try next()
        } catch {
            throw SymbolicateError(error)
        }
    }

    /// Reads the current entry's data, with the store's errors.
    public func readForImport(into buffer: UnsafeMutableRawBufferPointer) throws(SymbolicateError) -> Int {
        do {
            return try read(into: buffer)
        } catch {
            throw SymbolicateError(error)
        }
    }
}
