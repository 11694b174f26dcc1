# Shared by podman-check.sh and systemd-check.sh (sourced, not run): podman with the settings these
# machines need, the local Debian bookworm base image (no image registry is reachable here), the
# host-built static binary, and the runtime packages as Deploy/Dockerfile lists them.
# Expects: $repo (the repository), $work (a scratch folder), and a `step` and a `fail` function.

base_image=localhost/bookworm-base:local
base_cache=/var/tmp/symbolicate-deploy

# Podman here: runc (crun fails on the cgroup setup), cgroupfs, and no default ulimits (setting
# RLIMIT_NPROC is not permitted).
podman_setup() {
    [ "$(id -u)" -eq 0 ] || fail "run as root: podman here runs rootful with runc and cgroupfs"
    local missing=() tool
    for tool in podman runc debootstrap curl readelf; do command -v "$tool" >/dev/null || missing+=("$tool"); done
    if [ ${#missing[@]} -gt 0 ]; then
        missing=("${missing[@]/readelf/binutils}")
        step "installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    fi
    printf '[containers]\ndefault_ulimits = []\n' >"$work/containers.conf"
    export CONTAINERS_CONF=$work/containers.conf
}
pod() { podman --runtime runc --cgroup-manager cgroupfs "$@"; }

# localhost/bookworm-base:local from debootstrap --variant=minbase, cached as a tarball.
ensure_base_image() {
    if pod image exists "$base_image"; then
        step "base image $base_image already present"
        return
    fi
    mkdir -p "$base_cache"
    if [ ! -s "$base_cache/bookworm-minbase.tar" ]; then
        local mirror
        mirror=${MIRROR:-$(grep -hoE '(URIs:|deb) +https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null \
            | grep -v security | awk '{print $2}' | head -1 || true)}
        mirror=${mirror:-http://deb.debian.org/debian}
        step "debootstrap bookworm (minbase) from $mirror"
        rm -rf "$base_cache/rootfs"
        debootstrap --variant=minbase bookworm "$base_cache/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
            || { tail -20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
        rm -rf "$base_cache/rootfs/var/cache/apt/archives"/*.deb "$base_cache/rootfs/var/lib/apt/lists"/*
        tar -C "$base_cache/rootfs" -cf "$base_cache/bookworm-minbase.tar.partial" .
        mv "$base_cache/bookworm-minbase.tar.partial" "$base_cache/bookworm-minbase.tar"
        rm -rf "$base_cache/rootfs"
    fi
    step "importing $base_cache/bookworm-minbase.tar as $base_image"
    pod import "$base_cache/bookworm-minbase.tar" "$base_image" >/dev/null
}

# Sets $binary: $SYMBOLICATE_BINARY, or a release build with the Swift runtime linked in.
static_binary() {
    binary=${SYMBOLICATE_BINARY:-}
    if [ -z "$binary" ]; then
        step "swift build -c release --static-swift-stdlib"
        (cd "$repo" && swift build -c release --static-swift-stdlib --product symbolicate >&2)
        binary=$(cd "$repo" && swift build -c release --static-swift-stdlib --show-bin-path)/symbolicate
    fi
    [ -x "$binary" ] || fail "no executable at $binary"
    if readelf -d "$binary" | grep -q 'NEEDED.*libswiftCore'; then
        fail "$binary links the Swift runtime dynamically; build it with --static-swift-stdlib"
    fi
}

# The runtime packages of Deploy/Dockerfile's runtime-base stage (one list, kept there).
runtime_packages() {
    sed -n '/AS runtime-base$/,/rm -rf/p' "$repo/Deploy/Dockerfile" | grep -E '^ +[a-z]' | grep -v '&&' | tr -d '\\' | xargs
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
