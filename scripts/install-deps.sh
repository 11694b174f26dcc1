#!/usr/bin/env bash
# Installs the Debian packages symbolicate builds and tests with, when they are missing.
# Idempotent: runs `apt-get update` at most once, and nothing at all when everything is present.
# Usage: scripts/install-deps.sh [extra-package...]
set -euo pipefail

packages=(libdwarf-dev libelf-dev libsqlite3-dev sqlite3 curl libmicrohttpd-dev libarchive-dev nettle-dev zlib1g-dev libzstd-dev libcurl4-openssl-dev llvm-14 protobuf-compiler debuginfod time "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
