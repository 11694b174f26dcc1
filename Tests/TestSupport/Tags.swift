// The tags suites carry, so a run can pick or leave out a kind: `swift test --skip-tags slow`
// (Swift Testing's filters) or a CI step for the server alone.

import Testing

extension Tag {
    /// Takes seconds, not milliseconds (builds fixtures, compares thousands of lookups, forks).
    @Tag public static var slow: Self
    /// Starts an HTTP server (in process or the built executable) on loopback.
    @Tag public static var server: Self
    /// Reads the corpus of real reports in ../shared/corpus/real.
    @Tag public static var corpus: Self
}
