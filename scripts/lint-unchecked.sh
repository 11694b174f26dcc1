#!/usr/bin/env bash
# Every `@unchecked Sendable` in Sources says why, in a comment block just above it that has a
# line starting `// @unchecked: `: the compiler cannot check such a type, so a reader must be able to.
set -euo pipefail
cd "$(dirname "$0")/.."
find Sources -name '*.swift' -print0 | xargs -0 awk '
    FNR == 1 { reason = 0 }
    /^[ \t]*\/\/\/? ?@unchecked: / { reason = 1; next }
    /^[ \t]*\/\// { next }
    /@unchecked Sendable/ { if (!reason) { print FILENAME ":" FNR ": @unchecked Sendable without a // @unchecked: reason above it"; bad = 1 } }
    { reason = 0 }
    END { exit bad }'
