// Counters of the S3 client, per operation: calls, HTTP attempts (retries included), calls that
// failed, and the calls' latency (sum and count, seconds, retries and backoff included). One lock;
// the server reads a snapshot when it is scraped.

import SymbolicateModel

public final class ObjectStorageMetrics: Sendable {
    public struct Counters: Sendable, Equatable {
        /// Calls of the operation.
        public var requests: UInt64 = 0
        /// HTTP requests sent for them: first attempts, retries and redirects.
        public var attempts: UInt64 = 0
        /// Calls that threw.
        public var errors: UInt64 = 0
        public var latencySum: Double = 0
        public var latencyCount: UInt64 = 0

        public init() {}
    }

    private let counters = Locked<[String: Counters]>([:])

    public init() {}

    /// One HTTP request sent (a first attempt, a retry or a redirect).
    func recordAttempt(operation: String) {
        counters.withLock { all in all[operation, default: Counters()].attempts += 1 }
    }

    /// One call finished, successfully or not, after `seconds`.
    func record(operation: String, failed: Bool, seconds: Double) {
        counters.withLock { all in
            var entry = all[operation] ?? Counters()
            entry.requests += 1
            if failed { entry.errors += 1 }
            entry.latencySum += seconds
            entry.latencyCount += 1
            all[operation] = entry
        }
    }

    /// The counters of every operation called so far, by operation name (`GetObject`, ...).
    public func snapshot() -> [String: Counters] {
        counters.withLock { $0 }
    }
}
