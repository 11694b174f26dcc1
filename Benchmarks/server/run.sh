#!/bin/sh
# Benchmark of `symbolicate serve`: wrk posts a 60-frame crash report (built from the Samples
# report by make-report.sh) to POST /v1/symbolicate over 64 connections, with the Samples dSYMs in
# a fresh store. Installs wrk with apt when it is missing.
#
# Usage: Benchmarks/server/run.sh [SYMBOLICATE_BINARY]
#   environment: CONNECTIONS (64), DURATION (20s), WRK_THREADS (2), SERVER_THREADS (2), PORT (18090)
# Without a binary argument, builds the release binary with `swift build -c release`.
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
    (cd "$repo" && swift build -c release --product symbolicate >&2)
    binary="$repo/.build/release/symbolicate"
fi
sample="$repo/Samples/reports/HoldApp-$variant.crash"
[ -f "$sample" ] || { echo "no $sample: run Samples/generate.sh first" >&2; exit 1; }

. "$repo/scripts/lib/server.sh"

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
REPORT="$work/report.crash" wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency -s "$here/post.lua" \
    "http://127.0.0.1:$port/v1/symbolicate"
kill -TERM "$server"
status=0
wait "$server" || status=$?
server=""
echo "server exit status after SIGTERM: $status"
