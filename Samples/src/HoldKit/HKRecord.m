/*
 * HKRecord.m -- Objective-C classes of HoldKit on a local root class (no Foundation).
 *
 * HKObject is an objc_root_class so the file compiles freestanding; the runtime functions it
 * needs (objc_msgSend) stay undefined and are looked up when the image loads. The methods give
 * the fixtures Objective-C symbol names such as -[HKRecord save] and +[HKRecord recordWithValue:].
 */
#include "HoldKit/HoldKit.h"

static volatile hk_u32 hk_record_storage[8];

@implementation HKObject
+ (id)alloc {
    return (id)(void *)hk_record_storage;
}
- (id)init {
    return self;
}
@end

@implementation HKRecord
+ (HKRecord *)recordWithValue:(hk_u32)value {
    return [[self alloc] initWithValue:value];
}

- (id)initWithValue:(hk_u32)value {
    self = [super init];
    _value = hk_mix(value, 0x52u);
    return self;
}

- (hk_u32)checksum {
    volatile hk_u32 words[2] = {_value, _value >> 3};
    return hk_digest(words, 2u, 0x31u);
}

- (hk_u32)save {
    hk_store_put(_value, [self checksum]);
    return hk_session_flush(_value & 7u);
}
@end
