#!/usr/bin/env bash
# run.sh -- the performance benchmarks of the symbol store, side by side with LLVM's GSYM and
# Sentry's SymCache, on the same inputs in one run (`make bench`, or Benchmarks/run.sh [--large]).
#
# Inputs (generated once, cached in Benchmarks/.cache, never in the repository or CI):
#   dwarf5        the synthetic C++ app of Benchmarks/synth/generate.py (~40 MB of DWARF 5 in a
#                 Mach-O dSYM, thousands of functions, deep inlining), its 60-frame 4-image crash
#                 report, and the Samples' HoldApp/HoldKit
#   dwarf4        the same sources built with -gdwarf-4 (.debug_ranges, .debug_loc, DW_FORM_strp,
#                 version-4 line programs: most dSYMs in the field)
#   swift         a synthetic Swift program (Benchmarks/synth/swift_generate.py, ~40 MB of DWARF 4
#                 in a Linux ELF, built with swiftc -g -O)
#   --large       adds dwarf5-large and dwarf4-large, ~200 MB of DWARF each (slow to build)
# Measured:
#   calibration   Benchmarks/calibrate.sh: a fixed C loop's CPU time, before and after the run
#   import        every input: `symbolicate import` into an empty store vs `llvm-gsymutil-14
#                 --convert` vs symbolic's SymCache build: median wall and CPU time of 3, peak RSS
#   lookups/s     symbolicate-bench (one thread, SymbolStore.source) vs symbolic's SymCache.lookup
#                 in a Python loop, over the same address list (dwarf5)
#   report        whole-process symbolication of the report from a warm store vs llvm-symbolizer-14
#                 --inlines on the same adjusted addresses vs a Python script on prebuilt SymCaches:
#                 median wall time of 10 runs (dwarf5)
#   start-up      Benchmarks/startup.sh --results: its own section of results.md (instructions)
# The table, with PASS/MISS against the targets, is printed and written to Benchmarks/results.md.
# Missing tools are installed (apt-get, and `pip install symbolic` into Benchmarks/.cache/venv).
# BENCH_SMOKE=1 checks that the scripts run end to end on tiny inputs (a few modules each, cached in
# Benchmarks/.cache/smoke) and writes its table there, not to results.md, without start-up.
# BENCH_SCRATCH=DIR builds into another scratch folder than .build; BENCH_VARIANTS="dwarf5 swift"
# measures only the imports named (the dwarf5 input, which the other figures use, is always built).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
CACHE="$HERE/.cache"
WORK="$CACHE/run"
LARGE=0
for arg in "$@"; do
    case "$arg" in
        --large) LARGE=1 ;;
        -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument '$arg' (usage: run.sh [--large])" >&2; exit 64 ;;
    esac
done

RESULTS="$HERE/results.md"
GENERATE_ARGS=() SWIFT_ARGS=()
if [[ -n "${BENCH_SMOKE:-}" ]]; then
    CACHE="$CACHE/smoke"
    WORK="$CACHE/run" RESULTS="$CACHE/results.md"
    GENERATE_ARGS=(--modules 8) SWIFT_ARGS=(--modules 6)
fi

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
PY="$HERE/.cache/venv/bin/python"
if ! "$PY" -c 'import symbolic' 2>/dev/null; then
    say "installing symbolic into $HERE/.cache/venv"
    mkdir -p "$HERE/.cache"
    python3 -m venv "$HERE/.cache/venv" && "$HERE/.cache/venv/bin/pip" install -q symbolic \
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
SYNTH="$(python3 "$HERE/synth/generate.py" --cache "$CACHE" "${GENERATE_ARGS[@]}")"
field() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1"; }
UUID="$(field "$SYNTH/app.tsv" uuid)"
DSYM="$(field "$SYNTH/app.tsv" dsym)"
VMADDR="$(field "$SYNTH/app.tsv" text_vmaddr)"
DSYM_BUNDLE="$SYNTH/SynthApp.app.dSYM"
REPORT="$SYNTH/report.crash"

