#!/usr/bin/env bash
# startup.sh -- what a process costs before it does any work, and a small job whole-process:
# `symbolicate --help` and the 60-frame, 4-image report of the synthetic app from a warm store,
# beside an empty C program and llvm-symbolizer-14 (started with nothing to do, and given the
# report's 56 addresses).
#
#   Benchmarks/startup.sh [--runs N] [--results]     (N: runs per figure, default 20)
#
# Figures: the median CPU time (user + system, from the kernel's rusage of the child: measure.py)
# of N runs, and the instructions one run executes, counted by `valgrind --tool=callgrind` when
# valgrind is installed. CPU time grows when the machine is busy (caches, frequency); instruction
# counts do not, so they are the figure to compare across runs. --results also writes the table into
# the "Start-up" section of Benchmarks/results.md (replaced in place; run.sh writes the rest).
# Builds the release binary (--static-swift-stdlib, as `make release`) and, when missing, the
# synthetic app (Benchmarks/synth/generate.py, as run.sh does: slow the first time).
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
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "startup.sh: unknown argument '$1' (usage: startup.sh [--runs N] [--results])" >&2; exit 64 ;;
    esac
    shift
done
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
swift build -c release --static-swift-stdlib --product symbolicate >&2 || die "swift build -c release failed"
SYMBOLICATE="$(swift build -c release --static-swift-stdlib --show-bin-path)/symbolicate"

say "generating the synthetic app (only when missing)"
SYNTH="$(python3 "$HERE/synth/generate.py" --cache "$CACHE")"
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

# row NAME STDIN TARGET_MS COMMAND...: one table row, median CPU of RUNS runs, one run's
# instructions, and PASS/MISS against TARGET_MS of CPU ("" for none).
ROWS=""
row() {
    local name="$1" input="$2" target="$3"
    shift 3
    say "$name"
    local figures cpu instructions="-"
    local stdin=(); [[ -n "$input" ]] && stdin=(--stdin "$input")
    figures="$(python3 "$HERE/measure.py" --runs "$RUNS" "${stdin[@]}" -- "$@")" || die "$name failed"
    cpu="$(awk -F': ' '$1 == "median_cpu_seconds" { printf "%.1f", $2 * 1000 }' <<<"$figures")"
    if ((HAVE_VALGRIND)); then
        instructions="$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" <"${input:-/dev/null}" 2>&1 >/dev/null \
            | awk '/Collected :/ { printf "%.1f M", $NF / 1e6 }')"
    fi
    local verdict=""
    [[ -n "$target" ]] && verdict="$(awk -v c="$cpu" -v t="$target" 'BEGIN { print (c <= t ? "PASS" : "MISS") }')"
    ROWS+="| $name | $cpu ms | ${instructions:--} | ${target:+<= $target ms} | $verdict |"$'\n'
}

row "empty C program" "" "" "$WORK/empty"
row "llvm-symbolizer-14 --inlines, no input" "" "" llvm-symbolizer-14 --inlines
row "symbolicate --help" "" 6 "$WORK/symbolicate" --help
row "llvm-symbolizer-14 --inlines, the report's 56 addresses" "$WORK/frames.txt" "" llvm-symbolizer-14 --inlines
row "symbolicate, the 60-frame report from a warm store" "" 10 \
    "$WORK/symbolicate" --store "$WORK/store" -o /dev/null "$REPORT"

TABLE="## Start-up

Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), by \`Benchmarks/startup.sh\`.
Whole-process CPU time (user + system), median of $RUNS runs, and the instructions of one run
(callgrind; stable under load, unlike CPU time).

| process | CPU, median | instructions | target | verdict |
|---|---|---|---|---|
$ROWS"
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
