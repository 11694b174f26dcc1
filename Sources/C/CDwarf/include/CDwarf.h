// libdwarf 20210528 (Debian's libdwarf1; headers from libdwarf-dev in /usr/include/libdwarf),
// loaded with dlopen on first use instead of linked: only a command that reads DWARF with it (the
// cross-check of our own reader) pays for loading it and libelf. The headers are included for their
// types and prototypes; the functions Sources/ObjectFiles/Dwarf.swift calls are defined in
// dwarf.c, each forwarding to the loaded library.
#ifndef SYMBOLICATE_CDWARF_H
#define SYMBOLICATE_CDWARF_H
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#endif
