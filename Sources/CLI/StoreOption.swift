// The options every store-using command shares: `--store DIR|s3://BUCKET[/PREFIX]` (else
// $SYMBOLICATE_STORE, else the XDG data folder), and for a bucket store `--cache DIR` (else
// $XDG_CACHE_HOME/symbolicate or ~/.cache/symbolicate) and `--cache-size SIZE` (default 10G).
// A folder store is opened as it always was; a bucket store is opened lazily (no request until
// a build is needed), so a command that never reaches the store never waits for the network.

import Foundation
import Store
import SymbolicateModel

enum StoreOption {
    /// The valued options to add to a command's `Arguments`.
    static let valued: Set<String> = ["--store", "--cache", "--cache-size"]

    /// The help lines for `--cache` and `--cache-size`, indented as the commands' OPTIONS.
    static let cacheHelp = """
          --store s3://BUCKET[/PREFIX]
                            A store in an S3-compatible bucket: credentials and endpoint from
                            AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION
                            and AWS_ENDPOINT_URL (path-style requests when it is set)
          --cache DIR       Bucket stores: where fetched build files and temporary files are kept
                            (default: $XDG_CACHE_HOME/symbolicate, else ~/.cache/symbolicate)
          --cache-size SIZE Bucket stores: the cache's bound, e.g. 10G or 500M (default: 10G);
                            least recently used build files are evicted first
        """

    static func directory(_ explicit: String?) -> String {
        explicit ?? SymbolStore.defaultDirectory(environment: ProcessInfo.processInfo.environment)
    }

    static func cacheDirectory(_ explicit: String?) -> String {
        explicit ?? StoreLocation.defaultCacheDirectory(environment: ProcessInfo.processInfo.environment)
    }

    static func cacheBytes(_ text: String?) throws -> Int64 {
        guard let text else { return BuildCache.defaultCapacity }
        guard let bytes = StoreLocation.parseSize(text) else {
            throw UsageError("--cache-size expects a size such as 10G or 500M, got '\(text)'")
        }
        return bytes
    }

    /// Opens the store named by `args` (see `open(_:disabled:mustExist:)`).
    static func open(_ args: Arguments, disabled: Bool, mustExist: Bool) throws -> (any SymbolStoring)? {
        try open(
            args.value("--store"), disabled: disabled, mustExist: mustExist, cache: args.value("--cache"),
            cacheSize: args.value("--cache-size"))
    }

    /// Opens the store a command writes to, creating a folder store when missing.
    static func openForWriting(_ args: Arguments) throws -> any SymbolStoring {
        try StoreLocation.open(
            directory(args.value("--store")), cacheDirectory: cacheDirectory(args.value("--cache")),
            cacheBytes: try cacheBytes(args.value("--cache-size")))
    }

    /// Opens the store; nil when `disabled`, or when a folder store does not exist, `mustExist`
    /// is false and no store was named explicitly. A bucket store is never looked for here: the
    /// first request says whether the bucket is there.
    static func open(
        _ explicit: String?, disabled: Bool, mustExist: Bool, cache: String? = nil, cacheSize: String? = nil
    ) throws -> (any SymbolStoring)? {
        if disabled { return nil }
        let dir = directory(explicit)
        if StoreLocation.isBucket(dir) {
            return try StoreLocation.open(
                dir, cacheDirectory: cacheDirectory(cache), cacheBytes: try cacheBytes(cacheSize))
        }
        let exists = FileManager.default.fileExists(atPath: dir + "/catalog.sqlite")
        if !exists {
            if explicit != nil || mustExist {
                throw SymbolicateError(
                    .notFound, "no symbol store here; create one with `symbolicate import --store \(dir) PATH`",
                    path: dir)
            }
            return nil
        }
        return try SymbolStore(directory: dir)
    }
}
