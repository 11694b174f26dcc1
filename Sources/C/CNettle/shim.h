// Nettle's SHA-256 and HMAC from Debian's nettle-dev (libarchive already links libnettle, so
// linking it costs no start-up time). Wrapped by Sources/Digest alone.
#include <nettle/sha2.h>
#include <nettle/hmac.h>
