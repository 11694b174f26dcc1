/*
 * HoldKit.h -- the public interface of the HoldKit sample framework.
 *
 * HoldKit is a tiny, freestanding framework used only to produce Mach-O fixtures: C functions,
 * Objective-C classes on a local root class, C++ templates behind a C entry point, and functions
 * that carry Swift-mangled names. The app (HoldApp) calls into it across the image boundary.
 */
#ifndef HOLDKIT_HOLDKIT_H
#define HOLDKIT_HOLDKIT_H

#include "HKInline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HK_STORE_CAPACITY 16u

/* A fixed-size store of words; all state lives in the framework's data segment. */
void hk_store_put(unsigned slot, hk_u32 value);
hk_u32 hk_store_get(unsigned slot);
hk_u32 hk_session_flush(unsigned count);
hk_u32 hk_codec_run(hk_u32 seed, unsigned rounds);
hk_u32 hk_codec_checksum(hk_u32 seed);

/* Store.commit(count:) -- a function with a Swift-mangled name. */
hk_u32 hk_swift_store_commit(unsigned count) __asm__("_$s7HoldKit5StoreC6commit5countSiSi_tF");
/* Store.reset() */
void hk_swift_store_reset(void) __asm__("_$s7HoldKit5StoreC5resetyyF");

#ifdef __cplusplus
}
#endif

#ifdef __OBJC__
__attribute__((objc_root_class))
@interface HKObject {
    void *isa;
}
+ (id)alloc;
- (id)init;
@end

@interface HKRecord : HKObject {
    hk_u32 _value;
}
+ (HKRecord *)recordWithValue:(hk_u32)value;
- (id)initWithValue:(hk_u32)value;
- (hk_u32)checksum;
- (hk_u32)save;
@end
#endif

#endif
