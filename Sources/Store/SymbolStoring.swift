// SymbolStoring: where builds and their catalog live, as every command, the server and the
// symbol locator see a store. Two places implement it: SymbolStore, a folder (catalog.sqlite and
// builds/<UUID>-<arch>.sqlite on one disk, the embedded default), and BucketStore, an
// S3-compatible bucket (one immutable object per build file, one small metadata object per build
// in place of a shared catalog, and a local cache of fetched build files). `StoreLocation` tells
// the two apart from what `--store` / SYMBOLICATE_STORE say and opens the right one.

import Foundation
import ObjectStorage
import SymbolicateModel

public protocol SymbolStoring: AnyObject, Sendable {
    /// The folder or `s3://BUCKET[/PREFIX]`, for messages.
    var locationDescription: String { get }
    /// True when this process may read the store but not change it.
    var isReadOnly: Bool { get }
    /// Throws, naming `operation`, when the store cannot be written.
    func requireWritable(_ operation: String) throws

    /// The best build for `uuid`, of any arch (of `arch` or a compatible one first, then debug
    /// info before a symbol table), nil when there is none; throws for a build that is listed but
    /// cannot be read.
    func source(for uuid: BuildID, arch: Arch?) throws -> (any SymbolSource)?
    /// Every build of `uuid`.
    func builds(matching uuid: BuildID) throws -> [StoredBuild]
    /// Builds named `name` with another UUID (what a report is told the store has instead).
    func builds(named name: String, otherThan uuid: BuildID, limit: Int) throws -> [StoredBuild]
    /// Every build, by name, UUID and arch.
    func list() throws -> [StoredBuild]
    var statistics: StoreStatistics { get throws }

    /// Runs an import: `index` reads the inputs into a folder store (this one, or for a bucket a
    /// private staging store that asks the bucket before indexing each build), and what it took
    /// in is then published, the summary saying what the store made of each build. Throws when
    /// no staging store can be made. The Import target's `importPaths` is the one caller.
    func importing(_ index: (SymbolStore) -> ImportSummary) throws -> ImportSummary
    /// Imports a symbol table built in memory.
    @discardableResult
    func importTable(_ table: SymbolTable, source: String) throws -> ImportOutcome
    /// Removes every build of each UUID; returns what was removed.
    func remove(_ uuids: [BuildID]) throws -> [StoredBuild]
    /// Checks every build; repairs what is safe to repair and reports the rest.
    func verify(deep: Bool) throws -> VerifyReport
    /// Removes builds neither imported nor used in the last `days` days.
    func garbageCollect(olderThanDays days: Int, dryRun: Bool) throws -> [StoredBuild]
}

extension SymbolStore: SymbolStoring {
    public var locationDescription: String { directory }

    public func importing(_ index: (SymbolStore) -> ImportSummary) -> ImportSummary { index(self) }
}

extension SymbolStoring {
    public func builds(named name: String, otherThan uuid: BuildID) throws -> [StoredBuild] {
        try builds(named: name, otherThan: uuid, limit: 16)
    }
}

/// Where `--store` points: a folder or a bucket, and (for a bucket) the local cache of build files.
public enum StoreLocation {
    /// True for `s3://...`.
    public static func isBucket(_ text: String) -> Bool { S3Location.isBucketLocation(text) }

    /// The variables `defaultCacheDirectory` reads.
    public static let cacheEnvironmentVariables = ["XDG_CACHE_HOME", "HOME"]

    /// `$XDG_CACHE_HOME/symbolicate`, else `~/.cache/symbolicate`: where a bucket store keeps
    /// the build files it fetched and its temporary files.
    public static func defaultCacheDirectory(environment: [String: String]) -> String {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/symbolicate" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/symbolicate"
    }

    /// Parses a size such as `10G`, `1.5GiB`, `512M` or a number of bytes (ByteSize).
    public static func parseSize(_ text: String) -> Int64? { ByteSize.parse(text) }
}
