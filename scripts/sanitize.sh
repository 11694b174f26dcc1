#!/usr/bin/env bash
# Runs tests under a sanitizer, built in a folder of its own (.build/asan, .build/tsan) so the
# normal build is left alone. The `symbolicate` binary that CLI, batch and server tests start is
# built there too, with the same sanitizer, and the tests find it beside their bundle.
#
# Usage: scripts/sanitize.sh address|thread [swift test options, e.g. --filter 'ServerTests|BatchTests']
#   make asan   the whole suite under AddressSanitizer (and LeakSanitizer)
#   make tsan   the server and batch suites under ThreadSanitizer
# Findings fail the run: ASan stops at the first, TSan reports all and exits non-zero.
# Suppressions (scripts/sanitizers/*.supp) name findings inside toolchain or system libraries
# only, each with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

kind=${1:-}
case "$kind" in
  address) scratch=.build/asan ;;
  thread) scratch=.build/tsan ;;
  -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  '') sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64 ;;
  *) echo "sanitize.sh: unknown sanitizer '$kind' (address or thread)" >&2; exit 64 ;;
esac
shift

# The Swift runtime's own crash backtracer would stall under a sanitizer; the sanitizer reports.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0}
export TSAN_OPTIONS=${TSAN_OPTIONS:-suppressions=$root/scripts/sanitizers/tsan.supp:print_suppressions=0:second_deadlock_stack=1}

start=$(date +%s)
status=0
swift test --sanitize="$kind" --scratch-path "$scratch" "$@" 2>&1 \
  | grep -v "Cannot export local symbol '__[at]san" || status=${PIPESTATUS[0]}
echo "sanitize.sh: $kind sanitizer run took $(( $(date +%s) - start )) s (build included); exit $status" >&2
exit "$status"
