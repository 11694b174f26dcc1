// RetryPolicy: how often and how patiently a failed S3 request is tried again. Exponential
// backoff with "equal jitter" (half the delay fixed, half random), so replicas that failed together
// do not retry together, and the delay is never shorter than half the exponential step. Only
// what may succeed next time is retried: connection failures, timeouts, 5xx, 429 and S3's
// SlowDown / RequestTimeout; never a 4xx refusal.

public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first one included (1 = no retries).
    public var maxAttempts: Int
    /// The delay before the first retry (seconds); doubled for each further one.
    public var baseDelay: Double
    /// No delay is longer than this (seconds).
    public var maxDelay: Double

    public init(maxAttempts: Int = 4, baseDelay: Double = 0.2, maxDelay: Double = 5) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// No retries at all.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The delay before retry number `retry` (1 for the first retry), in seconds.
    public func delay<Generator: RandomNumberGenerator>(beforeRetry retry: Int, using generator: inout Generator)
        -> Double
    {
        let exponent = min(max(retry - 1, 0), 30)
        let step = min(maxDelay, baseDelay * Double(1 << exponent))
        guard step > 0 else { return 0 }
        return step / 2 + Double.random(in: 0...(step / 2), using: &generator)
    }

    /// Whether an HTTP answer is worth another attempt.
    static func isRetryable(status: Int, s3Code: String?) -> Bool {
        switch status {
        case 500, 502, 503, 504, 429: return true
        default:
            // ConditionalRequestConflict (409): another conditional write of the key was in flight;
            // S3 asks the client to try again.
            return s3Code == "SlowDown" || s3Code == "RequestTimeout" || s3Code == "InternalError"
                || s3Code == "ConditionalRequestConflict"
        }
    }
}
