#!/usr/bin/env bash
# Best effort: a Python virtual environment with the PyPI tools some tests use, moto[server] (an
# in-memory stand-in for S3: the bucket store, stored reports and the S3 client are tested against
# it), botocore (which checks our request signatures) and sentry-cli (the client of the chunked
# upload protocol the server speaks). Its bin folder goes first on the tests'
# PATH (`make test`). Without a network, or without venv support, nothing is installed and those
# tests are reported as skipped with the reason; this script never fails the build.
set -uo pipefail
venv=${1:-.build/test-venv}
marker="$venv/.complete"
# DyldExtractor referees the dyld shared cache reader (dyldex -l / -e); best effort as well.
dyldex() {
  [ -x "$venv/bin/dyldex" ] || timeout 300 "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'dyldextractor==2.2.2' >&2 || echo "test-venv: could not install dyldextractor; cache referee tests will be skipped" >&2
}
[ -f "$marker" ] && [ -x "$venv/bin/sentry-cli" ] && { dyldex; exit 0; }
python=$(command -v python3) || { echo "test-venv: no python3; bucket tests will be skipped" >&2; exit 0; }
if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
  echo "test-venv: python3 cannot make a venv; bucket tests will be skipped" >&2
  exit 0
fi
if timeout 300 "$venv/bin/pip" install --quiet --disable-pip-version-check 'moto[server]' boto3 sentry-cli >&2; then
  touch "$marker"
  dyldex
else
  echo "test-venv: could not install moto[server] from PyPI; bucket tests will be skipped" >&2
fi
exit 0
