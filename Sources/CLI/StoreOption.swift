// The options every store-using command shares, declared once: `--store DIR|s3://BUCKET[/PREFIX]`
// (else $SYMBOLICATE_STORE, else the XDG data folder), and for a bucket store `--cache DIR` (else
// $XDG_CACHE_HOME/symbolicate or ~/.cache/symbolicate) and `--cache-size SIZE` (default 10G); and
// how a command opens the store they name. A folder store is opened as it always was; a bucket
// store is opened lazily (no request until a build is needed), so a command that never reaches
// the store never waits for the network.

import Foundation
import Import
import Store
import SymbolicateModel
import SystemSupport

enum StoreOption {
    static let store = ValueOption<String>(
        "--store", value: "DIR|s3://BUCKET[/PREFIX]",
        help: "The symbol store: a folder (default: $SYMBOLICATE_STORE, else $XDG_DATA_HOME/symbolicate or"
            + " ~/.local/share/symbolicate), or s3://BUCKET[/PREFIX], a store in an S3-compatible bucket"
            + " (credentials and endpoint from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,"
            + " AWS_REGION and AWS_ENDPOINT_URL; path-style requests when it is set).")

    static let cache = ValueOption<String>(
        "--cache", value: "DIR",
        help: "Bucket stores: where fetched build files and temporary files are kept (default:"
            + " $XDG_CACHE_HOME/symbolicate, else ~/.cache/symbolicate).")

    static let cacheSize = ValueOption<Int64>.parsed(
        "--cache-size", value: "SIZE", expected: "a size such as 10G or 500M",
        help: "Bucket stores: the cache's bound, e.g. 10G or 500M (default: 10G); least recently used build"
            + " files are evicted first."
    ) { StoreLocation.parseSize($0) }

    /// `--store`, `--cache` and `--cache-size`, for a command's options.
    static let options: [any CommandOption] = [store, cache, cacheSize]

    /// `--cache` and `--cache-size`, after a `--store` that says more for its command.
    static let cacheOptions: [any CommandOption] = [cache, cacheSize]

    static func directory(_ explicit: String?) -> String {
        explicit ?? SymbolStore.defaultDirectory(environment: Environment.values(of: SymbolStore.environmentVariables))
    }

    static func cacheDirectory(_ explicit: String?) -> String {
        explicit
            ?? StoreLocation.defaultCacheDirectory(
                environment: Environment.values(of: StoreLocation.cacheEnvironmentVariables))
    }

    /// `--cache-size`'s bytes, else the default bound.
    static func cacheBytes(_ args: Arguments) throws -> Int64 {
        try args.value(cacheSize) ?? BuildCache.defaultCapacity
    }

    /// Opens the store a command writes to, creating a folder store when missing.
    static func openForWriting(_ args: Arguments) throws -> any SymbolStoring {
        try StoreLocation.open(
            directory(try args.value(store)), cacheDirectory: cacheDirectory(try args.value(cache)),
            cacheBytes: try cacheBytes(args))
    }

    /// The store `$SYMBOLICATE_STORE` names, when set: it is read as `--store` is.
    static var environmentStore: String? {
        Environment.value("SYMBOLICATE_STORE").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// True when no store is named (neither `--store` nor `$SYMBOLICATE_STORE`) and the default
    /// folder holds none yet: the one store that may be absent.
    static func defaultIsAbsent(_ args: Arguments) throws -> Bool {
        guard try args.value(store) == nil, environmentStore == nil else { return false }
        return !FileManager.default.fileExists(atPath: directory(nil) + "/catalog.sqlite")
    }

    /// Opens the store `args` name; nil when `disabled`, or when the default folder store does
    /// not exist and `mustExist` is false. A store named by `--store` or `$SYMBOLICATE_STORE` must
    /// exist. A bucket store is never looked for here: the first request says whether the bucket
    /// is there.
    static func open(_ args: Arguments, disabled: Bool, mustExist: Bool) throws -> (any SymbolStoring)? {
        if disabled { return nil }
        let explicit = try args.value(store) ?? environmentStore
        let dir = directory(explicit)
        if StoreLocation.isBucket(dir) {
            return try StoreLocation.open(
                dir, cacheDirectory: cacheDirectory(try args.value(cache)), cacheBytes: try cacheBytes(args))
        }
        let exists = FileManager.default.fileExists(atPath: dir + "/catalog.sqlite")
        if !exists {
            if explicit != nil {
                let named = try args.value(store) == nil ? " (named by $SYMBOLICATE_STORE: is it spelled right?)" : ""
                throw SymbolicateError(
                    .notFound,
                    "no symbol store here\(named); create one with `symbolicate import --store \(dir) PATH`",
                    path: dir)
            }
            if mustExist {
                throw SymbolicateError(
                    .notFound, "no store yet; create one with `symbolicate import PATH` (it goes to \(dir))",
                    path: dir)
            }
            return nil
        }
        return try SymbolStore(directory: dir, rebuilder: SourceRebuilder())
    }
}
