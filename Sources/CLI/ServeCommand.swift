// `symbolicate serve`: the HTTP server. Parses its options into a ServerConfiguration, starts the
// server and blocks until SIGINT / SIGTERM, then stops gracefully (requests in flight finish) and
// exits 0. The work is in the Server target.

import Foundation
import Server
import Store
import SymbolicateModel

enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "Run the HTTP server (symbolicate, upload symbols, stored reports, web page)"
    static let help = """
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

        OPTIONS:
          --store DIR          The symbol store, created when missing (default: $SYMBOLICATE_STORE,
                               else $XDG_DATA_HOME/symbolicate or ~/.local/share/symbolicate). With
                               s3://BUCKET[/PREFIX], uploads go to the bucket and stored reports stay
                               in the cache folder
        \(StoreOption.cacheHelp)
          --listen HOST:PORT   Address to listen on (default: 127.0.0.1:8080; port 0 picks a free port)
          --admin-listen HOST:PORT
                               Also serve /healthz, /readyz and /metrics on this address, on connections
                               of their own, so probes get through while the main port is full
          --token-file FILE    Bearer tokens accepted on writes (and reads), one `NAME:TOKEN` or `TOKEN`
                               per line; a bare token is named in logs by the first 8 hex digits of
                               its SHA-256. Without this option, writes are refused.
          --read-token-file FILE
                               Tokens (same format) that reads then need: /v1/symbolicate, /v1/symbols,
                               /v1/reports/ID, /v1/missing and the compatibility endpoints. Without it,
                               reads need no token. /, /healthz, /readyz, /metrics stay open.
          --max-body SIZE      Largest upload accepted, e.g. 512M or 2G (default: 4G); reports are
                               limited to 16M or SIZE, whichever is smaller
          --import-memory SIZE Address space an upload's import may use (RLIMIT_AS, the mapped upload
                               included; default: 16G, enough for a 2G dSYM)
          --import-cpu SECONDS CPU time an upload's import may use (RLIMIT_CPU; default: 900)
          --import-timeout SECONDS
                               Time an upload's import may take once it has arrived (default: 1800)
          --threads N          Network threads (default: the CPUs this process may use,
                               after taskset and the cgroup CPU quota)
          --max-concurrent N   Requests served at once; more get 503 + Retry-After (default: 256)
          --max-per-address N  Connections one client address may hold open (default: 64; 0: no limit,
                               e.g. behind a proxy where every client has the proxy's address)
          --timeout SECONDS    Idle connection timeout (default: 30)
          --header-timeout SECONDS
                               Time a connection may take to send a request's headers, however slowly
                               the bytes trickle in, and the longest an idle keep-alive connection
                               waits for its next request (default: 10; 0: no limit)
          --report-store LOCATION
                               Where POST /v1/reports keeps reports: s3://BUCKET[/PREFIX] shares them
                               between replicas (credentials and endpoint from AWS_ACCESS_KEY_ID,
                               AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL); default: the store
                               (its reports.sqlite, or its bucket when --store is s3://...)
          --report-retention DAYS
                               Stored reports not written for DAYS days are removed (default: 90;
                               0 keeps them forever); `symbolicate gc` applies the same rule
          -h, --help           Show this help
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        // Before any thread starts, so that every thread leaves SIGINT and SIGTERM to runUntilSignal.
        SymbolicationServer.blockStopSignals()
        let args = try Arguments(
            arguments,
            valued: [
                "--store", "--cache", "--cache-size", "--listen", "--admin-listen", "--token-file", "--read-token-file",
                "--max-body", "--threads", "--max-concurrent", "--max-per-address", "--timeout", "--header-timeout",
                "--report-store", "--report-retention", "--import-memory", "--import-cpu", "--import-timeout",
            ],
            flags: [])
        guard args.positionals.isEmpty else {
            throw UsageError("serve takes no positional arguments (got '\(args.positionals[0])')")
        }
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration(
            storeDirectory: args.value("--store") ?? SymbolStore.defaultDirectory(environment: environment))
        configuration.cacheDirectory = args.value("--cache")
        configuration.cacheBytes = try StoreOption.cacheBytes(args.value("--cache-size"))
        if let listen = args.value("--listen") { configuration.listen = listen }
        if let listen = args.value("--admin-listen") { configuration.adminListen = listen }
        if let file = args.value("--token-file") { configuration.tokens = try TokenSet(file: file) }
        if let file = args.value("--read-token-file") { configuration.readTokens = try TokenSet(file: file) }
        if let size = args.value("--max-body") {
            guard let bytes = parseByteSize(size), bytes > 0 else {
                throw UsageError("--max-body expects a size such as 512M or 2G, got '\(size)'")
            }
            configuration.maxBody = bytes
        }
        if let size = args.value("--import-memory") {
            guard let bytes = parseByteSize(size), bytes >= ImportLimits.minimumMemoryBytes else {
                throw UsageError("--import-memory expects a size of at least 256M, such as 8G or 16G, got '\(size)'")
            }
            configuration.importMemoryBytes = bytes
        }
        if let seconds = try args.integer(
            "--import-cpu", in: 1...86_400, "--import-cpu must be from 1 to 86400 seconds")
        {
            configuration.importCPUSeconds = seconds
        }
        if let seconds = try args.integer(
            "--import-timeout", in: 1...86_400, "--import-timeout must be from 1 to 86400 seconds")
        {
            configuration.importWallSeconds = seconds
        }
        if let threads = try args.integer("--threads", in: 1...256, "--threads must be from 1 to 256") {
            configuration.threads = threads
        }
        if let cap = try args.integer("--max-concurrent") {
            guard cap >= 1 else { throw UsageError("--max-concurrent must be at least 1") }
            configuration.maxConcurrentRequests = cap
        }
        if let limit = try args.integer(
            "--max-per-address", in: 0...1_000_000, "--max-per-address must be 0 (no limit) or more")
        {
            configuration.connectionsPerAddress = limit
        }
        if let timeout = try args.integer(
            "--header-timeout", in: 0...3600, "--header-timeout must be from 0 (no limit) to 3600 seconds")
        {
            configuration.headerTimeout = timeout
        }
        if let timeout = try args.integer("--timeout", in: 1...3600, "--timeout must be from 1 to 3600 seconds") {
            configuration.connectionTimeout = timeout
        }
        if let location = args.value("--report-store") {
            guard location.hasPrefix("s3://") else {
                throw UsageError("--report-store takes s3://BUCKET[/PREFIX] (reports in a folder live in its store)")
            }
            configuration.reportStore = location
        }
        if let days = try args.integer(
            "--report-retention", in: 0...36_500,
            "--report-retention must be a whole number of days from 0 (keep forever) to 36500")
        {
            configuration.reportRetentionDays = days
        }
        // What a server killed mid-request left behind (its import children died with it).
        let stale = SymbolStore.removeStaleTransfers(inStore: configuration.localDirectory)
        if !stale.isEmpty {
            Console.error(
                "removed \(stale.count) upload(s) left in \(configuration.localDirectory)/tmp by a stopped server")
        }
        let server = try SymbolicationServer(configuration: configuration)
        try server.start()
        if configuration.tokens == nil {
            Console.error("warning: no --token-file given: uploads and other writes are refused")
        }
        return server.runUntilSignal()
    }
}
