// Nettle's SHA-256, SHA-1 and HMAC from Debian's nettle-dev (libarchive already links libnettle, so
// linking it costs no start-up time). Wrapped by Sources/Digest alone.
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include <nettle/hmac.h>
