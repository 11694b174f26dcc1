/*
 * HKStore.c -- the C core of HoldKit: a fixed-size word store and the functions that commit it.
 *
 * Store.commit(count:) (a Swift-mangled name) hashes the store with the inline helpers from
 * HKInline.h, so its machine code holds inlined regions nested three deep. The sample crash
 * reports place their crashing frame inside one of those regions.
 */
#include "HoldKit/HoldKit.h"

#ifndef HOLD_VARIANT
#error "HOLD_VARIANT must name the build variant"
#endif

/* The build variant's name; every variant embeds its own, so every build gets its own LC_UUID. */
const char hk_build_variant[] = HOLD_VARIANT;
volatile hk_u32 hk_last_failure;
static volatile hk_u32 hk_words[HK_STORE_CAPACITY];
static volatile hk_u32 hk_commits;

void hk_store_put(unsigned slot, hk_u32 value) {
    hk_words[slot % HK_STORE_CAPACITY] = hk_mix(value, slot);
}

hk_u32 hk_store_get(unsigned slot) {
    return hk_words[slot % HK_STORE_CAPACITY];
}

__attribute__((noinline))
hk_u32 hk_swift_store_commit(unsigned count) {
    if (count > HK_STORE_CAPACITY) {
        count = HK_STORE_CAPACITY;
    }
    hk_u32 digest = hk_digest(hk_words, count, hk_commits ^ (hk_u32)hk_build_variant[count & 7u]);
    hk_commits = hk_commits + 1u;
    return digest;
}

__attribute__((noinline))
void hk_swift_store_reset(void) {
    for (unsigned i = 0; i < HK_STORE_CAPACITY; i++) {
        hk_words[i] = 0u;
    }
    hk_commits = 0u;
}

__attribute__((noinline))
hk_u32 hk_session_flush(unsigned count) {
    hk_u32 first = hk_swift_store_commit(count);
    hk_require(first != 0x5a5a5a5au, 0x4653u);
    hk_u32 second = hk_swift_store_commit(count / 2u);
    return hk_rotate(first ^ second, count);
}
