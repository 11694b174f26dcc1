// Thin C shims over the two demanglers, so Swift code never declares C++ ABI functions itself.
#include "CDemangle.h"
#include <stdint.h>
#include <stdlib.h>

// Exported by libswiftCore (always linked into a Swift program).
extern char *swift_demangle(const char *mangledName, size_t mangledNameLength,
                            char *outputBuffer, size_t *outputBufferSize, uint32_t flags);
// Exported with C linkage by libstdc++ (cxxabi.h).
extern char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

char *symbolicate_demangle_swift(const char *name, size_t length) {
    return swift_demangle(name, length, NULL, NULL, 0);
}

char *symbolicate_demangle_cxx(const char *name) {
    int status = 0;
    char *result = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(result);
        return NULL;
    }
    return result;
}
