// libarchive from Debian's libarchive-dev.
#include <archive.h>
#include <archive_entry.h>
