// The values the symbol store hands out: a catalog row (StoredBuild), what an import did
// (ImportOutcome, ImportProgress, ImportSummary), what a check found (VerifyReport), and the
// figures the server exports as metrics (StoreStatistics). Plain Sendable structs, so the CLI
// and the server can print or serialize them without touching the store's internals.

import Foundation
import SymbolicateModel

/// The state of one build as the catalog and the file system see it.
public enum BuildStatus: String, Sendable, Hashable {
    /// The build file is in place and of the current schema version.
    case ready
    /// The catalog lists the build but its file is gone: re-import it.
    case missing
    /// The build file was written by another schema version: re-import it.
    case outdated
    /// The build file cannot be read as a build file: re-import it.
    case damaged
}

/// One build in the store: one row of the catalog. The build itself is a BuildInfo (the one
/// build type: identity, image name, `__TEXT` range, kind, and the path it was imported from);
/// the rest is what the store knows of it. Its fields read as the build's own (`uuid`, `name`,
/// `sourcePath` for `build.path`). The bucket's per-build JSON (BuildMetadata) is this row's
/// wire format, not another build type.
public struct StoredBuild: Sendable, Hashable {
    public var build: BuildInfo
    public var importedAt: Date
    /// When a lookup last opened the build (tracked at most hourly), or nil when never.
    public var lastUsedAt: Date?
    /// Size of the build file on disk.
    public var byteSize: Int64
    public var status: BuildStatus
    /// Schema version the build file was written with.
    public var schemaVersion: Int
    /// Path of the build file, relative to the store folder (`builds/<UUID>-<arch>.sqlite`).
    public var file: String
    /// The build file's checksum as it was published (a CRC-32; a SHA-256 for builds published
    /// by releases that recorded that), or nil for a build published before checksums were
    /// recorded: `verify`, a server's first open and a bucket replica's fetch compare the file
    /// with it, so a changed byte is damage, never a different answer.
    public var checksum: BuildChecksum?
    /// Where the build came from when a file path does not say it all: an image of a dyld shared
    /// cache (the cache's UUID and OS version, the image's path). Nil for other builds.
    public var origin: BuildOrigin?

    public init(
        build: BuildInfo, importedAt: Date, lastUsedAt: Date?, byteSize: Int64, status: BuildStatus,
        schemaVersion: Int, file: String, checksum: BuildChecksum? = nil, origin: BuildOrigin? = nil
    ) {
        self.build = build
        self.importedAt = importedAt
        self.lastUsedAt = lastUsedAt
        self.byteSize = byteSize
        self.status = status
        self.schemaVersion = schemaVersion
        self.file = file
        self.checksum = checksum
        self.origin = origin
    }

    public init(
        uuid: BuildID, arch: Arch, name: String, kind: SymbolKind, textVMAddress: UInt64, textSize: UInt64,
        sourcePath: String, importedAt: Date, lastUsedAt: Date?, byteSize: Int64, status: BuildStatus,
        schemaVersion: Int, file: String, checksum: BuildChecksum? = nil, origin: BuildOrigin? = nil
    ) {
        self.init(
            build: BuildInfo(
                uuid: uuid, arch: arch, name: name, textVMAddress: textVMAddress, textSize: textSize, kind: kind,
                path: sourcePath),
            importedAt: importedAt, lastUsedAt: lastUsedAt, byteSize: byteSize, status: status,
            schemaVersion: schemaVersion, file: file, checksum: checksum, origin: origin)
    }

    public var uuid: BuildID {
        get { build.uuid }
        set { build.uuid = newValue }
    }
    public var arch: Arch {
        get { build.arch }
        set { build.arch = newValue }
    }
    public var name: String {
        get { build.name }
        set { build.name = newValue }
    }
    public var kind: SymbolKind {
        get { build.kind }
        set { build.kind = newValue }
    }
    public var textVMAddress: UInt64 {
        get { build.textVMAddress }
        set { build.textVMAddress = newValue }
    }
    public var textSize: UInt64 {
        get { build.textSize }
        set { build.textSize = newValue }
    }
    /// Where the symbols were imported from (a file, or `archive.zip:member/path`).
    public var sourcePath: String {
        get { build.path }
        set { build.path = newValue }
    }
}

/// The dyld shared cache an image's build was read from, recorded with the build.
public struct BuildOrigin: Codable, Sendable, Hashable {
    /// The cache's UUID (its header's), which names the exact OS build's cache.
    public var dyldCacheUUID: String
    /// The OS version the cache header states (`17.5`; iOS 15 and later caches), or nil.
    public var osVersion: String?
    /// The image's install path in the cache (`/usr/lib/system/libsystem_kernel.dylib`).
    public var imagePath: String

