# Sourced by the scripts that start `symbolicate serve` (the server benchmark, the schemathesis
# run, the web-page check): a work folder removed on exit, the server (its pid in $server)
# stopped on exit, and a wait until the server answers /healthz.

work=$(mktemp -d)
server=""
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# wait_for_server BASE_URL: waits up to 5 s for BASE_URL/healthz to answer.
wait_for_server() {
    for _ in $(seq 50); do
        curl -fs "$1/healthz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "the server at $1 did not answer /healthz within 5 s (see $work/access.log)" >&2
    return 1
}
