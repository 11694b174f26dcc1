#!/usr/bin/env bash
# run.sh -- the performance benchmarks of the symbol store, side by side with LLVM's GSYM and
# Sentry's SymCache, on the same inputs in one run (`make bench`, or Benchmarks/run.sh [--large]).
#
# Input: the synthetic app of Benchmarks/synth/generate.py (tens of MB of DWARF 5, thousands of
# functions, deep inlining), its 60-frame 4-image crash report, and the Samples' HoldApp/HoldKit.
# Measured:
#   import        `symbolicate import` into an empty store  vs  `llvm-gsymutil-14 --convert`
#                 vs symbolic's SymCache build: median wall time of 3 runs, peak RSS
#   lookups/s     symbolicate-bench (one thread, SymbolStore.source) vs symbolic's SymCache.lookup
#                 in a Python loop, over the same address list
#   report        whole-process symbolication of the report from a warm store vs llvm-symbolizer-14
#                 --inlines on the same adjusted addresses vs a Python script on prebuilt SymCaches:
#                 median wall time of 10 runs
#   memory        with --large: import of the ~100 and ~200 MB-of-DWARF variants vs llvm-gsymutil-14
#                 --convert on the same files (peak RSS, CPU and wall time: median of 3), and the
#                 time it took to build them
#   start-up      Benchmarks/startup.sh --results: its own section of results.md
# The table, with PASS/MISS against the targets, is printed and written to Benchmarks/results.md.
# Missing tools are installed (apt-get, and `pip install symbolic` into Benchmarks/.cache/venv).
# BENCH_SCRATCH=DIR builds into another scratch folder than .build.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
CACHE="$HERE/.cache"
WORK="$CACHE/run"
LARGE=0
for arg in "$@"; do
    case "$arg" in
        --large) LARGE=1 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument '$arg' (usage: run.sh [--large])" >&2; exit 64 ;;
    esac
done

die() { echo "run.sh: $*" >&2; exit 1; }
say() { echo "run.sh: $*" >&2; }

# ---- tools ---------------------------------------------------------------------------------
missing=()
for pair in llvm-gsymutil-14:llvm-14 llvm-symbolizer-14:llvm-14 llvm-objdump-14:llvm-14 ld64.lld-14:lld-14 \
            dsymutil-19:llvm-19 python3:python3; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
