// SQLite 3 from Debian's libsqlite3-dev.
#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call: the one setting the store changes.
// Memory statistics (on by default) take a global mutex on every allocation and free; the store
// never reads them. Call before the first connection opens (later calls return SQLITE_MISUSE).
static inline int symbolicate_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
