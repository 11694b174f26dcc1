#!/bin/sh
# Checks the web page in headless Chromium: starts `symbolicate serve` on a store holding the
# Samples dSYMs of one variant (HoldApp and HoldKit; the system libraries stay missing), then
# scripts/webpage-check.mjs opens `/#report=...` carrying a Samples report at 1280x900 and
# 390x844, light and dark, and checks the page: the summary header, copy / download / share,
# backtraces in the report's order, frames named by the report, missing images with what to
# upload, no horizontal overflow, no console errors; at 1280x900 it also downloads, copies,
# shares and drops a file. Screenshots go to OUTDIR (look at them).
# Without chromium or node the check is skipped (exit 0) with a message saying what to install.
#
# Usage: scripts/webpage-check.sh [SYMBOLICATE_BINARY] [OUTDIR]
#   defaults: .build/debug/symbolicate, ./webpage-check; environment: PORT (18092)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$repo/.build/debug/symbolicate}
outdir=${2:-$PWD/webpage-check}
port=${PORT:-18092}
variant=ios-arm64-dwarf5
report="$repo/Samples/reports/HoldApp-$variant.crash"
dropped="$repo/Samples/reports/HoldApp-$variant.ips"

[ -x "$binary" ] || { echo "no $binary: run swift build first, or pass the binary" >&2; exit 1; }
[ -f "$report" ] && [ -f "$dropped" ] || { echo "no $report: run Samples/generate.sh first" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "SKIPPED: the web page check needs Chromium (apt-get install chromium); nothing was checked"
    exit 0
fi
if ! command -v node >/dev/null 2>&1; then
    echo "SKIPPED: the web page check needs Node.js 18 or later (apt-get install nodejs); nothing was checked"
    exit 0
fi

. "$repo/scripts/lib/server.sh"

"$binary" import --store "$work/store" "$repo/Samples/build/$variant/HoldApp.app.dSYM" \
    "$repo/Samples/build/$variant/HoldKit.framework.dSYM" >/dev/null 2>&1
"$binary" serve --store "$work/store" --listen "127.0.0.1:$port" 2> "$work/access.log" &
server=$!
wait_for_server "http://127.0.0.1:$port"

encoded=$(base64 -w0 "$report" | tr '+/' '-_' | tr -d '=')
kernel=$(sed -n 's/.*libsystem_kernel.dylib arm64e*  *<\([0-9a-fA-F]*\)>.*/\1/p' "$report" | head -n 1 | tr a-f A-F |
    sed 's/\(........\)\(....\)\(....\)\(....\)\(............\)/\1-\2-\3-\4-\5/')
[ -n "$kernel" ] || { echo "FAILED: no libsystem_kernel UUID in $report"; exit 1; }
node "$repo/scripts/webpage-check.mjs" "$browser" "http://127.0.0.1:$port/#report=$encoded" "$report" "$dropped" \
    "$kernel" "$outdir"
