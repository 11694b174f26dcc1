// `symbolicate serve`: the HTTP server. Parses its options into a ServerConfiguration, starts the
// server and blocks until SIGINT / SIGTERM, then stops gracefully (requests in flight finish) and
// exits 0. The work is in the Server target.

import Foundation
import Import
import Server
import Store
import SymbolicateModel

enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "Run the HTTP server (symbolicate, upload symbols, stored reports, web page)"
    static let about = """
        USAGE: symbolicate serve [--store DIR] [--listen HOST:PORT] [--admin-listen HOST:PORT]
                                 [--token-file FILE] [--read-token-file FILE] [--max-body SIZE]
                                 [--threads N] [--max-concurrent N] [--max-per-address N]
                                 [--timeout SECONDS] [--header-timeout SECONDS]
                                 [--report-store LOCATION] [--report-retention DAYS]
                                 [--import-memory SIZE] [--import-cpu SECONDS] [--import-timeout SECONDS]

        Serves the symbol store over HTTP: POST /v1/symbolicate (a .crash or .ips report in, the
        symbolicated report out), POST /v1/symbols (upload dSYMs; token), /v1/reports (stored reports,
        re-symbolicated when their dSYMs arrive), /v1/missing, /healthz, /readyz, /metrics,
        /openapi.json, and a web page at /. Stops on SIGINT or SIGTERM after finishing the requests in flight.

        """

    static let listen = ValueOption<String>(
        "--listen", value: "HOST:PORT",
        help: "Address to listen on (default: 127.0.0.1:8080; port 0 picks a free port).")
    static let adminListen = ValueOption<String>(
        "--admin-listen", value: "HOST:PORT",
        help: "Also serve /healthz, /readyz and /metrics on this address, on connections of their own, so"
            + " probes get through while the main port is full.")
    static let tokenFile = ValueOption<String>(
        "--token-file", value: "FILE",
        help: "Bearer tokens accepted on writes (and reads), one `NAME:TOKEN` or `TOKEN` per line; a bare token"
            + " is named in logs by the first 8 hex digits of its SHA-256. Without this option, writes are"
            + " refused.")
    static let readTokenFile = ValueOption<String>(
        "--read-token-file", value: "FILE",
        help: "Tokens (same format) that reads then need: /v1/symbolicate, /v1/symbols, /v1/reports and"
            + " /v1/reports/ID, /v1/missing and the compatibility endpoints. Without it, reads need no token. /,"
            + " /openapi.json, /healthz, /readyz, /metrics stay open.")
    static let maxBody = ValueOption<Int>.parsed(
        "--max-body", value: "SIZE", expected: "a size such as 512M or 2G",
        help: "Largest upload accepted, e.g. 512M or 2G (default: 4G); reports are limited to 16M or SIZE,"
            + " whichever is smaller."
    ) { byteSize($0, atLeast: 1) }
    static let importMemory = ValueOption<Int>.parsed(
        "--import-memory", value: "SIZE", expected: "a size of at least 256M, such as 8G or 16G",
        help: "Address space an upload's import may use (RLIMIT_AS, the mapped upload included; default: 16G,"
            + " enough for a 2G dSYM)."
    ) { byteSize($0, atLeast: ImportLimits.minimumMemoryBytes) }

    /// A size such as 512M or 2G (`parseByteSize`) of `minimum` bytes or more; nil otherwise.
    private static func byteSize(_ text: String, atLeast minimum: Int) -> Int? {
        guard let bytes = parseByteSize(text), bytes >= minimum else { return nil }
        return bytes
    }

    static let importCPU = ValueOption<Int>.integer(
        "--import-cpu", value: "SECONDS", in: 1...86_400,
        help: "CPU time an upload's import may use (RLIMIT_CPU; default: 900).")
    static let importTimeout = ValueOption<Int>.integer(
        "--import-timeout", value: "SECONDS", in: 1...86_400,
        help: "Time an upload's import may take once it has arrived (default: 1800).")
    static let threads = ValueOption<Int>.integer(
        "--threads", value: "N", in: 1...256,
        help: "Network threads (default: the CPUs this process may use, after taskset and the cgroup CPU quota).")
    static let maxConcurrent = ValueOption<Int>.integer(
        "--max-concurrent", value: "N", in: 1...Int.max,
        help: "Requests served at once; more get 503 + Retry-After (default: 256).")
    static let maxPerAddress = ValueOption<Int>.integer(
        "--max-per-address", value: "N", in: 0...1_000_000,
        requirement: "--max-per-address must be 0 (no limit) or more",
        help: "Connections one client address may hold open (default: 64; 0: no limit, e.g. behind a proxy"
            + " where every client has the proxy's address).")
    static let timeout = ValueOption<Int>.integer(
        "--timeout", value: "SECONDS", in: 1...3600,
        help: "Idle connection timeout (default: 30).")
    static let headerTimeout = ValueOption<Int>.integer(
        "--header-timeout", value: "SECONDS", in: 0...3600, zero: "no limit",
        help: "Time a connection may take to send a request's headers, however slowly the bytes trickle in,"
            + " and the longest an idle keep-alive connection waits for its next request (default: 10; 0: no"
            + " limit).")
    static let reportStore = ValueOption<String>(
        ["--report-store"], value: "LOCATION",
        help: "Where POST /v1/reports keeps reports: s3://BUCKET[/PREFIX] shares them between replicas"
            + " (credentials and endpoint from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,"
            + " AWS_ENDPOINT_URL); default: the store (its reports.sqlite, or its bucket when --store is"
            + " s3://...)."
    ) { location in
        guard location.hasPrefix("s3://") else {
            throw UsageError("--report-store takes s3://BUCKET[/PREFIX] (reports in a folder live in its store)")
        }
        return location
    }

    static let options: [any CommandOption] =
        [
            StoreOption.store.adding(
                "A folder store is created when missing. With s3://BUCKET[/PREFIX], uploads and stored reports"
                    + " go to the bucket.")
        ] + StoreOption.cacheOptions + [
            listen, adminListen, tokenFile, readTokenFile, maxBody, importMemory, importCPU, importTimeout, threads,
            maxConcurrent, maxPerAddress, timeout, headerTimeout, reportStore, CommonOptions.reportRetention,
        ] + [ImportCommand.keepOriginals, DebuginfodOption.servers]

    static let epilogue = ""

    static func run(_ args: Arguments) throws -> Int32 {
        // Before any thread starts, so that every thread leaves SIGINT and SIGTERM to runUntilSignal.
        SymbolicationServer.blockStopSignals()
        guard args.positionals.isEmpty else {
            throw UsageError("serve takes no positional arguments (got '\(args.positionals[0])')")
        }
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration(
            storeDirectory: try args.value(StoreOption.store) ?? SymbolStore.defaultDirectory(environment: environment))
        configuration.cacheDirectory = try args.value(StoreOption.cache)
        configuration.cacheBytes = try StoreOption.cacheBytes(args)
        configuration.keepOriginals = args.has(ImportCommand.keepOriginals)
        configuration.debuginfod = try DebuginfodOption.settings(args)
        if let listen = try args.value(listen) { configuration.listen = listen }
        if let listen = try args.value(adminListen) { configuration.adminListen = listen }
        if let file = try args.value(tokenFile) { configuration.tokens = try TokenSet(file: file) }
        if let file = try args.value(readTokenFile) { configuration.readTokens = try TokenSet(file: file) }
        if let bytes = try args.value(maxBody) { configuration.maxBody = bytes }
        if let bytes = try args.value(importMemory) { configuration.importMemoryBytes = bytes }
        if let seconds = try args.value(importCPU) { configuration.importCPUSeconds = seconds }
        if let seconds = try args.value(importTimeout) { configuration.importWallSeconds = seconds }
        if let threads = try args.value(threads) { configuration.threads = threads }
        if let cap = try args.value(maxConcurrent) { configuration.maxConcurrentRequests = cap }
        if let limit = try args.value(maxPerAddress) { configuration.connectionsPerAddress = limit }
        if let timeout = try args.value(headerTimeout) { configuration.headerTimeout = timeout }
        if let timeout = try args.value(timeout) { configuration.connectionTimeout = timeout }
        if let location = try args.value(reportStore) { configuration.reportStore = location }
        if let days = try args.value(CommonOptions.reportRetention) { configuration.reportRetentionDays = days }
        // What a server killed mid-request left behind (its import children died with it).
        let stale = SymbolStore.removeStaleTransfers(inStore: configuration.localDirectory)
        let server = try SymbolicationServer(configuration: configuration)
        try server.start()
        // Once started, everything the server says is a JSON log line.
        if !stale.isEmpty {
            server.logEvent(
                "stale_uploads_removed",
                ["count": String(stale.count), "folder": configuration.localDirectory + "/tmp"])
        }
        if configuration.tokens == nil {
            server.logEvent(
                "warning", ["message": "no --token-file given: uploads and other writes are refused"])
        }
        return server.runUntilSignal()
    }
}
