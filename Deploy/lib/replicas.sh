# Shared by nginx-check.sh and cluster-test.sh (sourced, not run): the binary the replicas run,
# free loopback ports, and waiting for a replica's health endpoint.
# Expects: $repo (the repository) and a `fail` function.

# replica_binary [PATH]: sets $binary to PATH, or to the debug build (built when missing).
replica_binary() {
    binary=${1:-}
    if [ -z "$binary" ]; then
        (cd "$repo" && swift build --product symbolicate >&2)
        binary=$(cd "$repo" && swift build --show-bin-path)/symbolicate
    fi
    [ -x "$binary" ] || fail "no executable at $binary"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# wait_healthy URL [TRIES]: `symbolicate healthcheck URL` every 0.1 s until it passes (TRIES times at most, default 100).
wait_healthy() {
    local _
    for _ in $(seq 1 "${2:-100}"); do
        "$binary" healthcheck --timeout 1 "$1" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    fail "nothing healthy at $1"
}
