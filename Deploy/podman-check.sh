#!/usr/bin/env bash
# Builds the container image of Deploy/Dockerfile with podman and checks that it works: the
# binary built on this host with --static-swift-stdlib goes into the Dockerfile's runtime
# (`--target prebuilt`) on a Debian bookworm base made locally with debootstrap, because no image
# registry is reachable here. Then the container is run and checked: /healthz, /readyz, an upload
# of the Samples dSYMs through POST /v1/symbols (imported by the child process inside the
# container), a Samples report through POST /v1/symbolicate answered exactly as the same binary
# answers on the host, the image's HEALTHCHECK (kept by --format docker) reporting healthy, the
# server running as the non-root user 10001 on a read-only root file system without capabilities,
# the libraries it loads all present. Everything it started is removed at the end; the base image
# stays cached (podman storage, and a tarball under /var/tmp).
#
# Usage: Deploy/podman-check.sh            (as root; installs podman, runc, debootstrap if missing)
# Environment: SYMBOLICATE_BINARY=PATH     use this binary instead of building one
#              PORT=N                      host port for the container (default: a free one)
#              MIRROR=URL                  Debian mirror for debootstrap (default: the one apt uses)
# Exit status: 0 when every check passes, 1 when one fails (the failing step is named).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
image=localhost/symbolicate:check
container=symbolicate-check-$$
work=$(mktemp -d /var/tmp/symbolicate-podman-check.XXXXXX)
started=$(date +%s)
step_started=$started

step() {
    local now
    now=$(date +%s)
    echo "[podman-check] ($((now - step_started)) s) -> $*" >&2
    step_started=$now
}
fail() {
    echo "[podman-check] FAILED: $*" >&2
    exit 1
}
. "$repo/Deploy/lib/podman.sh"
podman_setup

cleanup() {
    pod rm -f "$container" >/dev/null 2>&1 || true
    pod rmi -f "$image" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap "exit 1" INT TERM

# ---- 1. the base image, cached ----
ensure_base_image

# ---- 2. the binary, built on this host with the Swift runtime linked in ----
static_binary
mkdir "$work/context"
cp "$binary" "$work/context/symbolicate"
# Podman would apply Deploy/Dockerfile.dockerignore (made for the repository as the context) here too.
printf "%s\n" "# the folder holds only the binary" "!symbolicate" >"$work/context.dockerignore"

# ---- 3. the image: the Dockerfile's runtime with that binary ----
step "podman build --target prebuilt"
pod build --format docker --network host --target prebuilt --ignorefile "$work/context.dockerignore" \
    --build-arg RUNTIME_IMAGE="$base_image" -t "$image" -f "$repo/Deploy/Dockerfile" "$work/context" \
    >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; fail "podman build"; }
health=$(pod image inspect --format '{{json .Config.Healthcheck.Test}}' "$image")
[[ $health == *'"symbolicate","healthcheck"'* ]] || fail "the image has no HEALTHCHECK running the binary (got $health)"
user=$(pod image inspect --format '{{.Config.User}}' "$image")
[ "$user" = "10001:10001" ] || fail "the image's user is '$user', expected 10001:10001"
echo "[podman-check] image size: $(pod image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')" >&2

# ---- 4. run it ----
PORT=${PORT:-$(free_port)}
token=check-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$token" >"$work/tokens"
chmod 0644 "$work/tokens"
step "podman run on port $PORT"
# As the Kubernetes manifests run it: read-only root file system (only the data volume and /tmp
# writable), no capabilities, no privilege escalation.
pod run -d --name "$container" -p "127.0.0.1:$PORT:8080" \
    --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges \
    -v "$work/tokens:/run/secrets/symbolicate/tokens:ro" \
    "$image" --token-file /run/secrets/symbolicate/tokens >/dev/null 2>"$work/run.log" \
    || { cat "$work/run.log" >&2; fail "podman run"; }
# (Without systemd, podman says it cannot add the periodic health-check timer; `podman healthcheck
# run` below runs the same check by hand.)
url=http://127.0.0.1:$PORT
for _ in $(seq 1 100); do
    curl -fsS -o /dev/null "$url/healthz" 2>/dev/null && break
    sleep 0.2
