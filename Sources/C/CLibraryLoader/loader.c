// The one call every optional-library shim makes while loading its library: open it (or the
// file an environment variable names instead) and bind each entry point, with the messages a
// user sees when the library or an entry point is missing.
#include "CLibraryLoader.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int symbolicate_library_load(const char *override, const char *soname, const symbolicate_entry_point *points,
                             size_t count, char *error, size_t error_size) {
    const char *name = override != NULL ? getenv(override) : NULL;
    if (name == NULL || name[0] == '\0') name = soname;
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason != NULL ? reason : "dlopen failed");
        return 0;
    }
    for (size_t i = 0; i < count; i++) {
        *points[i].slot = dlsym(library, points[i].symbol);
        if (*points[i].slot == NULL) {
            snprintf(error, error_size, "%s has no %s", soname, points[i].symbol);
            return 0;
        }
    }
    return 1;
}
