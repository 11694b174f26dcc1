// libdwarf 20210528 from Debian's libdwarf-dev (headers in /usr/include/libdwarf, no pkg-config file).
#include <libdwarf/libdwarf.h>
#include <libdwarf/dwarf.h>