done
curl -fsS "$url/healthz" >"$work/healthz" || { pod logs "$container" >&2; fail "GET /healthz"; }
grep -q '"ok"' "$work/healthz" || fail "GET /healthz answered $(cat "$work/healthz")"
curl -fsS -o /dev/null "$url/readyz" || fail "GET /readyz: the store does not answer"

# ---- 5. upload dSYMs, symbolicate a report, compare with the host ----
variant=ios-arm64-dwarf4
report=$repo/Samples/reports/HoldApp-$variant.crash
[ -f "$report" ] || fail "missing $report"
tar -C "$repo/Samples/build/$variant" -czf "$work/dsyms.tar.gz" HoldApp.app.dSYM HoldKit.framework.dSYM
step "POST /v1/symbols (import inside the container)"
status=$(curl -sS -o "$work/upload.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/gzip' --data-binary @"$work/dsyms.tar.gz" "$url/v1/symbols?filename=dsyms.tar.gz")
[ "$status" = 201 ] || { cat "$work/upload.json" >&2; pod logs "$container" >&2; fail "POST /v1/symbols answered $status"; }
step "POST /v1/symbolicate"
status=$(curl -sS -o "$work/answer.crash" -w '%{http_code}' --data-binary @"$report" "$url/v1/symbolicate")
[ "$status" = 200 ] || { cat "$work/answer.crash" >&2; fail "POST /v1/symbolicate answered $status"; }
"$binary" --no-store -o "$work/host.crash" "$report" \
    "$repo/Samples/build/$variant/HoldApp.app.dSYM" "$repo/Samples/build/$variant/HoldKit.framework.dSYM" \
    2>"$work/host.log"
cmp -s "$work/answer.crash" "$work/host.crash" \
    || { diff "$work/host.crash" "$work/answer.crash" | head -20 >&2; fail "the container's answer differs from the host's"; }
grep -q 'ViewController.viewDidLoad()' "$work/answer.crash" || fail "the answer names no symbolicated Swift frame"

# ---- 6. the HEALTHCHECK, the user, the libraries ----
step "HEALTHCHECK and user"
pod healthcheck run "$container" >/dev/null || fail "podman healthcheck run: unhealthy"
state=$(pod inspect --format '{{.State.Health.Status}}' "$container" 2>/dev/null \
    || pod inspect --format '{{.State.Healthcheck.Status}}' "$container")
[ "$state" = healthy ] || fail "health status is '$state'"
uid=$(pod exec "$container" sh -c 'for p in /proc/[0-9]*; do [ "$(cat $p/comm)" = symbolicate ] && stat -c %u $p && break; done')
[ "$uid" = 10001 ] || fail "the server runs as uid '$uid', expected 10001"
pod exec "$container" sh -c 'touch /var/lib/symbolicate/probe && rm /var/lib/symbolicate/probe' \
    || fail "the data volume is not writable by the server's user"
if pod exec -u 0 "$container" sh -c 'touch /usr/local/probe' 2>/dev/null; then
    fail "the root file system is writable: the server was not checked on a read-only one"
fi
if pod exec -u 0 "$container" sh -c 'ldd /usr/local/bin/symbolicate' | grep 'not found'; then
    fail "the image lacks a library the binary needs"
fi
pod exec -u 0 "$container" sh -c 'ls /usr/lib/*/libcurl.so.4 >/dev/null' || fail "the image has no libcurl.so.4 (s3:// stores)"
pod exec -u 0 "$container" sh -c 'ls /usr/lib/*/libarchive.so.13 >/dev/null' || fail "the image has no libarchive.so.13 (archives)"

step "stopping (SIGTERM)"
pod stop -t 20 "$container" >/dev/null 2>>"$work/run.log"
code=$(pod inspect --format '{{.State.ExitCode}}' "$container")
[ "$code" = 0 ] || { pod logs "$container" | tail -5 >&2; fail "the server exited $code on SIGTERM, expected 0"; }

step "done"
echo "[podman-check] health: $state; server uid: $uid; exit on SIGTERM: $code" >&2
echo "[podman-check] OK: every check passed in $(($(date +%s) - started)) s" >&2
