// SwiftPM builds a C target from at least one source file; the declaration in include/CFuzzer.h
// is all this target provides (libFuzzer defines the function).
#include "CFuzzer.h"
