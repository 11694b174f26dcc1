#!/usr/bin/env bash
# batch.sh -- measures `symbolicate batch` on 10,000 reports.
#
# Builds the release binary, makes N reports (default 10,000) from the Samples reports by
# giving each copy its own Incident Identifier (and, for .ips, incident_id / incident), spread
# over nested folders and packed into one zip, imports the Samples' dSYMs into a temporary
# store, then runs `symbolicate batch --store STORE -j JOBS -o OUT reports.zip` under
# /usr/bin/time -v and prints reports/s, wall time and peak RSS. Target: < 15 s for 10,000
# reports with -j 2. Usage: Benchmarks/batch.sh [COUNT] [JOBS]
# Environment: SCRATCH (build folder, default /tmp/symbolicate-bench-build),
# KEEP=1 keeps the work folder, INPUT=folder benchmarks the unpacked folder instead of the zip.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
COUNT="${1:-10000}"
JOBS="${2:-2}"
SCRATCH="${SCRATCH:-/tmp/symbolicate-bench-build}"
INPUT="${INPUT:-zip}"

die() { echo "batch.sh: $*" >&2; exit 1; }
[[ -d "$ROOT/Samples/reports" && -d "$ROOT/Samples/build" ]] || die "Samples/reports or Samples/build is missing (run Samples/generate.sh)"
command -v python3 >/dev/null || die "python3 is needed to generate the reports"
command -v zip >/dev/null || die "zip is needed (Debian package: zip)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed for peak RSS (Debian package: time; apt-get install time)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/batch-bench.XXXXXX")"
if [[ "${KEEP:-0}" != 1 ]]; then trap 'rm -rf "$WORK"' EXIT; else echo "work folder: $WORK"; fi

echo "== building the release binary"
swift build -c release --scratch-path "$SCRATCH" --product symbolicate 2>&1 | tail -1
BIN="$SCRATCH/release/symbolicate"
[[ -x "$BIN" ]] || die "no binary at $BIN"

echo "== generating $COUNT reports"
python3 - "$ROOT/Samples/reports" "$WORK/reports" "$COUNT" <<'PY'
import os, re, sys, uuid
src, dst, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
samples = sorted(f for f in os.listdir(src) if f.endswith((".crash", ".ips")))
texts = [(f, open(os.path.join(src, f), encoding="utf-8").read()) for f in samples]
incident_line = re.compile(r"^(Incident Identifier:\s*)\S+", re.M)
incident_json = re.compile(r'("incident(?:_id)?"\s*:\s*")[0-9A-Fa-f-]+(")')
for i in range(count):
    name, text = texts[i % len(texts)]
    new_id = str(uuid.UUID(int=(0x5EED << 96) + i)).upper()
    text = incident_line.sub(lambda m: m.group(1) + new_id, text)
    text = incident_json.sub(lambda m: m.group(1) + new_id + m.group(2), text)
    stem, ext = os.path.splitext(name)
    folder = os.path.join(dst, f"device-{i % 50:02d}", f"day-{i % 7}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{stem}-{i:05d}{ext}"), "w", encoding="utf-8") as out:
        out.write(text)
PY
(cd "$WORK/reports" && zip -q -r "$WORK/reports.zip" .)
echo "   $(find "$WORK/reports" -type f | wc -l) files, zip $(du -h "$WORK/reports.zip" | cut -f1)"

echo "== importing the Samples into a temporary store"
"$BIN" import --store "$WORK/store" "$ROOT/Samples/build" >"$WORK/import.txt" 2>&1 \
    || { cat "$WORK/import.txt" >&2; die "import failed"; }

TARGET="$WORK/reports.zip"
[[ "$INPUT" == folder ]] && TARGET="$WORK/reports"
echo "== symbolicate batch --store STORE -j $JOBS -o OUT $(basename "$TARGET")"
/usr/bin/time -v -o "$WORK/time.txt" "$BIN" batch --store "$WORK/store" -j "$JOBS" -o "$WORK/out" \
    --summary "$WORK/summary.json" --progress lines "$TARGET" 2>"$WORK/stderr.txt" \
    || { cat "$WORK/stderr.txt" >&2; die "batch failed"; }
sed -n '/^Batch summary/,/^$/p' "$WORK/stderr.txt"

written=$(find "$WORK/out" -type f | wc -l)
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt")
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
user=$(awk -F': ' '/User time/ {print $2}' "$WORK/time.txt")
sys=$(awk -F': ' '/System time/ {print $2}' "$WORK/time.txt")
cpu=$(awk -F': ' '/Percent of CPU/ {print $2}' "$WORK/time.txt")
seconds=$(python3 -c "import sys; p=sys.argv[1].split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))" "$wall")
rate=$(python3 -c "import sys; print(f'{int(sys.argv[1])/float(sys.argv[2]):.0f}')" "$COUNT" "$seconds")
echo "== result"
echo "reports:       $COUNT (outputs written: $written)"
echo "workers:       $JOBS (machine has $(nproc) cores)"
echo "wall time:     ${seconds} s"
echo "reports/s:     $rate"
echo "peak RSS:      $((rss_kb / 1024)) MiB"
echo "CPU time:      ${user} s user + ${sys} s system (${cpu} of one core)"
echo "load average:  $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine lengthens the wall time)"
