// The CPUs this process may run on, from sched_getaffinity(2). A C shim because glibc declares
// sched_getaffinity and CPU_COUNT only under _GNU_SOURCE, which Swift's Glibc module does not set.
#ifndef CPROCESSOR_H
#define CPROCESSOR_H

/// How many CPUs the calling thread's affinity mask allows, or -1 when it cannot be read.
int cprocessor_affinity_count(void);

#endif