# dwarf_mb FILE: the size of all debug sections of a Mach-O (__debug_*) or an ELF (.debug_*), in MB.
dwarf_mb() {
    llvm-objdump-14 -h "$1" | python3 -c '
import sys
total = sum(int(f[2], 16) for f in (line.split() for line in sys.stdin) if len(f) > 2 and f[1].startswith(("__debug_", ".debug_")))
print("%.1f" % (total / 1048576))'
}
DWARF_MB="$(dwarf_mb "$DSYM")"

rm -rf "$WORK"
mkdir -p "$WORK/symcaches"
MEASURE=(python3 "$HERE/measure.py")
get() { awk -F': ' -v k="$2" '$1 == k { print $2 }' <<<"$1"; }

# ---- calibration ---------------------------------------------------------------------------
say "calibration (a fixed C loop)"
calibration_before="$("$HERE/calibrate.sh")"

# ---- import, every input ---------------------------------------------------------------------
# measure_import NAME IMPORT_PATH DWARF_FILE LABEL: symbolicate import of IMPORT_PATH (a dSYM bundle
# or an ELF) vs gsymutil (and, but for the large inputs, symbolic) on DWARF_FILE; figures in
# $WORK/variants/NAME/, the order of the table in $WORK/variants/order.
mkdir -p "$WORK/variants"
# Runs of each import: a ratio of two medians of 3 moved by a tenth between runs on this machine,
# and of two medians of 5 taken one tool after the other by 0.05 (the machine's speed drifts
# within a minute): the tools now take turns, one run each, and each gets 7.
export IMPORT_RUNS=7
measure_import() {
    local name="$1" path="$2" file="$3" label="$4" out="$WORK/variants/$1" mb i
    mkdir -p "$out"
    rm -f "$out/ours.runs" "$out/gsym.runs" "$out/symc.runs"
    mb="$(dwarf_mb "$file")"
    say "import ($name, $mb MB of DWARF): symbolicate, llvm-gsymutil-14$([[ $name == *large ]] || echo ', symbolic SymCache'), in turns, $IMPORT_RUNS runs each"
    for ((i = 0; i < IMPORT_RUNS; i++)); do
        "${MEASURE[@]}" --runs 1 --record "$out/ours.runs" --before "rm -rf '$WORK/store-$name'" -- \
            "$SYMBOLICATE" import --store "$WORK/store-$name" "$path" >/dev/null
        "${MEASURE[@]}" --runs 1 --record "$out/gsym.runs" --before "rm -f '$WORK/$name.gsym'" -- \
            llvm-gsymutil-14 --convert "$file" --out-file "$WORK/$name.gsym" >/dev/null
        if [[ $name != *large ]]; then
            "${MEASURE[@]}" --runs 1 --record "$out/symc.runs" -- \
                "$PY" "$HERE/symbolic_bench.py" symcache "$file" "$WORK/$name.symcache" >/dev/null
        fi
    done
    "${MEASURE[@]}" --summarize "$out/ours.runs" >"$out/ours"
    "${MEASURE[@]}" --summarize "$out/gsym.runs" >"$out/gsym"
    if [[ $name != *large ]]; then "${MEASURE[@]}" --summarize "$out/symc.runs" >"$out/symc"; fi
    printf 'name: %s\nlabel: %s\ndwarf_mb: %s\n' "$name" "$label" "$mb" >"$out/meta"
    echo "$name" >>"$WORK/variants/order"
}
wanted() { [[ -z "${BENCH_VARIANTS:-}" || " $BENCH_VARIANTS " == *" $1 "* ]]; }

measure_import dwarf5 "$DSYM_BUNDLE" "$DSYM" "C++, DWARF 5, Mach-O dSYM (arm64)"
ours_import="$(cat "$WORK/variants/dwarf5/ours")"
gsym_import="$(cat "$WORK/variants/dwarf5/gsym")"
symc_import="$(cat "$WORK/variants/dwarf5/symc")"
cp "$WORK/dwarf5.gsym" "$WORK/app.gsym"
cp "$WORK/dwarf5.symcache" "$WORK/app.symcache"
rm -rf "$WORK/store-import" && mv "$WORK/store-dwarf5" "$WORK/store-import"
if wanted dwarf4; then
    say "generating the DWARF 4 app (only when missing)"
    dir="$(python3 "$HERE/synth/generate.py" --cache "$CACHE" --dwarf 4 "${GENERATE_ARGS[@]}")"
    measure_import dwarf4 "$dir/SynthApp.app.dSYM" "$(field "$dir/app.tsv" dsym)" "C++, DWARF 4, Mach-O dSYM (arm64)"
