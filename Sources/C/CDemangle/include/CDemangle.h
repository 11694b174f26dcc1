// Demanglers that come with the toolchain: the Swift runtime's swift_demangle and libstdc++'s
// __cxa_demangle. Both return a malloc'd string (free it) or NULL when the name is not theirs.
#ifndef SYMBOLICATE_CDEMANGLE_H
#define SYMBOLICATE_CDEMANGLE_H
#include <stddef.h>

char *symbolicate_demangle_swift(const char *name, size_t length);
char *symbolicate_demangle_cxx(const char *name);

#endif
