// Everything `symbolicate serve` can be told: where the store is, where to listen, the write
// tokens, and the limits that keep one client or one hostile upload from taking the service down.
// Defaults suit one machine; the CLI fills this from its options.

import Foundation
import Import
import ObjectStorage
import Store
import SystemSupport

public struct ServerConfiguration: Sendable {
    /// The symbol store folder, or `s3://BUCKET[/PREFIX]`; stored reports live beside a folder
    /// store in `reports.sqlite`, and in the bucket of a bucket store (unless `reportStore` says
    /// otherwise).
    public var storeDirectory: String
    /// Where `POST /v1/reports` keeps reports: nil for the store (its `reports.sqlite`, or the
    /// bucket when the store is `s3://...`); `s3://BUCKET[/PREFIX]` for a bucket shared by replicas.
    public var reportStore: String?
    /// The object storage client's settings; nil reads the AWS_* variables.
    public var objectStorage: S3Configuration?
    /// Days a stored report is kept after it was last written; 0 keeps them forever.
    public var reportRetentionDays: Int = 90
    /// Seconds between looks for builds that stored reports wait for (0: only uploads here).
    public var reportWatchInterval: Double = 5
    /// A bucket store's cache folder (`--cache`) and its bound; nil means the default folder.
    public var cacheDirectory: String?
    public var cacheBytes: Int64 = BuildCache.defaultCapacity
    /// `HOST:PORT`; port 0 picks a free port (see `SymbolicationServer.port`).
    public var listen: String = "127.0.0.1:8080"
    /// Tokens accepted on writes (and reads); nil means every write is refused (403) until a token file is given.
    public var tokens: TokenSet?
    /// Tokens accepted on reads; nil means reads need no token.
    public var readTokens: TokenSet?
    /// A second `HOST:PORT` serving only /healthz, /readyz and /metrics, on its own connections, so
    /// probes and scrapes get through while the main port's connection table is full.
    public var adminListen: String?
    /// Largest request body accepted (uploads), in bytes; 413 beyond. Bodies stream to disk, so
    /// this bounds disk, not memory: 4G lets a 2 GB dSYM through, zipped or not.
    public var maxBody: Int = 4 << 30
    /// Largest report body (after gzip decoding) for the symbolicate and report endpoints.
    public var maxReportBody: Int = 16 << 20
    /// Network threads (libmicrohttpd's pool); defaults to the CPUs this process may use
    /// (affinity and cgroup quota).
    public var threads: Int = ProcessorBudget.defaultThreads
    /// Requests served at once; beyond this the server answers 503 with Retry-After.
    public var maxConcurrentRequests: Int = 256
    /// Open connections at once (libmicrohttpd refuses more).
    public var maxConnections: Int = 1024
    /// Open connections one client address may hold; 0 for no limit (behind a proxy every client
    /// has the proxy's address).
    public var connectionsPerAddress: Int = 64
    /// Seconds a connection may take to send a request's headers (also the longest a keep-alive
    /// connection waits for its next request); 0 for no limit.
    public var headerTimeout: Int = 10
    /// Seconds a connection may stay idle (slow clients are dropped).
    public var connectionTimeout: Int = 30
    /// Seconds a whole request, body included, may take to arrive (slow uploads are cut off).
    public var requestTimeout: Int = 600
    /// The slowest a body may arrive, in bytes per second, once `bodyGracePeriod` has passed: a
    /// request may take the grace period plus one second per `minimumBodyRate` bytes received, so
    /// that a client trickling a byte now and then cannot hold a request slot for the whole
    /// `requestTimeout` (each byte restarts the idle timeout). Such a request is closed without an
    /// answer: libmicrohttpd cannot send one before the body is complete.
    public var minimumBodyRate: Int = 1024
    public var bodyGracePeriod: Int = 10
    /// Seconds to wait for requests in flight when stopping.
    public var shutdownGracePeriod: Double = 30
    /// Limits for the child process that imports an upload (`--import-cpu`, `--import-memory`,
    /// `--import-timeout`). The memory limit is address space (RLIMIT_AS), which counts the mapped
    /// upload as well as the import's working memory: 16G lets a 2 GB dSYM through. CPU and wall
    /// time leave several times what a 2 GB dSYM takes, for a machine busy with other imports.
    /// `importMemoryBytes` Int.max: no address-space limit (sanitizer builds need one).
    public var importCPUSeconds: Int = 900
    public var importMemoryBytes: Int = 16 << 30
    public var importWallSeconds: Int = 1800
    /// Archives: largest expanded size, expansion ratio and entry count accepted.
    public var maxExpandedBytes: Int64 = 8 << 30
    public var maxExpansionRatio: Int64 = 200
    public var maxArchiveEntries: Int = 100_000
    /// The program run as `PROGRAM import --store DIR PATH` for uploads (this executable by default).
    public var importExecutable: String = "/proc/self/exe"
    /// Where request bodies are streamed; defaults to `<store>/tmp`.
    public var temporaryDirectory: String?
    /// The access log's file descriptor (stderr); -1 silences it.
    public var logDescriptor: Int32 = 2

    /// Uploads keep their original files (the import child is given --keep-originals).
    public var keepOriginals = false

    /// debuginfod servers asked for builds the store lacks (nil: none); what they send is imported.
    public var debuginfod: DebuginfodSettings?

    public init(storeDirectory: String) {
        self.storeDirectory = storeDirectory
    }

    var uploadDirectory: String { temporaryDirectory ?? localDirectory + "/tmp" }

    public var isBucketStore: Bool { StoreLocation.isBucket(storeDirectory) }

    /// The local folder of this server: the store folder, or a bucket store's cache folder.
    public var localDirectory: String {
        guard isBucketStore else { return storeDirectory }
        return cacheDirectory ?? StoreLocation.defaultCacheDirectory(environment: ProcessInfo.processInfo.environment)
    }

    /// The store options an import child is given.
    var storeArguments: [String] {
        let keep = keepOriginals ? ["--keep-originals"] : []
        guard isBucketStore else { return ["--store", storeDirectory] + keep }
        return ["--store", storeDirectory, "--cache", localDirectory, "--cache-size", String(cacheBytes)] + keep
    }
}
