/*
 * ViewController.c -- C functions that carry Swift-mangled names, standing in for Swift code.
 *
 * The toolchain cannot compile Swift for Apple platforms on Linux, so these functions take the
 * symbol names a Swift compiler would give ViewController.viewDidLoad(), its first closure and
 * ViewController.loadData(). The closure calls into HoldKit, which is where the samples crash.
 */
#include "HoldApp.h"

#ifndef HOLD_VARIANT
#error "HOLD_VARIANT must name the build variant"
#endif

const char ha_build_variant[] = HOLD_VARIANT;
volatile hk_u32 ha_state;

__attribute__((noinline))
hk_u32 ha_load_data(void) {
    volatile hk_u32 values[3] = {ha_state, (hk_u32)ha_build_variant[0], 7u};
    return hk_digest(values, 3u, 0x11u);
}

__attribute__((noinline))
void ha_view_did_load_closure(void) {
    hk_u32 seed = hk_mix(ha_state, (hk_u32)sizeof(ha_build_variant));
    ha_state = hk_codec_run(seed, 4u);
    ha_state ^= hk_codec_checksum(seed);
}

__attribute__((noinline))
void ha_view_did_load(void) {
    ha_state = ha_load_data();
    ha_view_did_load_closure();
    ha_state = ha_model_update(ha_state);
}
