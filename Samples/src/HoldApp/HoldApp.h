/*
 * HoldApp.h -- declarations shared by the HoldApp sample application's source files.
 *
 * HoldApp is the application half of the fixtures. Its functions carry Swift-mangled names
 * (ViewController.viewDidLoad() and its closure), Objective-C method names, and C++ template
 * names, and they call into HoldKit across the framework boundary.
 */
#ifndef HOLDAPP_HOLDAPP_H
#define HOLDAPP_HOLDAPP_H

#include "HoldKit/HoldKit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The build variant's name; every variant embeds its own, so every build gets its own LC_UUID. */
extern const char ha_build_variant[];
extern volatile hk_u32 ha_state;

hk_u32 ha_model_update(hk_u32 value);
hk_u32 ha_worker_drain(unsigned count);

/* ViewController.viewDidLoad() */
void ha_view_did_load(void) __asm__("_$s7HoldApp14ViewControllerC11viewDidLoadyyF");
/* closure #1 in ViewController.viewDidLoad() */
void ha_view_did_load_closure(void) __asm__("_$s7HoldApp14ViewControllerC11viewDidLoadyyFyycfU_");
/* ViewController.loadData() */
hk_u32 ha_load_data(void) __asm__("_$s7HoldApp14ViewControllerC8loadDatayyF");

/* Provided by the system at run time (resolved by dynamic lookup). */
int UIApplicationMain(int argc, char **argv, void *principal, void *delegate);

#ifdef __cplusplus
}
#endif

#endif
