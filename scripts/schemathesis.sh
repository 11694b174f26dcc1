#!/bin/sh
# Property-based API check: runs schemathesis (PyPI) against the OpenAPI document a running
# `symbolicate serve` publishes at /openapi.json. Installs schemathesis in a virtualenv under
# ${SCHEMATHESIS_VENV:-$HOME/.cache/symbolicate-schemathesis} when it is missing. Starts its own server
# on a fresh store (with a token, so the write endpoints are exercised too) unless BASE_URL is set.
#
# Usage: scripts/schemathesis.sh [SYMBOLICATE_BINARY]   (default: .build/debug/symbolicate)
#   environment: BASE_URL (use a server already running), MAX_EXAMPLES (50), PORT (18091)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
venv=${SCHEMATHESIS_VENV:-$HOME/.cache/symbolicate-schemathesis}
max_examples=${MAX_EXAMPLES:-50}
port=${PORT:-18091}

if [ ! -x "$venv/bin/schemathesis" ]; then
    echo "installing schemathesis into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q schemathesis
fi

. "$repo/scripts/lib/server.sh"

if [ -z "${BASE_URL:-}" ]; then
    binary=${1:-$repo/.build/debug/symbolicate}
    [ -x "$binary" ] || { echo "no $binary: run swift build first, or pass the binary" >&2; exit 1; }
    echo "schemathesis-token" > "$work/tokens"
    "$binary" serve --store "$work/store" --listen "127.0.0.1:$port" --token-file "$work/tokens" 2> "$work/access.log" &
    server=$!
    BASE_URL="http://127.0.0.1:$port"
    wait_for_server "$BASE_URL"
fi

# Checks: no 5xx, responses match the documented schemas, content types and status codes.
"$venv/bin/schemathesis" run "$BASE_URL/openapi.json" \
    --checks not_a_server_error,response_schema_conformance,content_type_conformance,status_code_conformance \
    --max-examples "$max_examples" \
    --header "Authorization: Bearer schemathesis-token"
