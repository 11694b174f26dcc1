// The libnettle loader: dlopen("libnettle.so.8") on the first call of any function below, dlsym
// the entry points Sources/Digest uses, and one definition per entry point under nettle's own name
// that forwards to the library. The definitions are hidden: they are not exported from the
// executable, so a library that links libnettle itself (libcurl's TLS stack) binds to the real
// one, never to these. A machine without libnettle runs every command that hashes nothing; one
// that hashes ends with the loader's message.
#pragma GCC visibility push(hidden)
#include "CNettle.h"
#pragma GCC visibility pop
#include "CLibraryLoader.h"

// F(name, parameters, arguments): every entry point (each returns nothing), once.
#define CNETTLE_FUNCTIONS(F)                                                                                   \
    F(nettle_sha256_init, (struct sha256_ctx * ctx), (ctx))                                                    \
    F(nettle_sha256_update, (struct sha256_ctx * ctx, size_t length, const uint8_t *data), (ctx, length, data)) \
    F(nettle_sha256_digest, (struct sha256_ctx * ctx, size_t length, uint8_t *digest), (ctx, length, digest))  \
    F(nettle_sha1_init, (struct sha1_ctx * ctx), (ctx))                                                        \
    F(nettle_sha1_update, (struct sha1_ctx * ctx, size_t length, const uint8_t *data), (ctx, length, data))   \
    F(nettle_sha1_digest, (struct sha1_ctx * ctx, size_t length, uint8_t *digest), (ctx, length, digest))    \
    F(nettle_hmac_sha256_set_key, (struct hmac_sha256_ctx * ctx, size_t length, const uint8_t *key),          \
      (ctx, length, key))                                                                                      \
    F(nettle_hmac_sha256_update, (struct hmac_sha256_ctx * ctx, size_t length, const uint8_t *data),          \
      (ctx, length, data))                                                                                     \
    F(nettle_hmac_sha256_digest, (struct hmac_sha256_ctx * ctx, size_t length, uint8_t *digest),              \
      (ctx, length, digest))

#define CNETTLE_POINTER(name, parameters, arguments) void(*name) parameters;
static struct {
    CNETTLE_FUNCTIONS(CNETTLE_POINTER)
} api;

#define CNETTLE_ENTRY(name, parameters, arguments) {#name, (void **)&api.name},
static const symbolicate_entry_point points[] = {CNETTLE_FUNCTIONS(CNETTLE_ENTRY)};

static symbolicate_library library = SYMBOLICATE_LIBRARY("SYMBOLICATE_LIBNETTLE", "libnettle.so.8", points, NULL);

static void ensure(void) { symbolicate_library_require(&library, "libnettle", "libnettle8"); }

#define CNETTLE_FORWARD(name, parameters, arguments)                                                           \
    void name parameters {                                                                                     \
        ensure();                                                                                              \
        api.name arguments;                                                                                    \
    }
CNETTLE_FUNCTIONS(CNETTLE_FORWARD)
