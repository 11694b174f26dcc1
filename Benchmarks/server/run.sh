#!/bin/sh
# Benchmark of `symbolicate serve`: wrk posts a 60-frame crash report (built from the Samples
# report by make-report.sh) to POST /v1/symbolicate over 64 connections, with the Samples dSYMs in
# a fresh store. Installs wrk with apt when it is missing. Beside wrk's rate and latencies it
# prints the server process's own CPU time per report (its utime + stime from /proc over the
# measured run, divided by the requests wrk made) and, when valgrind is installed, the server's
# instructions per report: two runs under callgrind answering 20 and 120 reports one at a time,
# the difference over 100 (start-up and shutdown cancel out; stable under load, unlike CPU time).
# The machine's speed (Benchmarks/calibrate.sh) is printed first, so a slower machine can be told
# from a regression.
#
# Usage: Benchmarks/server/run.sh [SYMBOLICATE_BINARY]
#   environment: CONNECTIONS (64), DURATION (20s), WRK_THREADS (2), SERVER_THREADS (2), PORT (18090)
# Without a binary argument, builds the binary `make release` builds (`swift build -c release
# --static-swift-stdlib`): the Swift runtime linked in, as the container ships it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
connections=${CONNECTIONS:-64}
duration=${DURATION:-20s}
wrk_threads=${WRK_THREADS:-2}
server_threads=${SERVER_THREADS:-2}
port=${PORT:-18090}
variant=ios-arm64-dwarf5

if ! command -v wrk >/dev/null 2>&1; then
    echo "installing wrk (apt-get)" >&2
    apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi
if [ $# -ge 1 ]; then
    binary=$1
else
    (cd "$repo" && swift build -c release --static-swift-stdlib --product symbolicate >&2)
    binary="$(cd "$repo" && swift build -c release --static-swift-stdlib --show-bin-path)/symbolicate"
fi
sample="$repo/Samples/reports/HoldApp-$variant.crash"
[ -f "$sample" ] || { echo "no $sample: run Samples/generate.sh first" >&2; exit 1; }

. "$repo/scripts/lib/server.sh"

echo "calibration (Benchmarks/calibrate.sh, a fixed C loop): $("$here/../calibrate.sh") s of CPU"

"$here/make-report.sh" "$sample" 60 > "$work/report.crash"
"$binary" import --store "$work/store" "$repo/Samples/build/$variant/HoldApp.app.dSYM" \
    "$repo/Samples/build/$variant/HoldKit.framework.dSYM" >&2
"$binary" serve --store "$work/store" --listen "127.0.0.1:$port" --threads "$server_threads" \
    --max-concurrent 1024 --max-per-address $((connections * 2)) 2> "$work/access.log" &
server=$!
wait_for_server "http://127.0.0.1:$port"
frames=$(curl -fs -D - -o /dev/null --data-binary @"$work/report.crash" "http://127.0.0.1:$port/v1/symbolicate" \
    | tr -d '\r' | sed -n 's/^[Xx]-[Ss]ymbolicate-[Ff]rames: //p')
echo "report: 60 frames, symbolicated per request: $frames"
echo "wrk -t$wrk_threads -c$connections -d$duration (server --threads $server_threads, $(nproc) cores)"
# Warm-up, then the measured run.
REPORT="$work/report.crash" wrk -t"$wrk_threads" -c"$connections" -d2s -s "$here/post.lua" \
    "http://127.0.0.1:$port/v1/symbolicate" >/dev/null
# The server's CPU time (utime + stime, in clock ticks) before and after the measured run.
server_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
ticks_before=$(server_ticks "$server")
REPORT="$work/report.crash" wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency -s "$here/post.lua" \
    "http://127.0.0.1:$port/v1/symbolicate" | tee "$work/wrk.txt"
ticks_after=$(server_ticks "$server")
requests=$(awk '/requests in/ { print $1 }' "$work/wrk.txt")
awk -v t=$((ticks_after - ticks_before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
    'BEGIN { if (n > 0) printf "server CPU per report: %.3f ms (%d requests, %.2f s of the server'"'"'s CPU)\n", t / hz * 1000 / n, n, t / hz }'
kill -TERM "$server"
status=0
wait "$server" || status=$?
server=""
echo "server exit status after SIGTERM: $status"

# Instructions per report: the server under callgrind (debug information stripped, which valgrind
# 3.19 cannot read), one thread, reports posted one at a time; started afresh for each count.
if command -v valgrind >/dev/null 2>&1; then
    cp "$binary" "$work/symbolicate-stripped"
    strip --strip-debug "$work/symbolicate-stripped" 2>/dev/null || true
    vport=$((port + 1))
    for count in 20 120; do
        : > "$work/callgrind.log"
        valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$count" "$work/symbolicate-stripped" serve \
            --store "$work/store" --listen "127.0.0.1:$vport" --threads 1 2> "$work/callgrind.log" &
        server=$!
        # Waits for the log line, not /healthz: a request would count.
        for _ in $(seq 1200); do grep -q listening "$work/callgrind.log" && break; sleep 0.1; done
        grep -q listening "$work/callgrind.log" || { echo "the server under valgrind did not start" >&2; exit 1; }
        for _ in $(seq "$count"); do
            curl -fs -o /dev/null --data-binary @"$work/report.crash" "http://127.0.0.1:$vport/v1/symbolicate"
        done
        kill -TERM "$server"
        wait "$server" || true
        server=""
    done
    few=$(awk '/^(summary|totals):/ { print $2; exit }' "$work/callgrind.20")
    many=$(awk '/^(summary|totals):/ { print $2; exit }' "$work/callgrind.120")
    awk -v a="$few" -v b="$many" \
        'BEGIN { printf "server instructions per report: %.2f M (callgrind, 120 reports less 20, over 100)\n", (b - a) / 100 / 1e6 }'
fi