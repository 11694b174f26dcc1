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
#include <stdio.h>
#include <stdlib.h>

static struct {
    void (*sha256_init)(struct sha256_ctx *);
    void (*sha256_update)(struct sha256_ctx *, size_t, const uint8_t *);
    void (*sha256_digest)(struct sha256_ctx *, size_t, uint8_t *);
    void (*sha1_init)(struct sha1_ctx *);
    void (*sha1_update)(struct sha1_ctx *, size_t, const uint8_t *);
    void (*sha1_digest)(struct sha1_ctx *, size_t, uint8_t *);
    void (*hmac_sha256_set_key)(struct hmac_sha256_ctx *, size_t, const uint8_t *);
    void (*hmac_sha256_update)(struct hmac_sha256_ctx *, size_t, const uint8_t *);
    void (*hmac_sha256_digest)(struct hmac_sha256_ctx *, size_t, uint8_t *);
} api;

#define CNETTLE_ENTRY(field) {"nettle_" #field, (void **)&api.field}

static const symbolicate_entry_point points[] = {
    CNETTLE_ENTRY(sha256_init),         CNETTLE_ENTRY(sha256_update),      CNETTLE_ENTRY(sha256_digest),
    CNETTLE_ENTRY(sha1_init),           CNETTLE_ENTRY(sha1_update),        CNETTLE_ENTRY(sha1_digest),
    CNETTLE_ENTRY(hmac_sha256_set_key), CNETTLE_ENTRY(hmac_sha256_update), CNETTLE_ENTRY(hmac_sha256_digest),
};

static symbolicate_library library = SYMBOLICATE_LIBRARY("SYMBOLICATE_LIBNETTLE", "libnettle.so.8", points, NULL);

/// Loads the library, or ends the process saying which package to install: a digest has no
/// way to fail, and without the library there is none to give.
static void ensure(void) {
    if (symbolicate_library_ensure(&library)) return;
    fprintf(stderr, "symbolicate: cannot load libnettle (%s): install Debian's libnettle8\n", library.error);
    exit(1);
}

void nettle_sha256_init(struct sha256_ctx *ctx) {
    ensure();
    api.sha256_init(ctx);
}

void nettle_sha256_update(struct sha256_ctx *ctx, size_t length, const uint8_t *data) {
    ensure();
    api.sha256_update(ctx, length, data);
}

void nettle_sha256_digest(struct sha256_ctx *ctx, size_t length, uint8_t *digest) {
    ensure();
    api.sha256_digest(ctx, length, digest);
}

void nettle_sha1_init(struct sha1_ctx *ctx) {
    ensure();
    api.sha1_init(ctx);
}

void nettle_sha1_update(struct sha1_ctx *ctx, size_t length, const uint8_t *data) {
    ensure();
    api.sha1_update(ctx, length, data);
}

void nettle_sha1_digest(struct sha1_ctx *ctx, size_t length, uint8_t *digest) {
    ensure();
    api.sha1_digest(ctx, length, digest);
}

void nettle_hmac_sha256_set_key(struct hmac_sha256_ctx *ctx, size_t key_length, const uint8_t *key) {
    ensure();
    api.hmac_sha256_set_key(ctx, key_length, key);
}

void nettle_hmac_sha256_update(struct hmac_sha256_ctx *ctx, size_t length, const uint8_t *data) {
    ensure();
    api.hmac_sha256_update(ctx, length, data);
}

void nettle_hmac_sha256_digest(struct hmac_sha256_ctx *ctx, size_t length, uint8_t *digest) {
    ensure();
    api.hmac_sha256_digest(ctx, length, digest);
}
