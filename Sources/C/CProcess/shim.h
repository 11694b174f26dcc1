// Process control that Swift cannot call directly: prctl(2) is variadic, so it goes through a
// static inline wrapper here (as the other shims do for variadic C functions).
#ifndef SYMBOLICATE_CPROCESS_SHIM_H
#define SYMBOLICATE_CPROCESS_SHIM_H

#include <signal.h>
#include <sys/prctl.h>

/// PR_SET_PDEATHSIG: the calling process gets `signal` when the thread that forked it ends.
/// Async-signal-safe (one system call), so a child may call it between fork and execve.
static inline int cprocess_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

#endif
