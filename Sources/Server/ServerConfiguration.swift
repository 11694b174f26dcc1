// Everything `symbolicate serve` can be told: where the store is, where to listen, the write
// tokens, and the limits that keep one client or one hostile upload from taking the service down.
// Defaults suit one machine; the CLI fills this from its options.

import Foundation

public struct ServerConfiguration: Sendable {
    /// The symbol store folder; stored reports live beside it in `reports.sqlite`.
    public var storeDirectory: String
    /// `HOST:PORT`; port 0 picks a free port (see `SymbolicationServer.port`).
    public var listen: String = "127.0.0.1:8080"
    /// Tokens accepted on writes; nil means every write is refused (403) until a token file is given.
    public var tokens: TokenSet?
    /// Largest request body accepted (uploads), in bytes; 413 beyond.
    public var maxBody: Int = 512 << 20
    /// Largest report body (after gzip decoding) for the symbolicate and report endpoints.
    public var maxReportBody: Int = 16 << 20
    /// Network threads (libmicrohttpd's pool); defaults to the number of cores.
    public var threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Requests served at once; beyond this the server answers 503 with Retry-After.
    public var maxConcurrentRequests: Int = 256
    /// Open connections at once (libmicrohttpd refuses more).
    public var maxConnections: Int = 1024
    /// Seconds a connection may stay idle (slow clients are dropped).
    public var connectionTimeout: Int = 30
    /// Seconds a whole request, body included, may take to arrive (slow uploads are cut off).
    public var requestTimeout: Int = 600
    /// Seconds to wait for requests in flight when stopping.
    public var shutdownGracePeriod: Double = 30
    /// Limits for the child process that imports an upload (`importMemoryBytes` is its address space; Int.max: none).
    public var importCPUSeconds: Int = 300
    public var importMemoryBytes: Int = 4 << 30
    public var importWallSeconds: Int = 600
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

    public init(storeDirectory: String) {
        self.storeDirectory = storeDirectory
    }

    var uploadDirectory: String { temporaryDirectory ?? storeDirectory + "/tmp" }
}
