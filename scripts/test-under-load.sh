#!/usr/bin/env bash
# The test suite on a starved machine: the tests get one CPU (taskset -c 0) while stress-ng keeps
# two workers busy beside them, RUNS times in a row (default 3); the first failing run stops it.
# Tests must wait for events, not for time (Tests/TestSupport/Eventually.swift), and this is how
# that is checked. Not part of CI: one run takes several times as long as `make test`.
# Usage: scripts/test-under-load.sh [swift test arguments...]   (environment: RUNS, SWIFT)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
swift=${SWIFT:-swift}
command -v stress-ng >/dev/null || { echo "test-under-load: stress-ng is missing (scripts/install-deps.sh stress-ng)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "test-under-load: taskset is missing (util-linux)" >&2; exit 1; }
"$swift" build --build-tests
stress-ng --cpu 2 --quiet &
load=$!
trap 'kill $load 2>/dev/null || true; wait $load 2>/dev/null || true' EXIT
for run in $(seq 1 "$runs"); do
    echo "test-under-load: run $run of $runs, under stress-ng --cpu 2, on CPU 0" >&2
    start=$(date +%s)
    if ! taskset -c 0 "$swift" test --skip-build "$@"; then
        echo "test-under-load: run $run failed" >&2
        exit 1
    fi
    echo "test-under-load: run $run passed in $(( $(date +%s) - start )) s" >&2
done
echo "test-under-load: $runs runs passed" >&2
