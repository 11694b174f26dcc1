#!/usr/bin/env bash
# The scaled-out layout of Deploy/ run as local processes: an S3-compatible server on loopback
# (moto_server from PyPI `moto[server]`, an in-memory stand-in for S3/MinIO), three
# `symbolicate serve --store s3://B/P` replicas, each with its own cache folder, and nginx in front
# with Deploy/compose/nginx.conf's retry rules (`proxy_next_upstream ... non_idempotent`).
# Checks, in order:
#   1. a bounded client (4 threads) posts reports to /v1/reports through nginx, each with its own
#      Idempotency-Key, while one replica is killed with SIGKILL: every request is answered 200/201,
#      every id answered is GETtable afterwards (nothing acknowledged is lost), posting every key
#      again answers the same id (no duplicates), and the bucket lists exactly one report per key;
#   2. a dSYM uploaded on one replica re-symbolicates a report stored on another (within 15 s),
#      and the stored output equals `symbolicate --no-store REPORT DSYMS`;
#   3. a new replica with an empty cache answers its first report within 2 seconds.
# Figures go to stderr on one line. It skips (exit 0, a "SKIPPED: reason" line) only when moto or
# nginx is missing and cannot be installed; CLUSTER_TEST_REQUIRE=1 makes that a failure.
#
# Usage: Deploy/cluster-test.sh [SYMBOLICATE_BINARY]   (default: the debug build, built if missing)
# Environment: REQUESTS=N (default 120), CLUSTER_TEST_REQUIRE=1, CLUSTER_TEST_CACHE=DIR (where the
#   moto virtualenv goes when moto_server is not on PATH; default $XDG_CACHE_HOME/symbolicate-cluster-test)
# Exit status: 0 every check passed (or skipped), 1 a check failed.
set -euo pipefail

deploy=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$deploy")
requests=${REQUESTS:-120}
work=$(mktemp -d /tmp/symbolicate-cluster-test.XXXXXX)
chmod 0755 "$work"
pids=()

