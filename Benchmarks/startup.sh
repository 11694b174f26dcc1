#!/usr/bin/env bash
# startup.sh -- what a process costs before it does any work, and a small job whole-process:
# `symbolicate --help` and the 60-frame, 4-image report of the synthetic app from a warm store,
# beside an empty C program and llvm-symbolizer-14 (started with nothing to do, and given the
# report's 56 addresses), and the instructions of one lookup with its inline chain.
#
#   Benchmarks/startup.sh [--runs N] [--results]     (N: runs per figure, default 20)
#
# Figures: the median CPU time (user + system, from the kernel's rusage of the child: measure.py)
# of N runs, and the instructions one run executes, counted by `valgrind --tool=callgrind` when
# valgrind is installed (on a copy without debug information). CPU time grows when the machine is
# busy (caches, frequency); instruction counts do not, so they are the figure to compare across
# runs and what the budgets are in: the report <= 10 M, --help <= 5 M. A lookup's instructions are
# the difference of two symbolicate-bench runs over 1,000 and 21,000 addresses of the synthetic app
# from the store, divided by the 20,000 lookups between them: a store lookup as a report makes it
# (queried in place; a source loads its tables only after tens of thousands of lookups).
# Calibration.sh's figure (a fixed C loop) is printed beside the table, so a slower machine can be
# told from a regression. --results also writes the table into the "Start-up" section of
# Benchmarks/results.md (replaced in place; run.sh writes the rest).
# Builds the release binaries (--static-swift-stdlib, as `make release`) and, when missing, the
# synthetic app (Benchmarks/synth/generate.py, as run.sh does: slow the first time).
# BENCH_SMOKE=1 uses run.sh's tiny smoke inputs instead, and never writes results.md.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
CACHE="$HERE/.cache"
WORK="$CACHE/startup"
RUNS=20
RESULTS=0
while (($#)); do
    case "$1" in
        --runs) RUNS="${2:?--runs needs a number}"; shift ;;
        --results) RESULTS=1 ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "startup.sh: unknown argument '$1' (usage: startup.sh [--runs N] [--results])" >&2; exit 64 ;;
    esac
    shift
done
GENERATE_ARGS=()
if [[ -n "${BENCH_SMOKE:-}" ]]; then
    CACHE="$CACHE/smoke" WORK="$HERE/.cache/smoke/startup" RESULTS=0 GENERATE_ARGS=(--modules 8)
fi
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "startup.sh: --runs takes a whole number of runs, got '$RUNS'" >&2; exit 64; }

die() { echo "startup.sh: $*" >&2; exit 1; }
say() { echo "startup.sh: $*" >&2; }
for tool in llvm-symbolizer-14 cc python3; do
    command -v "$tool" >/dev/null 2>&1 || die "needs $tool (apt-get install llvm-14 gcc python3)"
done
HAVE_VALGRIND=0
command -v valgrind >/dev/null 2>&1 && HAVE_VALGRIND=1

cd "$REPO"
say "building (release, --static-swift-stdlib)"
for product in symbolicate symbolicate-bench; do
    swift build -c release --static-swift-stdlib --product "$product" >&2 || die "swift build -c release failed"
done
BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)"
SYMBOLICATE="$BIN/symbolicate"

say "generating the synthetic app (only when missing)"
SYNTH="$(python3 "$HERE/synth/generate.py" --cache "$CACHE" "${GENERATE_ARGS[@]}")"
REPORT="$SYNTH/report.crash"

rm -rf "$WORK"
mkdir -p "$WORK"
printf 'int main(void) { return 0; }\n' >"$WORK/empty.c"
cc -O2 -o "$WORK/empty" "$WORK/empty.c"
"$SYMBOLICATE" import --store "$WORK/store" "$SYNTH/SynthApp.app.dSYM" \
    "$REPO/Samples/build/ios-arm64-dwarf5/HoldApp.app.dSYM" \
    "$REPO/Samples/build/ios-arm64-dwarf5/HoldKit.framework.dSYM" >/dev/null
awk -F'\t' '!/^#/ { print $3 " " $4 }' "$SYNTH/frames.tsv" >"$WORK/frames.txt"
# valgrind 3.19 cannot read the DWARF 5 of a Swift binary: count instructions on a copy without it.
cp "$SYMBOLICATE" "$WORK/symbolicate"
strip --strip-debug "$WORK/symbolicate" 2>/dev/null || true
cp "$BIN/symbolicate-bench" "$WORK/symbolicate-bench"
strip --strip-debug "$WORK/symbolicate-bench" 2>/dev/null || true
say "calibration (a fixed C loop)"
CALIBRATION="$("$HERE/calibrate.sh")"
calibration_ms="$(awk -F': ' '$1 == "calibration_ms" { print $2 }' <<<"$CALIBRATION")"

# instructions CMD...: the instructions one run of CMD executes (callgrind), as a whole number.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null </dev/null \
        | awk '/Collected :/ { print $NF }'
}

