// Nettle's SHA-256 from Debian's nettle-dev (libarchive already links libnettle).
#include <nettle/sha2.h>
