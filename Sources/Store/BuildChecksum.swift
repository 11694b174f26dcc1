// BuildChecksum: the SHA-256 of a build file, recorded when the build is published (a catalog
// row, a bucket entry) and compared whenever the file is read whole (`verify`, a replica's
// fetch into its cache). SQLite notices a damaged page header, but not a flipped bit in a name or
// an address range: only the checksum turns that into "damaged" instead of a wrong answer.

import SymbolicateModel

enum BuildChecksum {
    /// The lowercase hex SHA-256 of the file at `path`.
    static func of(file path: String) throws -> String {
        try BlobStore.key(ofFile: path).key.digest
    }

    /// Throws `.io` naming both digests when the file at `path` is not the one published as
    /// `expected` (nil: nothing recorded, nothing to compare).
    static func check(_ path: String, expected: String?, what: String) throws {
        guard let expected else { return }
        let found = try of(file: path)
        guard found == expected.lowercased() else {
            throw SymbolicateError(
                .io,
                "\(what) is damaged: its SHA-256 is \(found) and it was published as \(expected.lowercased()); "
                    + "import the build again",
                path: path)
        }
    }
}
