// libstdc++'s __cxa_demangle behind a C shim (Swift names go through the toolchain's Runtime
// module). Returns a malloc'd string (free it) or NULL when the name is not a C++ name.
#ifndef SYMBOLICATE_CDEMANGLE_H
#define SYMBOLICATE_CDEMANGLE_H
#include <stddef.h>

char *symbolicate_demangle_cxx(const char *name);

#endif