fi
if wanted swift; then
    say "generating the Swift program (only when missing)"
    dir="$(python3 "$HERE/synth/swift_generate.py" --cache "$CACHE" "${SWIFT_ARGS[@]}")"
    measure_import swift "$dir/SynthSwift" "$dir/SynthSwift" "Swift, DWARF 4, ELF (x86_64)"
fi
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
# Frames, not lines: a frame with inlined calls is several lines under one frame number.
SYMBOLICATED="$(grep -E '^[0-9]+ +(SynthApp|HoldApp|HoldKit) .* \(.+:[0-9]+\)$' "$WORK/report.symbolicated" \
    | awk '{ print $1 }' | uniq | wc -l)"
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

# ---- large inputs -------------------------------------------------------------------------
# ~200 MB of DWARF 5 and of DWARF 4: one build of each, timed (wall and the CPU of every compile,
# link and dsymutil) and kept beside it (cache/<variant>/build.time); nothing to do when cached.
LARGE_BUILD=""
if ((LARGE)); then
    for dwarf in 5 4; do
        name="dwarf$dwarf-large"
        wanted "$name" || continue
        say "generating the $name input (only when missing)"
        # (An if, not `[[ ]] &&` in a substitution: its status 1 for DWARF 5 would end the script.)
        variant_dir="$CACHE/synth-large"
        if [[ $dwarf == 4 ]]; then variant_dir+="-dwarf4"; fi
        stamp="$variant_dir/stamp"
        before="$(stat -c %Y "$stamp" 2>/dev/null || echo none)"
        /usr/bin/time -f '%e %U %S' -o "$WORK/build-$name.time" \
            python3 "$HERE/synth/generate.py" --cache "$CACHE" --large --dwarf "$dwarf" "${GENERATE_ARGS[@]}" >"$WORK/build-$name.dir"
        if [[ "$(stat -c %Y "$stamp" 2>/dev/null || echo none)" != "$before" ]]; then
            cp "$WORK/build-$name.time" "$variant_dir/build.time"
        fi
        [[ $dwarf == 5 ]] && LARGE_BUILD="$(cat "$variant_dir/build.time" 2>/dev/null || true)"
        dir="$(cat "$WORK/build-$name.dir")"
        measure_import "$name" "$dir/SynthApp.app.dSYM" "$(field "$dir/app.tsv" dsym)" \
            "C++, DWARF $dwarf, Mach-O dSYM (arm64)"
        rm -rf "$WORK/store-$name" "$WORK/$name.gsym"
    done
fi

say "calibration, again"
calibration_after="$("$HERE/calibrate.sh")"

# ---- table ---------------------------------------------------------------------------------
export ours_import gsym_import symc_import ours_lookups symc_lookups ours_report llvm_report symc_report
export ours_start LARGE_BUILD DWARF_MB STORE_MB GSYM_MB SYMC_MB SYMBOLICATED FRAMES calibration_before calibration_after
export VARIANTS_DIR="$WORK/variants"
MACHINE="$(nproc) cores, $(lscpu | awk -F': +' '/^Model name/ { print $2; exit }'), $(free -g | awk '/^Mem:/ { print $2 }') GB RAM"
export LOAD="$(cut -d' ' -f1-3 /proc/loadavg)"
export MACHINE DATE="$(date -u '+%Y-%m-%d %H:%M UTC')" FUNCTIONS="$(get "$ours_lookups" functions)"
python3 "$HERE/table.py" | tee "$RESULTS"
[[ -n "${BENCH_SMOKE:-}" ]] && { say "smoke run: wrote $RESULTS"; exit 0; }

# ---- start-up ------------------------------------------------------------------------------
# Its own section of results.md, so that one run leaves every figure there.
say "start-up"
"$HERE/startup.sh" --results
