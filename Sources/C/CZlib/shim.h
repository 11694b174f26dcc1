// zlib from Debian's zlib1g-dev.
#include <zlib.h>
