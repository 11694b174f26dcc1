// What the routes share: the symbol store, the stored-report storage (a folder's database or a
// bucket, and its watcher), the import runner, and the symbolication service. The service (and its
// StoreLocator, which caches opened build files) is
// built once per store generation and reused by every request; an upload or a delete through this
// server starts a new generation, so the next request sees the new builds.

import Foundation
import Import
import Store
import SymbolicateModel
import Symbolication
import SystemSupport

final class ServiceContext: Sendable {
    let configuration: ServerConfiguration
    let store: any SymbolStoring
    let reports: any ReportStorage
    let watcher = ReportWatcher()
    let importer: ImportRunner
    let metrics: Metrics
    let log: AccessLog
    /// The store's generation, and the service built for the generation it names.
    private let current = Locked((generation: 0, cached: (generation: Int, service: SymbolicationService)?.none))
    /// UUIDs of images whose symbols could not be read now (frames `failed`) since the watcher
    /// last looked: reports waiting on them are symbolicated again at its next look.
    private let failedLookups = Locked<Set<String>>([])
    /// When a request last failed on a full disk (`/readyz` says so for a while).
    let diskFull = DiskFullMark()
    /// Fetches builds the store lacks from debuginfod servers, when configured; its miss memory
    /// outlives store generations.
    let debuginfod: DebuginfodFetcher?

    init(configuration: ServerConfiguration, metrics: Metrics, log: AccessLog) throws {
        self.configuration = configuration
        self.metrics = metrics
        self.log = log
        try Folders.create(configuration.localDirectory, what: "store folder")
        self.store = try StoreLocation.open(
            configuration.storeDirectory, cacheDirectory: configuration.localDirectory,
            cacheBytes: configuration.cacheBytes)
        // A server keeps each build open for its life: reading it whole once, to compare it with its
        // published checksum, is cheap there (a bucket store's replica checks what it fetches).
        (store as? SymbolStore)?.checkBuildFilesWhenOpening()
        let reportLocation = try ReportStorageLocation(
            parsing: configuration.reportStore ?? configuration.storeDirectory)
        guard let reports = try reportLocation.open(s3: configuration.objectStorage) else {
            throw SymbolicateError(.internal, "no report storage at \(reportLocation)")
        }
        self.reports = reports
        if var settings = configuration.debuginfod {
            settings.keepOriginals = configuration.keepOriginals
            self.debuginfod = try DebuginfodFetcher(settings: settings, store: store)
        } else {
            self.debuginfod = nil
        }
        self.importer = ImportRunner(
            executable: configuration.importExecutable, cpuSeconds: configuration.importCPUSeconds,
            memoryBytes: configuration.importMemoryBytes, wallSeconds: configuration.importWallSeconds)
        // The bucket index's rebuild reads the listing facts of reports stored without them.
        (reports as? BucketReports)?.factsSource.withLock {
            $0 = { [weak self] report in
                guard let self, let processed = try? self.process(report.original, format: nil, counted: false) else {
                    return nil
                }
                return StoredReports.listingFacts(processed)
            }
        }
    }

    /// Starts the background work (the report watcher); the server calls it once it listens.
    func startWatching() {
        watcher.start(context: self, interval: configuration.reportWatchInterval)
    }

    func close() { watcher.stop() }

    /// The service for the current store generation (built on first use after a change).
    func service() throws -> SymbolicationService {
        current.withLock { current in
            if let cached = current.cached, cached.generation == current.generation { return cached.service }
            // A found build is asked for again after one watch interval, so a removal made
            // elsewhere (another replica, `symbolicate remove`) stops it answering by then.
            let retention = configuration.reportWatchInterval > 0 ? configuration.reportWatchInterval : 5
            let locator: any SymbolLocator =
                debuginfod.map { DebuginfodLocator(store: store, fetcher: $0, foundRetention: retention) }
                ?? StoreLocator(store: store, foundRetention: retention)
            let service = SymbolicationService(locator: locator)
            current.cached = (current.generation, service)
            return service
        }
    }

