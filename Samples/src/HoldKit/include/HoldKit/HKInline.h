/*
 * HKInline.h -- small hashing and checking helpers shared by HoldKit and HoldApp.
 *
 * Every helper is `static inline` and always inlined, so at -O2 their code lands inside the
 * functions that call them while their line table entries point back into this header. That
 * gives the samples inlined frames that come from another file than their caller, nested up
 * to three levels (hk_rotate inside hk_mix inside hk_digest).
 */
#ifndef HOLDKIT_HKINLINE_H
#define HOLDKIT_HKINLINE_H

#define HK_INLINE static inline __attribute__((always_inline))

typedef unsigned int hk_u32;

/* Set before a failed check traps, so the failing code is visible in a debugger. */
extern volatile hk_u32 hk_last_failure;

HK_INLINE hk_u32 hk_rotate(hk_u32 value, unsigned shift) {
    shift &= 31u;
    return (value << shift) | (value >> ((32u - shift) & 31u));
}

HK_INLINE hk_u32 hk_mix(hk_u32 hash, hk_u32 value) {
    hash ^= value * 0xcc9e2d51u;
    hash = hk_rotate(hash, 15);
    return hash * 0x1b873593u + 0xe6546b64u;
}

HK_INLINE void hk_require(int condition, hk_u32 code) {
    if (!condition) {
        hk_last_failure = code;
        __builtin_trap();
    }
}

HK_INLINE hk_u32 hk_digest(const volatile hk_u32 *values, unsigned count, hk_u32 seed) {
    hk_u32 hash = seed;
    for (unsigned i = 0; i < count; i++) {
        hash = hk_mix(hash, values[i]);
    }
    hk_require(hash != 0u, 0x4844u);
    return hash ^ count;
}

#endif
