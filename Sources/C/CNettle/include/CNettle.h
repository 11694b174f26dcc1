// Nettle's SHA-256, SHA-1 and HMAC (Debian's libnettle8; headers from nettle-dev), loaded with
// dlopen on first use instead of linked: a command that hashes nothing (a report from the store,
// `--help`) does not pay the dynamic loader for binding libnettle's symbols at start. The headers
// are included for their types and prototypes; the functions Sources/Digest calls are defined in
// nettle.c, each forwarding to the loaded library. Wrapped by Sources/Digest alone.
#ifndef SYMBOLICATE_CNETTLE_H
#define SYMBOLICATE_CNETTLE_H
#include <nettle/hmac.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#endif
