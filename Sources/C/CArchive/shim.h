// libarchive from Debian's libarchive-dev.
#include <archive.h>
#include <archive_entry.h>
#include <locale.h>

/// A locale whose LC_CTYPE is UTF-8 (C.UTF-8, else en_US.UTF-8), for libarchive's name
/// conversions; (locale_t)0 when the system has neither. The caller keeps it for the process.
static inline locale_t carchive_new_utf8_ctype_locale(void) {
    locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (locale == (locale_t)0) locale = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", (locale_t)0);
    return locale;
}