say() { echo "[cluster-test] $*" >&2; }
fail() {
    say "FAILED: $*"
    for log in "$work"/replica-*.log; do
        [ -f "$log" ] && { say "--- last lines of $(basename "$log")"; tail -n 5 "$log" >&2; }
    done
    exit 1
}
skip() {
    if [ "${CLUSTER_TEST_REQUIRE:-0}" = 1 ]; then fail "$* (CLUSTER_TEST_REQUIRE=1)"; fi
    echo "SKIPPED: $*"
    exit 0
}
nginx_pid=""
cleanup() {
    local pid _
    # nginx's master stops its workers on SIGTERM (SIGKILL would orphan them); the rest are killed:
    # moto_server ignores SIGTERM, and nothing here holds anything worth flushing.
    if [ -n "$nginx_pid" ]; then
        kill -TERM "$nginx_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$nginx_pid" 2>/dev/null || break; sleep 0.1; done
    fi
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
trap "exit 1" INT TERM

# moto_server: on PATH, else in a virtualenv under the cache folder (installed once).
moto=$(command -v moto_server || true)
if [ -z "$moto" ]; then
    venv=${CLUSTER_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/symbolicate-cluster-test}/venv
    if [ ! -x "$venv/bin/moto_server" ]; then
        say "installing moto[server] into $venv"
        { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet 'moto[server]'; } >&2 \
            || skip "moto[server] could not be installed from PyPI into $venv"
    fi
    moto=$venv/bin/moto_server
fi
if ! command -v nginx >/dev/null; then
    { [ "$(id -u)" = 0 ] && apt-get install -y -qq nginx >&2; } || skip "nginx is not installed and apt-get could not install it"
fi
command -v curl >/dev/null || fail "curl is needed (apt-get install curl)"

. "$deploy/lib/replicas.sh"
replica_binary "${1:-}"

# The object store and its bucket (moto takes unsigned requests).
s3_port=$(free_port)
"$moto" -H 127.0.0.1 -p "$s3_port" >"$work/moto.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 150); do
    curl -s -o /dev/null "http://127.0.0.1:$s3_port/" && break
    sleep 0.1
done
curl -fsS -o /dev/null -X PUT "http://127.0.0.1:$s3_port/cluster" || fail "moto_server did not create the bucket"
export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY=cluster-test-secret AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=http://127.0.0.1:$s3_port
store=s3://cluster/symbols

token=cluster-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "$token" >"$work/tokens"
ports=()
replica_pids=()
start_replica() { # N: a replica with its own empty cache folder
    local port
    port=$(free_port)
    ports[$1]=$port
    "$binary" serve --store "$store" --cache "$work/cache-$1" --listen "127.0.0.1:$port" \
        --token-file "$work/tokens" --threads 2 --max-per-address 0 2>"$work/replica-$1.log" &
    pids+=($!)
    replica_pids[$1]=$!
}
for i in 1 2 3; do start_replica "$i"; done
for i in 1 2 3; do wait_healthy "http://127.0.0.1:${ports[i]}/readyz" 150; done

front=$(free_port)
mkdir -m 1777 "$work/nginx" "$work/nginx/client-body" "$work/nginx/proxy"
sed -E \
    -e "s|server symbolicate-1:8080(.*)|server 127.0.0.1:${ports[1]}\1|" \
    -e "s|server symbolicate-2:8080(.*)|server 127.0.0.1:${ports[2]}\1\n        server 127.0.0.1:${ports[3]}\1|" \
    -e "s|listen 8080;|listen 127.0.0.1:$front;|" \
    -e "s|^pid .*|pid $work/nginx/nginx.pid;|" \
    -e "s|error_log /dev/stderr|error_log $work/nginx/error.log|" \
    -e "s|access_log /dev/stdout|access_log $work/nginx/access.log|" \
    -e "s|client_body_temp_path .*|client_body_temp_path $work/nginx/client-body;|" \
    -e "s|proxy_temp_path .*|proxy_temp_path $work/nginx/proxy;|" \
    "$deploy/compose/nginx.conf" >"$work/nginx/nginx.conf"
grep -q "server 127.0.0.1:${ports[3]}" "$work/nginx/nginx.conf" || fail "compose/nginx.conf no longer names symbolicate-1 and -2"
grep -q "proxy_next_upstream error timeout http_502.* non_idempotent" "$work/nginx/nginx.conf" \
    || fail "compose/nginx.conf no longer retries non-idempotent requests on error, timeout and 502"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -g 'daemon off;' 2>>"$work/nginx/error.log" &
nginx_pid=$!
pids+=($!)
url=http://127.0.0.1:$front
wait_healthy "$url/healthz" 150

# 1. Reports through nginx (no symbols yet: each waits for its build), replica 1 killed meanwhile.
variant=ios-arm64-dwarf4
report=$repo/Samples/reports/HoldApp-$variant.crash
cat >"$work/client.py" <<'EOF'
"""Bounded client. `client.py URL TOKEN REPORT REQUESTS VICTIM`: REQUESTS posts of REPORT, 4 at a
time, each with its own Idempotency-Key; kills VICTIM with SIGKILL once a third of them were sent;
prints key<TAB>status<TAB>id lines. `client.py URL TOKEN REPORT check` reads those lines: every id
must answer GET 200 and posting its key again must answer the same id."""
import concurrent.futures, json, os, signal, sys, threading, urllib.request, uuid

url, token, report = sys.argv[1], sys.argv[2], sys.argv[3]
body = open(report, "rb").read()
sent = 0
lock = threading.Lock()

if sys.argv[4] == "check":
    problems = 0
    for line in sys.stdin:
        key, _, ident = line.rstrip("\n").split("\t")
        try:
            urllib.request.urlopen(url + "/v1/reports/" + ident, timeout=30).read()
        except Exception as error:
            print(f"report {ident} (key {key}) was answered and is now {error}: lost", file=sys.stderr)
            problems += 1
            continue
        request = urllib.request.Request(url + "/v1/reports", data=body, method="POST", headers={
            "Authorization": "Bearer " + token, "Idempotency-Key": key, "Content-Type": "text/plain"})
        again = json.load(urllib.request.urlopen(request, timeout=30)).get("id")
        if again != ident:
            print(f"key {key} stored {ident}, posted again it answered {again}: a duplicate", file=sys.stderr)
            problems += 1
    sys.exit(1 if problems else 0)

requests, victim = int(sys.argv[4]), int(sys.argv[5])

def post(key):
    global sent
    with lock:
        sent += 1
        if sent == requests // 3:
            os.kill(victim, signal.SIGKILL)
    request = urllib.request.Request(url + "/v1/reports", data=body, method="POST", headers={
        "Authorization": "Bearer " + token, "Idempotency-Key": key, "Content-Type": "text/plain"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return key, answer.status, json.load(answer).get("id", "")
    except urllib.error.HTTPError as error:
        return key, error.code, ""
    except Exception as error:  # no answer at all
        return key, 0, type(error).__name__

keys = [str(uuid.uuid4()) for _ in range(requests)]
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    for key, status, ident in pool.map(post, keys):
        print(f"{key}\t{status}\t{ident}")
EOF
started=$(date +%s.%N)
disown "${replica_pids[1]}" # its SIGKILL is expected: no "Killed" notice from bash
python3 "$work/client.py" "$url" "$token" "$report" "$requests" "${replica_pids[1]}" >"$work/posted.tsv" \
    || fail "the client stopped"
post_seconds=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
kill -0 "${replica_pids[1]}" 2>/dev/null && fail "the client did not kill replica 1"
[ "$(wc -l <"$work/posted.tsv")" -eq "$requests" ] || fail "the client recorded $(wc -l <"$work/posted.tsv") of $requests answers"
unanswered=$(awk -F'\t' '$2 != 201 && $2 != 200' "$work/posted.tsv")
[ -z "$unanswered" ] || fail "requests not answered 200/201 (key, status, id): $unanswered"
[ "$(cut -f3 "$work/posted.tsv" | sort -u | wc -l)" -eq "$requests" ] || fail "two keys were given one report id"
retried=$(grep -c '"status":201' "$work/replica-1.log" || true)
moved=$(grep -c "\[error\].*upstream: \"http://127.0.0.1:${ports[1]}/" "$work/nginx/error.log" || true)

# Every id answered is there (on the survivors), and the same key answers the same id again.
python3 "$work/client.py" "$url" "$token" "$report" check <"$work/posted.tsv" || fail "a stored report was lost or duplicated"
listed=$(curl -fsS "$url/v1/reports?limit=$((requests * 2))" \
    | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["reports"]))') || fail "GET /v1/reports failed"
[ "$listed" -eq "$requests" ] || fail "the bucket lists $listed stored reports for $requests keys"

# 2. A report stored on replica 3, the dSYMs uploaded on replica 2: replica 3 answers it symbolicated.
direct=$(curl -fsS -H "Authorization: Bearer $token" --data-binary @"$report" "http://127.0.0.1:${ports[3]}/v1/reports" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || fail "POST /v1/reports on replica 3"
tar -C "$repo/Samples/build/$variant" -czf "$work/dsyms.tar.gz" HoldApp.app.dSYM HoldKit.framework.dSYM
status=$(curl -sS -o "$work/upload.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
    --data-binary @"$work/dsyms.tar.gz" "http://127.0.0.1:${ports[2]}/v1/symbols?filename=dsyms.tar.gz")
[ "$status" = 201 ] || fail "POST /v1/symbols on replica 2 answered $status: $(cat "$work/upload.json")"
uploaded=$(date +%s.%N)
"$binary" --no-store "$report" "$repo/Samples/build/$variant" >"$work/expected.crash" 2>"$work/expected.log" \
    || fail "symbolicate --no-store could not symbolicate the report"
resymbolicated=""
for _ in $(seq 1 150); do
    curl -fsS -o "$work/stored.crash" "http://127.0.0.1:${ports[3]}/v1/reports/$direct?view=raw" || fail "GET $direct on replica 3"
    if cmp -s "$work/stored.crash" "$work/expected.crash"; then
        resymbolicated=$(python3 -c "print(f'{$(date +%s.%N) - $uploaded:.2f}')")
        break
    fi
    sleep 0.1
done
[ -n "$resymbolicated" ] || fail "report $direct on replica 3 was not re-symbolicated within 15 s of the upload on replica 2"
# The reports posted through nginx (some stored by the killed replica) follow within the same bound.
first_id=$(head -n 1 "$work/posted.tsv" | cut -f3)
last_id=$(tail -n 1 "$work/posted.tsv" | cut -f3)
for id in "$first_id" "$last_id"; do
    for _ in $(seq 1 150); do
        curl -fsS -o "$work/stored.crash" "$url/v1/reports/$id?view=raw" || fail "GET $id"
        cmp -s "$work/stored.crash" "$work/expected.crash" && break
        sleep 0.1
    done
    cmp -s "$work/stored.crash" "$work/expected.crash" || fail "report $id was not re-symbolicated within 15 s"
done

# 3. A new replica, empty cache: its first report, answered within 2 seconds.
start_replica 4
wait_healthy "http://127.0.0.1:${ports[4]}/readyz" 150
first=$(curl -sS -o "$work/first.crash" -w '%{http_code} %{time_total}' --data-binary @"$report" \
    "http://127.0.0.1:${ports[4]}/v1/symbolicate") || fail "the new replica did not answer"
[ "${first% *}" = 200 ] || fail "the new replica answered ${first% *}"
cmp -s "$work/first.crash" "$work/expected.crash" || fail "the new replica's first answer differs from symbolicate --no-store"
python3 -c "import sys; sys.exit(0 if float('${first#* }') < 2.0 else 1)" \
    || fail "the new replica took ${first#* } s for its first report (bound: 2 s)"

say "OK: $requests reports posted through nginx in $post_seconds s (4 at a time), replica 1 killed with SIGKILL" \
    "after $((requests / 3)) sends (it had answered $retried); all answered, all GETtable, each key one id" \
    "($listed stored); nginx moved $moved request(s) off the dead replica; upload on replica 2 re-symbolicated" \
    "replica 3's report in $resymbolicated s; a new replica (empty cache) answered its first report in ${first#* } s"
