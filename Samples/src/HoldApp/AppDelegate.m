/*
 * AppDelegate.m -- HoldApp's Objective-C classes and its entry point.
 *
 * HAObject is a local root class so no Foundation is needed. HAViewController's -loadView calls
 * the Swift-named ViewController.viewDidLoad(); HAWorker's -run drains the store on the sample
 * reports' second thread; -[HAAppDelegate makeRecord] uses HoldKit's classes across the image
 * boundary. main() hands over to UIApplicationMain, resolved when the app loads.
 */
#include "HoldApp.h"

__attribute__((objc_root_class))
@interface HAObject {
    void *isa;
}
- (id)init;
@end

@interface HAViewController : HAObject
- (void)loadView;
@end

@interface HAWorker : HAObject
- (hk_u32)run:(unsigned)count;
@end

@interface HAAppDelegate : HAObject
- (hk_u32)makeRecord:(hk_u32)value;
- (int)application:(void *)application didFinishLaunchingWithOptions:(void *)options;
@end

@implementation HAObject
- (id)init {
    return self;
}
@end

@implementation HAViewController
- (void)loadView {
    ha_view_did_load();
    ha_state = hk_rotate(ha_state, 9);
}
@end

@implementation HAWorker
- (hk_u32)run:(unsigned)count {
    hk_u32 drained = ha_worker_drain(count);
    return hk_mix(drained, count);
}
@end

@implementation HAAppDelegate
- (hk_u32)makeRecord:(hk_u32)value {
    HKRecord *record = [HKRecord recordWithValue:value];
    return [record save] ^ [record checksum];
}

- (int)application:(void *)application didFinishLaunchingWithOptions:(void *)options {
    ha_state = [self makeRecord:(hk_u32)(unsigned long)options];
    return ha_state != 0u;
}
@end

int main(int argc, char **argv) {
    ha_state = (hk_u32)argc;
    int status = UIApplicationMain(argc, argv, 0, (void *)"HAAppDelegate");
    ha_state = (hk_u32)status;
    return status;
}
