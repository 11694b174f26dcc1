// How the shims of the optional libraries (libarchive, libmicrohttpd, libcurl) load them on first
// use: dlopen with RTLD_NOW | RTLD_LOCAL (their symbols stay out of the global namespace, nothing
// else resolves them), the file an environment variable names instead when it is set, and one
// message for a library that is missing or lacks an entry point. Each shim keeps its own table of
// entry points and loads it once (pthread_once); the loading itself is this one call.
#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <stddef.h>

/// One entry point to bind: its name in the library and where its address goes.
typedef struct {
    const char *symbol;
    void **slot;
} symbolicate_entry_point;

/// dlopen(`soname`), or the file the environment variable `override` names when it is set and not
/// empty (`override` may be NULL), then dlsym every entry point of `points` into its slot. 1 when
/// all are bound; 0 with the reason in `error`: dlerror's, or "`soname` has no `symbol`".
int symbolicate_library_load(const char *override, const char *soname, const symbolicate_entry_point *points,
                             size_t count, char *error, size_t error_size);

#endif
