// A thin C shim over __cxa_demangle, so Swift code never declares C++ ABI functions itself.
#include "CDemangle.h"
#include <stdint.h>
#include <stdlib.h>

// Exported with C linkage by libstdc++ (cxxabi.h).
extern char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

char *symbolicate_demangle_cxx(const char *name) {
    int status = 0;
    char *result = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(result);
        return NULL;
    }
    return result;
}