if ((${#missing[@]})); then
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    say "installing ${missing[*]}"
    $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null \
        || die "could not install ${missing[*]} (apt-get install ${missing[*]})"
fi
PY="$CACHE/venv/bin/python"
if ! "$PY" -c 'import symbolic' 2>/dev/null; then
    say "installing symbolic into $CACHE/venv"
    mkdir -p "$CACHE"
    python3 -m venv "$CACHE/venv" && "$CACHE/venv/bin/pip" install -q symbolic \
        || die "could not install symbolic (pip install symbolic)"
fi

# ---- build and inputs ----------------------------------------------------------------------
cd "$REPO"
SCRATCH=(); [[ -n "${BENCH_SCRATCH:-}" ]] && SCRATCH=(--scratch-path "$BENCH_SCRATCH")
say "building (release)"
# A source file saved while the build runs makes it fail; try again a few times.
for attempt in 1 2 3; do
    swift build -c release --static-swift-stdlib "${SCRATCH[@]}" --product symbolicate >&2 \
        && swift build -c release --static-swift-stdlib "${SCRATCH[@]}" --product symbolicate-bench >&2 && break
    ((attempt < 3)) || die "swift build -c release failed"
    sleep 2
done
BIN="$(swift build -c release --static-swift-stdlib "${SCRATCH[@]}" --show-bin-path)"
SYMBOLICATE="$BIN/symbolicate"
BENCH="$BIN/symbolicate-bench"

say "generating the synthetic app (only when missing)"
SYNTH="$(python3 "$HERE/synth/generate.py" --cache "$CACHE")"
field() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1"; }
UUID="$(field "$SYNTH/app.tsv" uuid)"
DSYM="$(field "$SYNTH/app.tsv" dsym)"
VMADDR="$(field "$SYNTH/app.tsv" text_vmaddr)"
DSYM_BUNDLE="$SYNTH/SynthApp.app.dSYM"
REPORT="$SYNTH/report.crash"

# dwarf_mb FILE: the size of all __debug_* sections of a Mach-O, in MB.
dwarf_mb() {
    llvm-objdump-14 -h "$1" | python3 -c '
import sys
total = sum(int(f[2], 16) for f in (line.split() for line in sys.stdin) if len(f) > 2 and f[1].startswith("__debug_"))
print("%.1f" % (total / 1048576))'
}
DWARF_MB="$(dwarf_mb "$DSYM")"

rm -rf "$WORK"
mkdir -p "$WORK/symcaches"
MEASURE=(python3 "$HERE/measure.py")
get() { awk -F': ' -v k="$2" '$1 == k { print $2 }' <<<"$1"; }

# ---- import --------------------------------------------------------------------------------
say "import: symbolicate ($DWARF_MB MB of DWARF)"
ours_import="$("${MEASURE[@]}" --runs 3 --before "rm -rf '$WORK/store-import'" -- \
    "$SYMBOLICATE" import --store "$WORK/store-import" "$DSYM_BUNDLE")"
say "import: llvm-gsymutil-14"
gsym_import="$("${MEASURE[@]}" --runs 3 --before "rm -f '$WORK/app.gsym'" -- \
    llvm-gsymutil-14 --convert "$DSYM" --out-file "$WORK/app.gsym")"
say "import: symbolic SymCache"
symc_import="$("${MEASURE[@]}" --runs 3 -- "$PY" "$HERE/symbolic_bench.py" symcache "$DSYM" "$WORK/app.symcache")"
# size_mb FILE...: their total size in MB, one decimal.
size_mb() { python3 -c 'import os, sys; print("%.1f" % (sum(map(os.path.getsize, sys.argv[1:])) / 1048576))' "$@"; }
# The build file alone (the store's catalog beside it is shared by every build).
STORE_MB="$(size_mb "$WORK"/store-import/builds/*.sqlite)"
GSYM_MB="$(size_mb "$WORK/app.gsym")"
SYMC_MB="$(size_mb "$WORK/app.symcache")"

# ---- lookups -------------------------------------------------------------------------------
say "lookups: symbolicate-bench"
ours_lookups="$("$BENCH" lookups --store "$WORK/store-import" --uuid "$UUID" --dsym "$DSYM" \
    --write-addresses "$WORK/addresses.txt")" || die "symbolicate-bench failed or found answers that differ from the dSYM"
say "lookups: symbolic"
symc_lookups="$("$PY" "$HERE/symbolic_bench.py" lookups "$WORK/app.symcache" "$WORK/addresses.txt" "$VMADDR")"

# ---- whole-process report ------------------------------------------------------------------
say "report: warming a store with the report's three builds"
"$SYMBOLICATE" import --store "$WORK/store-warm" "$DSYM_BUNDLE" \
    "$REPO/Samples/build/ios-arm64-dwarf5/HoldApp.app.dSYM" \
    "$REPO/Samples/build/ios-arm64-dwarf5/HoldKit.framework.dSYM" >/dev/null
"$SYMBOLICATE" --store "$WORK/store-warm" -o "$WORK/report.symbolicated" "$REPORT" >/dev/null
SYMBOLICATED="$(grep -cE '^[0-9]+ +(SynthApp|HoldApp|HoldKit) .* \(.+:[0-9]+\)$' "$WORK/report.symbolicated" || true)"
FRAMES="$(grep -vc '^#' "$SYNTH/frames.tsv")"
awk -F'\t' '!/^#/ { print $3 " " $4 }' "$SYNTH/frames.tsv" >"$WORK/frames.txt"
cp "$WORK/app.symcache" "$WORK/symcaches/$UUID.symcache"
awk -F'\t' '!/^#/ && !seen[$2]++ { print $2 "\t" $3 }' "$SYNTH/frames.tsv" | while IFS=$'\t' read -r id path; do
    [[ -f "$WORK/symcaches/$id.symcache" ]] || "$PY" "$HERE/symbolic_bench.py" symcache "$path" "$WORK/symcaches/$id.symcache"
done
say "report: symbolicate"
ours_report="$("${MEASURE[@]}" --runs 10 -- "$SYMBOLICATE" --store "$WORK/store-warm" -o /dev/null "$REPORT")"
ours_start="$("${MEASURE[@]}" --runs 10 -- "$SYMBOLICATE" --help)"
say "report: llvm-symbolizer-14"
llvm_report="$("${MEASURE[@]}" --runs 10 --stdin "$WORK/frames.txt" -- llvm-symbolizer-14 --inlines)"
say "report: symbolic"
symc_report="$("${MEASURE[@]}" --runs 10 -- "$PY" "$HERE/symbolic_bench.py" report "$SYNTH/frames.tsv" "$WORK/symcaches")"

# ---- memory (large variant) ----------------------------------------------------------------
LARGE_DWARF_MB="" large_import="" large_gsym="" MID_DWARF_MB="" mid_import="" mid_gsym="" LARGE_BUILD=""
if ((LARGE)); then
    # One build of each variant, timed (wall and the CPU of every compile, link and dsymutil);
    # nothing to do when the cache already holds it.
    # The time of the run that built a variant is kept beside it (cache/synth-large/build.time).
    for variant in mid large; do
        say "generating the $variant variant (only when missing)"
        stamp="$CACHE/synth-$variant/stamp"
        before="$(stat -c %Y "$stamp" 2>/dev/null || echo none)"
        /usr/bin/time -f '%e %U %S' -o "$WORK/build-$variant.time" \
            python3 "$HERE/synth/generate.py" --cache "$CACHE" "--$variant" >"$WORK/build-$variant.dir"
        if [[ "$(stat -c %Y "$stamp" 2>/dev/null || echo none)" != "$before" ]]; then
            cp "$WORK/build-$variant.time" "$CACHE/synth-$variant/build.time"
        fi
    done
    LARGE_BUILD="$(cat "$CACHE/synth-large/build.time" 2>/dev/null || true)"
    for variant in mid large; do
        dir="$(cat "$WORK/build-$variant.dir")"
        dsym="$(field "$dir/app.tsv" dsym)"
        mb="$(dwarf_mb "$dsym")"
        say "memory: symbolicate import ($mb MB of DWARF)"
        ours="$("${MEASURE[@]}" --runs 3 --before "rm -rf '$WORK/store-$variant'" -- \
            "$SYMBOLICATE" import --store "$WORK/store-$variant" "$dir/SynthApp.app.dSYM")"
        say "memory: llvm-gsymutil-14 ($mb MB of DWARF)"
        gsym="$("${MEASURE[@]}" --runs 3 --before "rm -f '$WORK/$variant.gsym'" -- \
            llvm-gsymutil-14 --convert "$dsym" --out-file "$WORK/$variant.gsym")"
        rm -rf "$WORK/store-$variant" "$WORK/$variant.gsym"
        if [[ $variant == mid ]]; then
            MID_DWARF_MB="$mb" mid_import="$ours" mid_gsym="$gsym"
        else
            LARGE_DWARF_MB="$mb" large_import="$ours" large_gsym="$gsym"
        fi
    done
fi

# ---- table ---------------------------------------------------------------------------------
export ours_import gsym_import symc_import ours_lookups symc_lookups ours_report llvm_report symc_report
export ours_start large_import large_gsym LARGE_DWARF_MB mid_import mid_gsym MID_DWARF_MB LARGE_BUILD DWARF_MB STORE_MB GSYM_MB SYMC_MB SYMBOLICATED FRAMES
MACHINE="$(nproc) cores, $(lscpu | awk -F': +' '/^Model name/ { print $2; exit }'), $(free -g | awk '/^Mem:/ { print $2 }') GB RAM"
export LOAD="$(cut -d' ' -f1-3 /proc/loadavg)"
export MACHINE DATE="$(date -u '+%Y-%m-%d %H:%M UTC')" FUNCTIONS="$(get "$ours_lookups" functions)"
python3 "$HERE/table.py" | tee "$HERE/results.md"

# ---- start-up ------------------------------------------------------------------------------
# Its own section of results.md, so that one run leaves every figure there.
say "start-up"
"$HERE/startup.sh" --results
