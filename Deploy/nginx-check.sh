#!/usr/bin/env bash
# Runs compose/nginx.conf for real, in front of two `symbolicate serve` replicas on loopback, and
# kills one replica with SIGKILL while a client keeps posting reports through nginx: every request
# must still be answered 200 with the same symbolicated report, and nginx's log must show that it
# moved requests off the dead replica. The nginx.conf is the compose file's own, with the replicas'
# names replaced by loopback ports and its paths moved into a temporary folder.
# Both replicas share one folder store (SQLite WAL allows that on one host); STORE=s3://… (with the
# AWS_* variables set) runs them on a bucket instead. cluster-test.sh is the scaled-out version:
# three replicas on a bucket, concurrent clients, stored reports.
# The client sends one request at a time, so the kill falls between requests: this checks that
# nginx fails over on a dead replica (refused connections, closed keep-alive connections); a POST
# cut off inside a replica is what `non_idempotent` retries, and needs concurrent clients to hit.
#
# Usage: Deploy/nginx-check.sh [SYMBOLICATE_BINARY]   (default: the debug build, built if missing)
# Environment: STORE=DIR|s3://…  REQUESTS=N (default 60; the kill happens after a third of them)
# Exit status: 0 every check passed, 1 a check failed.
set -euo pipefail

deploy=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$deploy")
requests=${REQUESTS:-60}
work=$(mktemp -d /tmp/symbolicate-nginx-check.XXXXXX)
chmod 0755 "$work"
pids=()

fail() {
    echo "[nginx-check] FAILED: $*" >&2
    exit 1
}
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
trap "exit 1" INT TERM

command -v nginx >/dev/null || fail "nginx is not installed (apt-get install nginx)"
. "$deploy/lib/replicas.sh"
replica_binary "${1:-}"

store=${STORE:-$work/store}
token=check-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "$token" >"$work/tokens"
ports=()
for i in 1 2; do
    ports+=("$(free_port)")
    "$binary" serve --store "$store" --listen "127.0.0.1:${ports[i - 1]}" --token-file "$work/tokens" \
        --threads 2 --max-per-address 0 2>"$work/replica-$i.log" &
    pids+=($!)
    wait_healthy "http://127.0.0.1:${ports[i - 1]}/healthz"
done

front=$(free_port)
mkdir -m 1777 "$work/nginx" "$work/nginx/client-body" "$work/nginx/proxy"
sed -E \
    -e "s|server symbolicate-1:8080|server 127.0.0.1:${ports[0]}|" \
    -e "s|server symbolicate-2:8080|server 127.0.0.1:${ports[1]}|" \
    -e "s|listen 8080;|listen 127.0.0.1:$front;|" \
    -e "s|^pid .*|pid $work/nginx/nginx.pid;|" \
    -e "s|error_log /dev/stderr|error_log $work/nginx/error.log|" \
    -e "s|access_log /dev/stdout|access_log $work/nginx/access.log|" \
    -e "s|client_body_temp_path .*|client_body_temp_path $work/nginx/client-body;|" \
    -e "s|proxy_temp_path .*|proxy_temp_path $work/nginx/proxy;|" \
    "$deploy/compose/nginx.conf" >"$work/nginx/nginx.conf"
grep -q "127.0.0.1:${ports[1]}" "$work/nginx/nginx.conf" || fail "compose/nginx.conf no longer names symbolicate-1 and -2"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -g 'daemon off;' 2>>"$work/nginx/error.log" &
pids+=($!)
url=http://127.0.0.1:$front
wait_healthy "$url/healthz"

# Symbols through nginx; then reports, one replica killed with SIGKILL a third of the way in.
variant=ios-arm64-dwarf4
tar -C "$repo/Samples/build/$variant" -czf "$work/dsyms.tar.gz" HoldApp.app.dSYM HoldKit.framework.dSYM
status=$(curl -sS -o "$work/upload.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
    --data-binary @"$work/dsyms.tar.gz" "$url/v1/symbols?filename=dsyms.tar.gz")
[ "$status" = 201 ] || fail "POST /v1/symbols through nginx answered $status: $(cat "$work/upload.json")"
report=$repo/Samples/reports/HoldApp-$variant.crash
curl -fsS --data-binary @"$report" "$url/v1/symbolicate" >"$work/expected.crash" || fail "first POST /v1/symbolicate"
grep -q 'ViewController.viewDidLoad()' "$work/expected.crash" || fail "the answer names no symbolicated Swift frame"

killed_at=$((requests / 3))
for n in $(seq 1 "$requests"); do
    if [ "$n" -eq "$killed_at" ]; then
        kill -KILL "${pids[0]}"
        wait "${pids[0]}" 2>/dev/null || true
    fi
    status=$(curl -sS -o "$work/answer.crash" -w '%{http_code}' --data-binary @"$report" "$url/v1/symbolicate") \
        || fail "request $n got no answer"
    [ "$status" = 200 ] || fail "request $n answered $status (replica 1 killed before request $killed_at)"
    cmp -s "$work/answer.crash" "$work/expected.crash" || fail "request $n answered another report"
done
served_by_1=$(grep -c "\"status\":200" "$work/replica-1.log" || true)
served_by_2=$(grep -c "\"status\":200" "$work/replica-2.log" || true)
moved=$(grep -c "\[error\].*upstream: \"http://127.0.0.1:${ports[0]}/" "$work/nginx/error.log" || true)
[ "$moved" -gt 0 ] \
    || fail "nginx's log shows no failed attempt on the killed replica: the retry path was not exercised"
echo "[nginx-check] OK: $requests reports answered 200 and identical through nginx;" \
    "replica 1 (SIGKILL before request $killed_at) served $served_by_1, replica 2 served $served_by_2;" \
    "nginx moved $moved request(s) off the dead replica" >&2