    enum CodingKeys: String, CodingKey {
        case dyldCacheUUID = "dyld_cache_uuid"
        case osVersion = "os_version"
        case imagePath = "image_path"
    }

    public init(dyldCacheUUID: String, osVersion: String?, imagePath: String) {
        self.dyldCacheUUID = dyldCacheUUID
        self.osVersion = osVersion
        self.imagePath = imagePath
    }

    /// The origin as the JSON a catalog column holds; nil when it cannot be written.
    var json: String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func decode(_ json: String) -> BuildOrigin? {
        try? JSONDecoder().decode(BuildOrigin.self, from: Data(json.utf8))
    }
}

/// What importing one slice did.
public enum ImportOutcome: String, Sendable, Hashable {
    /// A new build.
    case imported
    /// The same build, with symbols at least as good, was already there: nothing changed.
    case alreadyPresent = "already_present"
    /// Debug information replaced a symbol-table-only entry of the same UUID and arch.
    case superseded
}

/// Reported while `importPaths` runs, once per object file or archive member handled.
public struct ImportProgress: Sendable, Hashable {
    /// The input path (as given) being worked on.
    public var input: String
    /// The object file or archive member just handled.
    public var item: String
    /// Inputs finished so far and in all.
    public var inputsDone: Int
    public var inputsTotal: Int
    /// Slices handled so far (imported, present or failed), across all inputs.
    public var slicesDone: Int
    /// For archives: compressed bytes read so far and the archive size; 0 for plain files.
    public var bytesDone: Int64
    public var bytesTotal: Int64
    /// For the slice being imported: bytes of its DWARF units read so far and in all (0 when
    /// no slice is being read, or it has no DWARF).
    public var sliceBytesDone: Int64 = 0
    public var sliceBytesTotal: Int64 = 0

    package init(
        input: String, item: String, inputsDone: Int, inputsTotal: Int, slicesDone: Int, bytesDone: Int64,
        bytesTotal: Int64
    ) {
        self.input = input
        self.item = item
        self.inputsDone = inputsDone
        self.inputsTotal = inputsTotal
        self.slicesDone = slicesDone
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
    }
}

public struct ImportSummary: Sendable {
    public struct Item: Sendable, Hashable {
        public var uuid: BuildID
        public var arch: Arch
        public var name: String
        public var kind: SymbolKind
        public var source: String
        public var outcome: ImportOutcome

        package init(
            uuid: BuildID, arch: Arch, name: String, kind: SymbolKind, source: String, outcome: ImportOutcome
        ) {
            self.uuid = uuid
            self.arch = arch
            self.name = name
            self.kind = kind
            self.source = source
            self.outcome = outcome
        }
    }

    public struct Failure: Sendable, CustomStringConvertible {
        /// The input, object file or archive member that failed.
        public var path: String
        public var error: SymbolicateError
        public var description: String { "\(path): \(error.message)" }

        package init(path: String, error: SymbolicateError) {
            self.path = path
            self.error = error
        }
    }

    /// Every slice that was imported or superseded an older entry.
    public var imported: [Item] = []
    /// Slices whose build was already present.
    public var alreadyPresent: [Item] = []
    public var failures: [Failure] = []
    /// Inputs in which no object file was found at all (reported as failures too).
    public var inputsWithoutObjects: [String] = []

    public init() {}
}

/// What `verify` found. An empty report (`isHealthy`) means every catalog row has a readable
/// build file of the current schema, and no stray files are left in the store.
public struct VerifyReport: Sendable {
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable {
            /// A catalog row whose build file is gone.
            case missingFile = "missing-file"
            /// A build file written by another schema version.
            case outdated
            /// A build file that does not open or does not match its catalog row.
            case damaged
            /// A build file that no catalog row lists.
            case orphanFile = "orphan-file"
            /// A temporary file left by an import that died (removed by verify).
            case staleTemporary = "stale-temporary"
        }

        public var kind: Kind
        /// The build concerned, when the problem is about one.
        public var uuid: BuildID?
        public var arch: Arch?
        /// The file concerned, relative to the store folder.
        public var file: String
        public var message: String

        public var description: String { "\(kind.rawValue): \(file): \(message)" }
    }

    public var buildsChecked = 0
    public var catalogSchemaVersion = 0
    public var problems: [Problem] = []
    /// Problems that `verify` repaired itself (stale temporaries removed).
    public var repaired: [Problem] = []

    public var isHealthy: Bool { problems.isEmpty }

    public init() {}
}

public struct StoreStatistics: Sendable, Hashable {
    public var builds: Int
    /// Bytes of all build files, as the catalog records them.
    public var bytes: Int64
    public var debugInfoBuilds: Int
    public var symbolTableBuilds: Int
}
