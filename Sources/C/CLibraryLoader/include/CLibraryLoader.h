// How the shims of the optional libraries (libarchive, libmicrohttpd, libcurl) load them on first
// use: dlopen with RTLD_NOW | RTLD_LOCAL (their symbols stay out of the global namespace, nothing
// else resolves them), the file an environment variable names instead when it is set, one message
// for a library that is missing or lacks an entry point, and the once-only, thread-safe state
// around it. Each shim declares its table of entry points and one `symbolicate_library`; loading,
// the state and the message are here.
#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <pthread.h>
#include <stddef.h>

/// One entry point to bind: its name in the library and where its address goes.
typedef struct {
    const char *symbol;
    void **slot;
} symbolicate_entry_point;

/// One optional library: where to find it, what to bind, and (filled in by the first
/// `symbolicate_library_ensure`) whether that worked and why not.
typedef struct {
    /// The environment variable that names another file to load instead, or NULL.
    const char *override;
    const char *soname;
    const symbolicate_entry_point *points;
    size_t count;
    /// Run once, after every entry point is bound (libcurl's curl_global_init); NULL for none.
    /// Returns 1, or 0 after writing its reason into `error`.
    int (*after_load)(char *error, size_t error_size);
    pthread_mutex_t lock;
    /// 0 before the first attempt, 1 loaded, -1 failed (with the reason in `error`).
    int state;
    char error[512];
} symbolicate_library;

/// A static initializer for a library whose entry points are the array `points`.
#define SYMBOLICATE_LIBRARY(override, soname, points, after_load)                                              \
    {(override), (soname), (points), sizeof(points) / sizeof((points)[0]), (after_load),                         \
     PTHREAD_MUTEX_INITIALIZER, 0, ""}

/// Loads `library` the first time it is called (later calls only read the outcome; any thread may
/// call it): dlopen(`soname`), or the file the environment variable `override` names when it is
/// set and not empty, then dlsym every entry point into its slot, then `after_load`. 1 when the
/// library is usable; 0 with the reason in `library->error`: dlerror's, "`soname` has no
/// `symbol`", or `after_load`'s.
int symbolicate_library_ensure(symbolicate_library *library);

/// For a library whose calls have no error of their own to report its absence with (libnettle,
/// libdwarf, libelf): loads it, or ends the process with status 1 after
/// "symbolicate: cannot load `name` (the loader's reason): install Debian's `package`".
void symbolicate_library_require(symbolicate_library *library, const char *name, const char *package);

#endif
