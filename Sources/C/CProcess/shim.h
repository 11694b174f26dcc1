// Process control that Swift cannot call directly: prctl(2) is variadic, so it goes through a
// static inline wrapper here (as the other shims do for variadic C functions).
#ifndef SYMBOLICATE_CPROCESS_SHIM_H
#define SYMBOLICATE_CPROCESS_SHIM_H

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/// PR_SET_PDEATHSIG: the calling process gets `signal` when the thread that forked it ends.
/// Async-signal-safe (one system call), so a child may call it between fork and execve.
static inline int cprocess_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

/// Ends a child that could not start what it was forked for: writes `message`, the error's
/// number and, for the usual ones, its name (`: errno 26, ETXTBSY`) and a newline to standard
/// error, then exits with status 127, as a shell does for a command it cannot run.
/// Async-signal-safe: only write(2) and _exit(2), on memory the caller prepared before fork.
static inline void cprocess_exit_unstarted(const char *message, int error) {
    char text[32] = ": errno ";
    size_t length = 8;
    char digits[12];
    size_t count = 0;
    unsigned value = error < 0 ? 0u : (unsigned)error;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0 && count < sizeof digits);
    while (count > 0) text[length++] = digits[--count];
    const char *name = error == ENOENT ? "ENOENT" : error == EACCES ? "EACCES" : error == ETXTBSY ? "ETXTBSY"
        : error == ENOEXEC ? "ENOEXEC" : error == ENOMEM ? "ENOMEM" : error == E2BIG ? "E2BIG" : 0;
    if (name) {
        text[length++] = ',';
        text[length++] = ' ';
        for (const char *c = name; *c && length < sizeof text - 2; c++) text[length++] = *c;
    }
    text[length++] = '\n';
    ssize_t ignored = write(2, message, strlen(message));
    ignored = write(2, text, length);
    (void)ignored;
    _exit(127);
}

#endif
