#!/usr/bin/env bash
# calibrate.sh -- how fast this machine is right now, as one figure to print beside every result.
#
#   Benchmarks/calibrate.sh [--runs N]      (N: runs, default 5)
#
# Compiles a fixed C loop (a chain of 200 million dependent multiply-xorshift steps on one core,
# no memory traffic, about 1.6 billion instructions whatever the machine) with `cc -O2` and prints
# the median and the fastest CPU time (user + system) of N runs, in milliseconds, as
# `calibration_ms: M` and `calibration_min_ms: M`, then the load average. The same code on a
# machine twice as slow, or on this one while others load it, takes about twice as long; a
# result that moved with this figure is the machine, one that moved alone is the code.
# Instruction counts (callgrind) do not depend on the machine; this figure is for the seconds.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUNS=5
while (($#)); do
    case "$1" in
        --runs) RUNS="${2:?--runs needs a number}"; shift ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "calibrate.sh: unknown argument '$1' (usage: calibrate.sh [--runs N])" >&2; exit 64 ;;
    esac
    shift
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "calibrate.sh: --runs takes a whole number, got '$RUNS'" >&2; exit 64; }
command -v cc >/dev/null 2>&1 || { echo "calibrate.sh: needs cc (apt-get install gcc)" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/loop.c" <<'C'
#include <stdint.h>
#include <stdio.h>
int main(void) {
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (uint32_t i = 0; i < 200000000u; i++) {
        x = x * 6364136223846793005u + i;
        x ^= x >> 29;
    }
    printf("%llu\n", (unsigned long long)x);
    return 0;
}
C
cc -O2 -o "$WORK/loop" "$WORK/loop.c"
figures="$(python3 "$HERE/measure.py" --runs "$RUNS" -- "$WORK/loop")"
awk -F': ' '$1 == "median_cpu_seconds" { printf "calibration_ms: %.0f\n", $2 * 1000 }
            $1 == "min_cpu_seconds" { printf "calibration_min_ms: %.0f\n", $2 * 1000 }' <<<"$figures"
echo "load_average: $(cut -d' ' -f1-3 /proc/loadavg)"
