// Linux calls that Swift's Glibc module does not declare, because glibc declares them only under
// _GNU_SOURCE: sched_getaffinity (with CPU_COUNT) and sync_file_range.
#ifndef CLINUX_H
#define CLINUX_H

/// How many CPUs the calling thread's affinity mask allows, or -1 when it cannot be read.
int clinux_affinity_count(void);

/// Starts the disk's writing of the file's dirty pages without waiting for it
/// (sync_file_range(2) with SYNC_FILE_RANGE_WRITE): a later fsync then has less left to wait
/// for. Returns 0, or the errno of a failure (which loses nothing: fsync still writes them).
int clinux_start_writeback(int fd);

#endif
