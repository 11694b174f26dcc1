#!/bin/sh
# Checks the web page in headless Chromium: starts `symbolicate serve` on a store holding the
# Samples dSYMs of one variant (HoldApp and HoldKit; the system libraries stay missing), opens
# `/#report=...` carrying a Samples report, lets the page symbolicate it, then checks the rendered
# DOM (crashed thread first, symbolicated functions with source locations, inline frames marked,
# missing images listed with their UUIDs) and saves a screenshot.
# Installs Debian's chromium with apt when it is missing.
#
# Usage: scripts/webpage-check.sh [SYMBOLICATE_BINARY] [SCREENSHOT.png]
#   defaults: .build/debug/symbolicate, ./webpage.png; environment: PORT (18092)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
binary=${1:-$repo/.build/debug/symbolicate}
screenshot=${2:-$PWD/webpage.png}
port=${PORT:-18092}
variant=ios-arm64-dwarf5
report="$repo/Samples/reports/HoldApp-$variant.crash"

[ -x "$binary" ] || { echo "no $binary: run swift build first, or pass the binary" >&2; exit 1; }
[ -f "$report" ] || { echo "no $report: run Samples/generate.sh first" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "installing chromium (apt-get)" >&2
    apt-get install -y chromium >/dev/null || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
    browser=$(command -v chromium)
fi

. "$repo/scripts/lib/server.sh"

"$binary" import --store "$work/store" "$repo/Samples/build/$variant/HoldApp.app.dSYM" \
    "$repo/Samples/build/$variant/HoldKit.framework.dSYM" >/dev/null 2>&1
"$binary" serve --store "$work/store" --listen "127.0.0.1:$port" 2> "$work/access.log" &
server=$!
wait_for_server "http://127.0.0.1:$port"

encoded=$(base64 -w0 "$report" | tr '+/' '-_' | tr -d '=')
url="http://127.0.0.1:$port/#report=$encoded"
flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1100 --virtual-time-budget=10000"
# shellcheck disable=SC2086
"$browser" $flags --user-data-dir="$work/profile1" --dump-dom "$url" > "$work/dom.html" 2> "$work/chromium.log"
# shellcheck disable=SC2086
"$browser" $flags --user-data-dir="$work/profile2" --screenshot="$screenshot" "$url" >/dev/null 2>> "$work/chromium.log"

kernel=$(sed -n 's/.*libsystem_kernel.dylib arm64e*  *<\([0-9a-fA-F]*\)>.*/\1/p' "$report" | head -n 1 | tr a-f A-F |
    sed 's/\(........\)\(....\)\(....\)\(....\)\(............\)/\1-\2-\3-\4-\5/')
failures=0
check() {
    if grep -q -- "$2" "$work/dom.html"; then
        echo "ok: $1"
    else
        echo "FAILED: $1 (no '$2' in the rendered page)"
        failures=$((failures + 1))
    fi
}
check "frames were symbolicated" "Frames symbolicated: [1-9]"
check "the crashed thread comes first" '<div id="stack"><div class="thread crashed"><h3>Thread 0'
check "a HoldApp frame has a source location" 'class="loc"> ([A-Za-z]*\.[a-z]*:[0-9]'
check "inline frames are marked" '<tr class="inline">'
check "HoldKit frames are symbolicated" '<td class="img">HoldKit</td><td class="addr">0x[0-9a-f]*</td><td class="sym">[A-Za-z_]'
[ -n "$kernel" ] || { echo "FAILED: no libsystem_kernel UUID in $report"; failures=$((failures + 1)); }
check "libsystem_kernel is listed as missing with its UUID" "libsystem_kernel.dylib $kernel"
[ -s "$screenshot" ] && echo "screenshot: $screenshot" || { echo "FAILED: no screenshot"; failures=$((failures + 1)); }
if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed; the page's DOM is in $work/dom.html" >&2
    cp "$work/dom.html" "${screenshot%.png}.dom.html" 2>/dev/null || true
    exit 1
fi
