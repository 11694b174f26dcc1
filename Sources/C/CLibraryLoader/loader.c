// The two calls every optional-library shim makes while loading its library: open it (or the
// file an environment variable names instead) and bind each entry point, with the messages a
// user sees when the library or an entry point is missing.
#include "CLibraryLoader.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *symbolicate_library_open(const char *override, const char *soname, char *error, size_t error_size) {
    const char *name = override != NULL ? getenv(override) : NULL;
    if (name == NULL || name[0] == '\0') name = soname;
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason != NULL ? reason : "dlopen failed");
    }
    return library;
}

int symbolicate_library_bind(void *library, const char *soname, const char *symbol, void **slot, char *error,
                             size_t error_size) {
    *slot = dlsym(library, symbol);
    if (*slot == NULL) {
        snprintf(error, error_size, "%s has no %s", soname, symbol);
        return 0;
    }
    return 1;
}