    /// The store changed (import, delete): the next request builds a fresh locator.
    func storeChanged() {
        current.withLock { $0.generation += 1 }
    }

    /// Parses, symbolicates and renders one report. A request's report counts in the report and
    /// frame metrics; a stored report symbolicated again (`counted: false`) was counted when it
    /// was posted, and re-symbolications have a counter of their own.
    func process(_ bytes: [UInt8], format: OutputFormat?, counted: Bool = true) throws -> ProcessedReport {
        let processed = try service().process(bytes, format: format, spelling: .queryParameter)
        if counted { recordFrames(processed.outcome) }
        let failed = processed.outcome.images.compactMap { $0.failure == nil ? nil : $0.image.uuid?.uuidString }
        if !failed.isEmpty { failedLookups.withLock { $0.formUnion(failed) } }
        return processed
    }

    /// Puts back UUIDs taken by `takeFailedLookups` that could not be retried yet.
    func keepFailedLookups(_ uuids: Set<String>) {
        if !uuids.isEmpty { failedLookups.withLock { $0.formUnion(uuids) } }
    }

    /// The UUIDs whose lookups failed since the last call (ReportWatcher retries their reports).
    func takeFailedLookups() -> Set<String> {
        failedLookups.withLock { failed in
            defer { failed.removeAll() }
            return failed
        }
    }

    /// Counts an outcome's frames in the metrics: frames of images we have no symbols for are
    /// missing, unless the report named them itself.
    func recordFrames(_ outcome: SymbolicationOutcome) {
        var missingFrames = 0
        for image in outcome.images {
            switch image.status {
            case .missing, .uuidMismatch, .failed:
                missingFrames += image.framesTotal - image.framesSymbolicated - image.framesNamedByReport
            case .symbolicated, .symbolTableOnly, .noUUID: break
            }
        }
        metrics.recordFrames(symbolicated: outcome.symbolicatedFrames, missing: missingFrames)
    }

    /// The gauges `/metrics` reads at scrape time.
    func gauges() -> [(name: String, help: String, value: Double)] {
        var gauges: [(name: String, help: String, value: Double)] = []
        if let statistics = try? store.statistics {
            gauges += [
                ("symbolicate_store_builds", "Builds in the symbol store.", Double(statistics.builds)),
                ("symbolicate_store_bytes", "Bytes of build files in the symbol store.", Double(statistics.bytes)),
                (
                    "symbolicate_store_debug_info_builds", "Builds with DWARF debug information.",
                    Double(statistics.debugInfoBuilds)
                ),
                (
                    "symbolicate_store_symbol_table_builds", "Builds with only a symbol table.",
                    Double(statistics.symbolTableBuilds)
                ),
            ]
        }
        if let bucket = store as? BucketStore {
            let cache = bucket.bucketStatistics.cache
            gauges.append(
                (
                    "symbolicate_cache_bytes", "Bytes of build files in the local cache of the bucket store.",
                    Double(cache.bytes)
                ))
        }
        if let count = try? reports.count() {
            gauges.append(("symbolicate_stored_reports", "Reports stored with POST /v1/reports.", Double(count)))
        }
        return gauges
    }

    /// The bucket store's requests, errors and latency and the cache's counters, for `/metrics`
    /// (empty for a folder store).
    func bucketMetrics() -> String {
        guard let bucket = store as? BucketStore else { return "" }
        return Metrics.bucketExposition(bucket.bucketStatistics)
    }

    /// Throws when the store does not answer: one short listing for a bucket store (its
    /// statistics are cached, so they could not tell), the statistics for a folder store.
    func checkStore() throws {
        if let bucket = store as? BucketStore { return try bucket.checkReachable() }
        _ = try store.statistics
    }
}
