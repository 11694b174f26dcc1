#!/usr/bin/env bash
# Runs Deploy/systemd/symbolicate.service under a real systemd: a podman container that boots
# systemd as its PID 1 (the Debian bookworm base of podman-check.sh, plus systemd and the image's
# runtime packages), with the unit installed as the README says and enabled. Then it checks that
# the service comes up as a dynamic (non-root) user, serves /healthz, imports an upload of the
# Samples dSYMs (the import child process runs under the unit's system-call filter and read-only
# file system) into its state folder, symbolicates a Samples report, is restarted after SIGKILL,
# and stops on `systemctl stop` with status 0.
#
# One setting is replaced for the container: LoadCredential= cannot work there (systemd cannot give
# the service user the credentials folder inside this container, whatever the user, static or
# dynamic), so a drop-in points --token-file at a world-readable copy of the token file instead.
# Every other line of the unit runs as shipped.
#
# Usage: Deploy/systemd-check.sh            (as root; installs podman, runc, debootstrap if missing)
# Environment: SYMBOLICATE_BINARY=PATH      use this binary instead of building one
# Exit status: 0 when every check passes, 1 when one fails (the failing step is named).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
image=localhost/symbolicate-systemd:check
container=symbolicate-systemd-check-$$
work=$(mktemp -d /var/tmp/symbolicate-systemd-check.XXXXXX)
started=$(date +%s)
step_started=$started

step() {
    local now
    now=$(date +%s)
    echo "[systemd-check] ($((now - step_started)) s) -> $*" >&2
    step_started=$now
}
fail() {
    echo "[systemd-check] FAILED: $*" >&2
    if [ -n "${container_started:-}" ]; then
        pod exec "$container" journalctl -u symbolicate --no-pager 2>/dev/null | tail -15 >&2 || true
    fi
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

ensure_base_image
static_binary

# ---- the image: systemd, the runtime packages, the binary and the unit as the README installs them ----
port=$(free_port)
token=check-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
mkdir "$work/context"
cp "$binary" "$work/context/symbolicate"
cp "$repo/Deploy/systemd/symbolicate.service" "$work/context/"
echo "$token" >"$work/context/tokens"
printf 'SYMBOLICATE_LISTEN=127.0.0.1:%s\n' "$port" >"$work/context/symbolicate.env"
printf '[Service]\nLoadCredential=\nExecStart=\nExecStart=/usr/local/bin/symbolicate serve --listen ${SYMBOLICATE_LISTEN} --token-file /etc/symbolicate/tokens-readable\n' \
    >"$work/context/container.conf"
cat >"$work/context/Containerfile" <<EOF
FROM $base_image
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
        systemd systemd-sysv $(runtime_packages) \\
    && rm -rf /var/lib/apt/lists/*
COPY symbolicate /usr/local/bin/symbolicate
COPY symbolicate.service /etc/systemd/system/symbolicate.service
COPY tokens symbolicate.env /etc/symbolicate/
COPY container.conf /etc/systemd/system/symbolicate.service.d/container.conf
RUN chmod 0755 /usr/local/bin/symbolicate /etc/symbolicate && chmod 0600 /etc/symbolicate/tokens \\
    && install -m 0644 /etc/symbolicate/tokens /etc/symbolicate/tokens-readable \\
    && systemctl enable symbolicate.service
CMD ["/sbin/init"]
EOF
step "podman build (systemd image)"
pod build --network host -t "$image" "$work/context" >"$work/build.log" 2>&1 \
    || { tail -30 "$work/build.log" >&2; fail "podman build"; }

# ---- boot it ----
step "podman run --systemd=always (port $port)"
pod run -d --name "$container" --privileged --systemd=always --network host "$image" >/dev/null 2>"$work/run.log" \
    || { cat "$work/run.log" >&2; fail "podman run"; }
container_started=1
url=http://127.0.0.1:$port
healthy() {
    local _
    for _ in $(seq 1 100); do
        "$binary" healthcheck --timeout 1 "$url/healthz" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    return 1
}
healthy || fail "the service did not come up on $url"
"$binary" healthcheck "$url/readyz" >/dev/null || fail "GET /readyz: the store does not answer"
state=$(pod exec "$container" systemctl show -p ActiveState --value symbolicate)
[ "$state" = active ] || fail "symbolicate.service is $state"
pid=$(pod exec "$container" systemctl show -p MainPID --value symbolicate)
uid=$(pod exec "$container" stat -c %u "/proc/$pid")
# Dynamic users are allocated from 61184-65519.
[ "$uid" -ge 61184 ] && [ "$uid" -le 65519 ] || fail "the server runs as uid $uid, not a dynamic user"

# ---- upload and symbolicate ----
step "POST /v1/symbols and /v1/symbolicate"
variant=ios-arm64-dwarf4
tar -C "$repo/Samples/build/$variant" -czf "$work/dsyms.tar.gz" HoldApp.app.dSYM HoldKit.framework.dSYM
status=$(curl -sS -o "$work/upload.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
    --data-binary @"$work/dsyms.tar.gz" "$url/v1/symbols?filename=dsyms.tar.gz")
[ "$status" = 201 ] || fail "POST /v1/symbols answered $status: $(cat "$work/upload.json")"
curl -fsS --data-binary @"$repo/Samples/reports/HoldApp-$variant.crash" "$url/v1/symbolicate" >"$work/answer.crash" \
    || fail "POST /v1/symbolicate"
grep -q 'ViewController.viewDidLoad()' "$work/answer.crash" || fail "the answer names no symbolicated Swift frame"
pod exec "$container" test -f /var/lib/private/symbolicate/store/catalog.sqlite \
    || fail "the store is not in the state folder /var/lib/symbolicate"

# ---- restart on failure, clean stop ----
step "SIGKILL, restart, stop"
pod exec "$container" sh -c "kill -KILL $pid" || fail "kill -KILL $pid"
sleep 1
healthy || fail "the service was not restarted after SIGKILL"
restarts=$(pod exec "$container" systemctl show -p NRestarts --value symbolicate)
[ "$restarts" -ge 1 ] || fail "systemd counts $restarts restarts after SIGKILL"
pod exec "$container" systemctl stop symbolicate
result=$(pod exec "$container" systemctl show -p Result -p ExecMainStatus symbolicate | xargs)
[ "$result" = "Result=success ExecMainStatus=0" ] || fail "systemctl stop left: $result"

step "done"
echo "[systemd-check] dynamic uid $uid; restarts after SIGKILL: $restarts; on stop: $result" >&2
echo "[systemd-check] OK: every check passed in $(($(date +%s) - started)) s" >&2
