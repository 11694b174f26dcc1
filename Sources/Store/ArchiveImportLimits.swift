// What an import accepts from an archive (the Import target turns these into the archive
// reader's policy): at most `maxEntries` entries, and no more uncompressed bytes than both
// `expansionRatio` times the archive's size and `expansionFloor`.

public struct ArchiveImportLimits: Sendable {
    package var maxEntries = 100_000
    package var expansionRatio: Int64 = 20
    package var expansionFloor: Int64 = 1 << 30
    /// Members up to this size are read into memory; larger ones are spooled to a file.
    package var memberMemoryLimit = 16 << 20

    public init() {}
}
