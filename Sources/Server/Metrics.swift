// Counters and a latency histogram in Prometheus text exposition format (version 0.0.4), kept
// behind one lock: requests by route, method and status, request duration by route, reports and
// their frames symbolicated and missing for requests (a stored report re-symbolicated later counts
// only as a re-symbolication), imports by outcome, and the store's builds and bytes (read when
// scraped).
// Every label takes its value from a bounded set, whatever clients send: routes are the routing
// table's patterns or `unmatched`, methods the standard ones or `other`, statuses 100-599 or `0`
// (no response), so /metrics cannot be grown by odd requests.

import Foundation
import Store
import SymbolicateModel

final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]

    private struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.buckets.count)
        var sum = 0.0
        var count: UInt64 = 0
    }

    /// Every counter, read and written under one lock.
    private struct Counts {
        var requests: [RequestKey: UInt64] = [:]
        var latency: [String: Histogram] = [:]
        var framesSymbolicated: UInt64 = 0
        var framesMissing: UInt64 = 0
        var reportsSymbolicated: UInt64 = 0
        var imports: [String: UInt64] = [:]
        var resymbolicated: UInt64 = 0
        var inFlight = 0
        var rejectedBusy: UInt64 = 0
        var headerTimeouts: UInt64 = 0
    }

    private let counts = Locked(Counts())
    /// Signalled when the last request in flight ends (what a stop waits for).
    private let idle = Locked<Counts>.Condition()

    /// The methods that keep their own label value; any other is `other`.
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
    static let unmatchedRoute = "unmatched"

    /// `route` must be a routing-table pattern or `unmatched`: the caller passes what the router matched.
    func recordRequest(route: String, method: String, status: Int, seconds: Double) {
        let method = Metrics.methods.contains(method) && route != Metrics.unmatchedRoute ? method : "other"
        let status = (100...599).contains(status) ? status : 0
        counts.withLock { c in
            c.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            var h = c.latency[route] ?? Histogram()
            if let i = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { h.counts[i] += 1 }
            h.sum += seconds
            h.count += 1
            c.latency[route] = h
        }
    }

    func recordFrames(symbolicated: Int, missing: Int) {
        counts.withLock { c in
            c.framesSymbolicated += UInt64(max(0, symbolicated))
            c.framesMissing += UInt64(max(0, missing))
            c.reportsSymbolicated += 1
        }
    }

    func recordImport(outcome: String) {
        counts.withLock { $0.imports[outcome, default: 0] += 1 }
    }

    func recordHeaderTimeout() {
        counts.withLock { $0.headerTimeouts += 1 }
    }

    func recordResymbolicated(_ count: Int) {
        counts.withLock { $0.resymbolicated += UInt64(max(0, count)) }
    }

    /// Admits a request when fewer than `cap` are in flight; false means answer 503.
    func admit(cap: Int) -> Bool {
        counts.withLock { c in
            guard c.inFlight < cap else {
                c.rejectedBusy += 1
                return false
            }
            c.inFlight += 1
            return true
        }
    }

    func release() {
        counts.withLock { c in
            c.inFlight -= 1
            if c.inFlight <= 0 { idle.broadcast() }
        }
    }

    /// Waits until no request is in flight, at most `seconds`; false when some still were.
    func waitUntilIdle(seconds: Double) -> Bool {
        counts.wait(on: idle, until: { $0.inFlight <= 0 }, timeout: seconds, then: { _, idle in idle })
    }

    var requestsInFlight: Int { counts.withLock { $0.inFlight } }

    /// The exposition text; `store` holds gauges read at scrape time (builds, bytes, reports ...).
    func render(gauges: [(name: String, help: String, value: Double)]) -> String {
        let c = counts.withLock { $0 }
        var out = ""
        out += "# HELP symbolicate_http_requests_total HTTP requests by route, method and status.\n"
        out += "# TYPE symbolicate_http_requests_total counter\n"
        for (key, value) in c.requests.sorted(by: {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }) {
            out +=
                "symbolicate_http_requests_total{route=\"\(escape(key.route))\",method=\"\(escape(key.method))\",status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP symbolicate_http_request_duration_seconds Time from request start to response, by route.\n"
        out += "# TYPE symbolicate_http_request_duration_seconds histogram\n"
        for (route, h) in c.latency.sorted(by: { $0.key < $1.key }) {
            var cumulative: UInt64 = 0
            for (i, bound) in Metrics.buckets.enumerated() {
                cumulative += h.counts[i]
                out +=
                    "symbolicate_http_request_duration_seconds_bucket{route=\"\(escape(route))\",le=\"\(bound)\"} \(cumulative)\n"
            }
            out +=
                "symbolicate_http_request_duration_seconds_bucket{route=\"\(escape(route))\",le=\"+Inf\"} \(h.count)\n"
            out += "symbolicate_http_request_duration_seconds_sum{route=\"\(escape(route))\"} \(h.sum)\n"
            out += "symbolicate_http_request_duration_seconds_count{route=\"\(escape(route))\"} \(h.count)\n"
        }
        counter(
            &out, "symbolicate_reports_symbolicated_total",
            "Reports symbolicated for requests, each once (re-symbolications: symbolicate_reports_resymbolicated_total).",
            c.reportsSymbolicated)
        counter(
            &out, "symbolicate_frames_symbolicated_total",
            "Frames given a symbol, in reports symbolicated for requests.",
            c.framesSymbolicated)
        counter(
            &out, "symbolicate_frames_missing_total",
            "Frames of images with a UUID left without a symbol, in reports symbolicated for requests.", c.framesMissing
        )
        out += "# HELP symbolicate_imports_total Symbol uploads by outcome (unknown: the import's report was lost).\n"
        out += "# TYPE symbolicate_imports_total counter\n"
        for outcome in Set(c.imports.keys).union(["ok", "failed", "unknown"]).sorted() {
            out += "symbolicate_imports_total{outcome=\"\(escape(outcome))\"} \(c.imports[outcome] ?? 0)\n"
        }
        counter(
            &out, "symbolicate_reports_resymbolicated_total",
            "Stored reports rewritten when a build they waited for arrived (not in the report and frame counters).",
            c.resymbolicated)
        counter(
            &out, "symbolicate_http_rejected_busy_total", "Requests refused with 503 at the concurrency cap.",
            c.rejectedBusy)
        counter(
            &out, "symbolicate_http_header_timeouts_total", "Connections closed for taking too long to send headers.",
            c.headerTimeouts)
        out += "# HELP symbolicate_http_requests_in_flight Requests being served.\n"
        out += "# TYPE symbolicate_http_requests_in_flight gauge\n"
        out += "symbolicate_http_requests_in_flight \(c.inFlight)\n"
        for gauge in gauges {
            out +=
                "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n\(gauge.name) \(format(gauge.value))\n"
        }
        return out
    }

    /// A bucket store's part of the exposition: per S3 operation, calls, HTTP attempts, failures
    /// and latency; and the cache's hits, misses and evictions (its size is a gauge).
    static func bucketExposition(_ statistics: BucketStatistics) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ value: (BucketStatistics.Operation) -> String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for operation in statistics.operations {
                out += "\(name){operation=\"\(operation.name)\"} \(value(operation))\n"
            }
        }
        family("symbolicate_bucket_requests_total", "counter", "Object-storage calls by S3 operation.") {
            String($0.requests)
        }
        family(
            "symbolicate_bucket_attempts_total", "counter", "HTTP requests sent to object storage, retries included."
        ) {
            String($0.attempts)
        }
        family("symbolicate_bucket_errors_total", "counter", "Object-storage calls that failed, after retries.") {
            String($0.errors)
        }
        let latency = "symbolicate_bucket_request_duration_seconds"
        out += "# HELP \(latency) Time spent in object-storage calls, retries and backoff included.\n"
        out += "# TYPE \(latency) summary\n"
        for operation in statistics.operations {
            out += "\(latency)_sum{operation=\"\(operation.name)\"} \(operation.latencySeconds)\n"
            out += "\(latency)_count{operation=\"\(operation.name)\"} \(operation.latencyCount)\n"
        }
        let cache = statistics.cache
        for (name, help, value) in [
            ("symbolicate_cache_hits_total", "Build files found in the local cache.", cache.hits),
            ("symbolicate_cache_misses_total", "Build files fetched from the bucket into the cache.", cache.misses),
            (
                "symbolicate_cache_evictions_total", "Build files evicted from the cache to keep it in bounds.",
                cache.evictions
            ),
        ] {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
        }
        return out
    }

    private func counter(_ out: inout String, _ name: String, _ help: String, _ value: UInt64) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    private func escape(_ label: String) -> String {
        var s = ""
        for c in label {
            switch c {
            case "\\": s += "\\\\"
            case "\"": s += "\\\""
            case "\n": s += "\\n"
            default: s.append(c)
            }
        }
        return s
    }
}
