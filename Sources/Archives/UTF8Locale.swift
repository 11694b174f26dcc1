// UTF8Locale: runs libarchive calls with a UTF-8 LC_CTYPE on the calling thread. libarchive
// converts member names between the archive's charset and the current locale's (a zip name
// with general-purpose bit 11 is UTF-8; `archive_entry_pathname_utf8` converts back through the
// locale), and under the C locale every non-ASCII name fails to convert. The process keeps the
// C locale (setlocale is process-wide and would change how every other thread formats and
// parses); instead each call into libarchive that reads or writes names switches only its own
// thread with uselocale(3) and switches back before returning. libarchive caches a reader's
// charset on first use, so the reader's first calls run under this locale too.

internal import CArchive

enum UTF8Locale {
    /// Holds the process-wide UTF-8 locale object; created once, never freed.
    // @unchecked: a locale_t is only read after creation (uselocale does not change it).
    private struct Handle: @unchecked Sendable {
        let locale: locale_t?
    }

    private static let handle = Handle(locale: carchive_new_utf8_ctype_locale())

    /// Runs `body` with the calling thread's LC_CTYPE set to UTF-8 (as is, when none exists).
    static func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        guard let locale = handle.locale else { return try body() }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return try body()
    }
}
