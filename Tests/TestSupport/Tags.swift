// The tags suites carry, saying what kind of test each is, for tools that pick tests by tag (an
// IDE's test plans). `swift test` here picks by name only (`--filter` and `--skip` take regular
// expressions over test names).

import Testing

extension Tag {
    /// Takes seconds, not milliseconds (builds fixtures, compares thousands of lookups, forks).
    @Tag public static var slow: Self
    /// Starts an HTTP server (in process or the built executable) on loopback.
    @Tag public static var server: Self
    /// Reads the corpus of real reports in ../shared/corpus/real.
    @Tag public static var corpus: Self
}
