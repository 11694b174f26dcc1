#!/bin/sh
# Writes a crash report with exactly 60 frames to stdout, built from a Samples report: its own
# threads are kept and a further thread repeats the crashed thread's frames until the report
# holds 60 frames. Usage: make-report.sh SAMPLE.crash [FRAMES]
set -eu
sample=$1
want=${2:-60}
awk -v want="$want" '
    function isframe(line) { return line ~ /^[0-9]+ +[^ ].* 0x[0-9a-f]+ / }
    { lines[NR] = $0 }
    isframe($0) { frames++ }
    /^Thread [0-9]+ Crashed:/ { incrashed = 1; next }
    incrashed && isframe($0) { crashed[++ncrashed] = $0; next }
    incrashed && !isframe($0) { incrashed = 0 }
    /^Binary Images:/ && !imagesat { imagesat = NR }
    END {
        if (ncrashed == 0 || imagesat == 0) { print "make-report.sh: no crashed thread or Binary Images in the sample" > "/dev/stderr"; exit 1 }
        for (i = 1; i < imagesat; i++) {
            if (lines[i] ~ /^Thread [0-9]+ crashed with/ && !added) { emit(); added = 1 }
            print lines[i]
        }
        if (!added) emit()
        for (i = imagesat; i <= NR; i++) print lines[i]
    }
    function emit(   n, k, line) {
        if (frames >= want) return
        print "Thread 99:"
        for (n = 0; n < want - frames; n++) {
            line = crashed[(n % ncrashed) + 1]
            sub(/^[0-9]+ +/, "", line)
            printf "%-4d%s\n", n, line
        }
        print ""
    }
' "$sample"
