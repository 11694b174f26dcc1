// libFuzzer's driver entry point (documented in LLVM's LibFuzzer.rst, "Using libFuzzer as a
// library"). SwiftPM gives every executable its own `main`, so the fuzz targets start libFuzzer
// through this call instead of libFuzzer's `main`; the library itself comes with the
// `-sanitize=fuzzer` link.
#ifndef CFUZZER_H
#define CFUZZER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

#endif
