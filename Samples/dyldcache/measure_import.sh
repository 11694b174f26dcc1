#!/usr/bin/env bash
# measure_import.sh -- peak memory and time of `symbolicate import` on a sample dyld shared cache and
# on one COPIES times larger (make_cache.py --copies), to check that an import holds one image at a
# time: the peak must stay under LIMIT_MB (300, the bound the README gives) whatever the cache's
# size. Also prints the wall and CPU seconds, and the images imported per wall second.
# Usage: Samples/dyldcache/measure_import.sh [SYMBOLICATE] [COPIES]   (GNU time is /usr/bin/time)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SYMBOLICATE="${1:-$HERE/../../.build/debug/symbolicate}"
COPIES="${2:-30}"
LIMIT_MB="${LIMIT_MB:-300}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/cache-memory.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
status=0
for copies in 1 "$COPIES"; do
    python3 "$HERE/make_cache.py" --layout ios16 --copies "$copies" --out "$WORK/cache$copies" >/dev/null
    /usr/bin/time -f "%M %e %U %S" -o "$WORK/rss$copies" "$SYMBOLICATE" import --store "$WORK/store$copies" \
        "$WORK/cache$copies/dyld_shared_cache_arm64e" >/dev/null 2>"$WORK/log$copies"
    images=$(grep -c '^  imported' "$WORK/log$copies" || true)
    size=$(du -k --apparent-size -c "$WORK/cache$copies"/* | tail -1 | cut -f1)
    read -r rss wall user sys <"$WORK/rss$copies"
    peak=$(( rss / 1024 ))
    rate=$(awk -v n="$images" -v t="$wall" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }')
    echo "copies=$copies images=$images cache=${size}KB peak_rss=${peak}MB wall=${wall}s cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')s images_per_s=$rate"
    if (( peak > LIMIT_MB )); then echo "over the ${LIMIT_MB} MB bound" >&2; status=1; fi
done
exit $status
