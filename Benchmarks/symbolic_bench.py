#!/usr/bin/env python3
"""symbolic_bench.py -- the Sentry `symbolic` side of the benchmarks (run in Benchmarks/.cache/venv).

  symcache DSYM OUT            builds the SymCache of the dSYM's arm64 slice (or of the one object
                               of an ELF) and writes it to OUT
                               (the import run.sh times against `symbolicate import`)
  lookups SYMCACHE ADDRESSES TEXT_VMADDR [MIN_SECONDS]
                               looks up every address of the list (one hex address a line, in the
                               build's vmaddr space; symbolic wants them relative to __TEXT) until
                               MIN_SECONDS have passed, on one thread, and prints lookups_per_second
  report FRAMES_TSV CACHE_DIR  what a whole-process symbolication does: opens the SymCache of every
                               image named in frames.tsv (CACHE_DIR/<UUID>.symcache) and looks up
                               each frame's address once, printing one line per inline level

symbolic's lookup returns every inline level, as our lookup does; each call crosses from Python
into Rust, so its lookups per second are bound by the Python call, not by the index.
"""

import sys
import time

from symbolic import Archive, SymCache


def build_symcache(dsym, out):
    archive = Archive.open(dsym)
    objects = list(archive.iter_objects())
    obj = next((o for o in objects if o.arch == "arm64"), objects[0] if len(objects) == 1 else None)
    if obj is None:
        sys.exit("symbolic_bench.py: %s has no arm64 slice" % dsym)
    cache = obj.make_symcache()
    with open(out, "wb") as handle:
        cache.dump_into(handle)


def lookups(path, address_file, vmaddr, minimum_seconds):
    cache = SymCache.open(path)
    with open(address_file) as handle:
        addresses = [int(line, 16) - vmaddr for line in handle if line.strip()]
    lookup = cache.lookup
    for address in addresses[:1000]:
        lookup(address)
    count = levels = answered = 0
    start, cpu_start = time.perf_counter(), time.thread_time()
    while True:
        for address in addresses:
            found = lookup(address)
            if found:
                answered += 1
                levels += len(found)
        count += len(addresses)
        elapsed = time.perf_counter() - start
        if elapsed >= minimum_seconds:
            break
    cpu = time.thread_time() - cpu_start
    print("lookups: %d" % count)
    print("cpu_seconds: %.3f" % cpu)
    print("lookups_per_cpu_second: %.0f" % (count / cpu))
    print("seconds: %.3f" % elapsed)
    print("lookups_per_second: %.0f" % (count / elapsed))
    print("answered_fraction: %.3f" % (answered / max(1, count)))
    print("levels_per_answer: %.2f" % (levels / max(1, answered)))


def report(frames_tsv, cache_dir):
    frames = []
    with open(frames_tsv) as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            image, uuid, _, address, vmaddr = line.rstrip("\n").split("\t")
            frames.append((uuid, int(address, 16) - int(vmaddr, 16)))
    caches = {}
    out = []
    for uuid, address in frames:
        cache = caches.get(uuid)
        if cache is None:
            cache = caches[uuid] = SymCache.open("%s/%s.symcache" % (cache_dir, uuid))
        for level in cache.lookup(address):
            out.append("%s %s:%d" % (level.symbol, level.full_path, level.line))
    sys.stdout.write("\n".join(out) + "\n")


def main(argv):
    if len(argv) >= 3 and argv[0] == "symcache":
        build_symcache(argv[1], argv[2])
    elif len(argv) >= 4 and argv[0] == "lookups":
        lookups(argv[1], argv[2], int(argv[3], 0), float(argv[4]) if len(argv) > 4 else 2.0)
    elif len(argv) >= 3 and argv[0] == "report":
        report(argv[1], argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
