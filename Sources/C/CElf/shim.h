// libelf from Debian's libelf-dev.
#include <libelf.h>
#include <gelf.h>
