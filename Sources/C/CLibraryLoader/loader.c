// The one loading path of every optional-library shim: open the library (or the file an
// environment variable names instead), bind each entry point, run the library's own set-up, once
// per process, with the messages a user sees when the library or an entry point is missing.
#include "CLibraryLoader.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int load(symbolicate_library *library) {
    const char *name = library->override != NULL ? getenv(library->override) : NULL;
    if (name == NULL || name[0] == '\0') name = library->soname;
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(library->error, sizeof library->error, "%s", reason != NULL ? reason : "dlopen failed");
        return 0;
    }
    for (size_t i = 0; i < library->count; i++) {
        *library->points[i].slot = dlsym(handle, library->points[i].symbol);
        if (*library->points[i].slot == NULL) {
            snprintf(library->error, sizeof library->error, "%s has no %s", library->soname,
                     library->points[i].symbol);
            return 0;
        }
    }
    return library->after_load == NULL || library->after_load(library->error, sizeof library->error);
}

int symbolicate_library_ensure(symbolicate_library *library) {
    // The outcome is written once, under the lock, after the entry points; a reader that sees it
    // set (acquire) also sees the slots.
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state != 0) return state > 0;
    pthread_mutex_lock(&library->lock);
    state = library->state;
    if (state == 0) {
        state = load(library) ? 1 : -1;
        __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&library->lock);
    return state > 0;
}

void symbolicate_library_require(symbolicate_library *library, const char *name, const char *package) {
    if (symbolicate_library_ensure(library)) return;
    fprintf(stderr, "symbolicate: cannot load %s (%s): install Debian's %s\n", name, library->error, package);
    exit(1);
}