# row NAME STDIN TARGET_MS BUDGET_M COMMAND...: one table row, median CPU of RUNS runs, one run's
# instructions, and PASS/MISS against TARGET_MS of CPU and BUDGET_M million instructions ("" for
# none).
ROWS=""
row() {
    local name="$1" input="$2" target="$3" budget="$4"
    shift 4
    say "$name"
    local figures cpu instructions="-"
    local stdin=(); [[ -n "$input" ]] && stdin=(--stdin "$input")
    figures="$(python3 "$HERE/measure.py" --runs "$RUNS" "${stdin[@]}" -- "$@")" || die "$name failed"
    cpu="$(awk -F': ' '$1 == "median_cpu_seconds" { printf "%.1f", $2 * 1000 }' <<<"$figures")"
    if ((HAVE_VALGRIND)); then
        instructions="$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" <"${input:-/dev/null}" 2>&1 >/dev/null \
            | awk '/Collected :/ { printf "%.1f M", $NF / 1e6 }')"
    fi
    local verdict="" budget_verdict=""
    [[ -n "$target" ]] && verdict="$(awk -v c="$cpu" -v t="$target" 'BEGIN { print (c <= t ? "PASS" : "MISS") }')"
    [[ -n "$budget" && "$instructions" != "-" ]] && budget_verdict="$(awk -v i="${instructions% M}" -v b="$budget" \
        'BEGIN { print (i <= b ? "PASS" : "MISS") }')"
    ROWS+="| $name | $cpu ms | ${target:+<= $target ms} | $verdict | ${instructions:--} | ${budget:+<= $budget M} | $budget_verdict |"$'\n'
}

row "empty C program" "" "" "" "$WORK/empty"
row "llvm-symbolizer-14 --inlines, no input" "" "" "" llvm-symbolizer-14 --inlines
row "symbolicate --help" "" 6 5 "$WORK/symbolicate" --help
row "llvm-symbolizer-14 --inlines, the report's 56 addresses" "$WORK/frames.txt" "" "" llvm-symbolizer-14 --inlines
row "symbolicate, the 60-frame report from a warm store" "" 10 10 \
    "$WORK/symbolicate" --store "$WORK/store" -o /dev/null "$REPORT"

# One lookup with its inline chain, from the store: the difference of 1,000 and 21,000 addresses.
# symbolicate-bench looks up the first 1,000 of a list once untimed and then the whole list once.
PER_LOOKUP="-"
if ((HAVE_VALGRIND)); then
    say "instructions per lookup"
    UUID="$(awk -F'\t' '$1 == "uuid" { print $2 }' "$SYNTH/app.tsv")"
    "$WORK/symbolicate-bench" lookups --store "$WORK/store" --uuid "$UUID" --count 40000 --check 0 --min-seconds 0 \
        --write-addresses "$WORK/addresses-all.txt" >/dev/null || die "symbolicate-bench failed"
    head -n 1000 "$WORK/addresses-all.txt" >"$WORK/addresses-1k.txt"
    head -n 21000 "$WORK/addresses-all.txt" >"$WORK/addresses-21k.txt"
    few="$(instructions "$WORK/symbolicate-bench" lookups --store "$WORK/store" --uuid "$UUID" \
        --addresses "$WORK/addresses-1k.txt" --check 0 --min-seconds 0)"
    many="$(instructions "$WORK/symbolicate-bench" lookups --store "$WORK/store" --uuid "$UUID" \
        --addresses "$WORK/addresses-21k.txt" --check 0 --min-seconds 0)"
    PER_LOOKUP="$(awk -v a="$few" -v b="$many" 'BEGIN { printf "%.0f", (b - a) / 20000 }')"
fi

TABLE="## Start-up

Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), by \`Benchmarks/startup.sh\`;
calibration (\`Benchmarks/calibrate.sh\`, a fixed C loop): $calibration_ms ms of CPU.
The instructions of one run (callgrind on a copy without debug information; stable under load,
so the budgets are in them), and whole-process CPU time (user + system), median of $RUNS runs.

| process | CPU, median | CPU target | verdict | instructions | budget | verdict |
|---|---|---|---|---|---|---|
$ROWS
One store lookup with its inline chain (the synthetic app, queried in place as a report's lookups
are): $PER_LOOKUP instructions (the difference of 21,000 and 1,000 addresses, over 20,000).
"
printf '%s' "$TABLE"
if ((RESULTS)); then
    python3 - "$HERE/results.md" "$TABLE" <<'EOF'
import sys
path, table = sys.argv[1], sys.argv[2].rstrip("\n") + "\n"
try:
    text = open(path).read()
except FileNotFoundError:
    text = "# Benchmark results\n"
start = text.find("## Start-up")
if start < 0:
    text = text.rstrip("\n") + "\n\n" + table
else:
    end = text.find("\n## ", start + 1)
    text = text[:start] + table + ("\n" + text[end + 1:] if end >= 0 else "")
open(path, "w").write(text)
EOF
    say "wrote the Start-up section of $HERE/results.md"
fi
