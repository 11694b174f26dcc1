// How the shims of the optional libraries (libarchive, libmicrohttpd, libcurl) load them on first
// use: dlopen with RTLD_NOW | RTLD_LOCAL (their symbols stay out of the global namespace, nothing
// else resolves them), the file an environment variable names instead when it is set, and one
// message for a library that is missing or lacks an entry point. Each shim keeps its own table of
// entry points and loads it once (pthread_once); these two calls are what the shims share.
#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <stddef.h>

/// dlopen(`soname`), or the file the environment variable `override` names when it is set and not
/// empty (`override` may be NULL). NULL on failure, with dlerror's reason in `error`.
void *symbolicate_library_open(const char *override, const char *soname, char *error, size_t error_size);

/// dlsym(`library`, `symbol`) stored in `*slot`. 0 when the library has no such symbol, with
/// "`soname` has no `symbol`" in `error`.
int symbolicate_library_bind(void *library, const char *soname, const char *symbol, void **slot, char *error,
                             size_t error_size);

#endif
