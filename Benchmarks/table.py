#!/usr/bin/env python3
"""table.py -- turns the figures run.sh collected into the Markdown table of Benchmarks/results.md.

run.sh passes each tool's `key: value` output (from measure.py, symbolicate-bench and
symbolic_bench.py) in environment variables; this prints the date and machine, one row per
measurement with the ratio to the other tools, and PASS/MISS against the targets of the store.
"""

import os

TARGET_IMPORT_RATIO = 0.5  # our import time / llvm-gsymutil's
TARGET_LOOKUPS = 250_000  # lookups per second, one thread, inline chains included
TARGET_REPORT_SECONDS = 0.020  # 60-frame report, whole process, warm store
TARGET_LARGE_RSS_MB = 300  # importing ~200 MB of DWARF


def figures(name):
    values = {}
    for line in os.environ.get(name, "").splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            values[key.strip()] = value.strip()
    return values


def number(values, key):
    try:
        return float(values[key])
    except (KeyError, ValueError):
        return None


def verdict(ok):
    return "PASS" if ok else "MISS"


def main():
    env = os.environ
    ours_i, gsym_i, symc_i = figures("ours_import"), figures("gsym_import"), figures("symc_import")
    ours_l, symc_l = figures("ours_lookups"), figures("symc_lookups")
    ours_r, llvm_r, symc_r = figures("ours_report"), figures("llvm_report"), figures("symc_report")
    large_i, large_g = figures("large_import"), figures("large_gsym")

    out = ["# Benchmark results", ""]
    out.append("Measured %s on %s, by `Benchmarks/run.sh` (`make bench`)." % (env.get("DATE"), env.get("MACHINE")))
    out.append("Input: the synthetic SynthApp (%s MB of DWARF 5 in its dSYM, %s functions in its symbol table), "
               "its 60-frame 4-image report, and the Samples' HoldApp/HoldKit (ios-arm64-dwarf5)."
               % (env.get("DWARF_MB"), env.get("FUNCTIONS")))
    out.append("Times are medians of wall time (3 runs for imports, 10 for reports); memory is the "
               "process's peak resident set size (rusage `ru_maxrss`, what `/usr/bin/time -v` shows).")
    out.append("")
    out.append("| measurement | symbolicate | llvm-gsymutil / llvm-symbolizer | symbolic (SymCache) | ratio | target | |")
    out.append("|---|---|---|---|---|---|---|")

    t_ours, t_gsym, t_symc = (number(ours_i, "median_seconds"), number(gsym_i, "median_seconds"),
                              number(symc_i, "median_seconds"))
    ratio = t_ours / t_gsym if t_ours and t_gsym else None
    out.append("| import, wall time | %.2f s | %.2f s (gsymutil) | %.2f s | %.2f x gsymutil, %.2f x symbolic | <= 0.5 x gsymutil | %s |"
               % (t_ours, t_gsym, t_symc, ratio or 0, t_ours / t_symc if t_symc else 0,
                  verdict(ratio is not None and ratio <= TARGET_IMPORT_RATIO)))
    out.append("| import, peak RSS | %s MB | %s MB | %s MB | | | |"
               % (ours_i.get("peak_rss_mb"), gsym_i.get("peak_rss_mb"), symc_i.get("peak_rss_mb")))
    out.append("| import, output size | %s MB (store) | %s MB (.gsym) | %s MB (.symcache) | | | |"
               % (env.get("STORE_MB"), env.get("GSYM_MB"), env.get("SYMC_MB")))

    l_ours, l_symc = number(ours_l, "lookups_per_second"), number(symc_l, "lookups_per_second")
    out.append("| lookups/s, one thread, in process | %s | | %s (Python loop) | %.2f x symbolic | >= 250,000 | %s |"
               % ("{:,.0f}".format(l_ours or 0), "{:,.0f}".format(l_symc or 0),
                  (l_ours / l_symc) if l_ours and l_symc else 0, verdict((l_ours or 0) >= TARGET_LOOKUPS)))

    r_ours, r_llvm, r_symc = (number(ours_r, "median_seconds"), number(llvm_r, "median_seconds"),
                              number(symc_r, "median_seconds"))
    out.append("| 60-frame report, whole process | %.1f ms | %.1f ms (llvm-symbolizer) | %.1f ms (Python) | %.2f x llvm-symbolizer, %.2f x symbolic | <= 20 ms | %s |"
               % (1000 * r_ours, 1000 * r_llvm, 1000 * r_symc, r_ours / r_llvm, r_ours / r_symc,
                  verdict(r_ours <= TARGET_REPORT_SECONDS)))
    out.append("| 60-frame report, peak RSS | %s MB | %s MB | %s MB | | | |"
               % (ours_r.get("peak_rss_mb"), llvm_r.get("peak_rss_mb"), symc_r.get("peak_rss_mb")))
    if large_i:
        rss = number(large_i, "peak_rss_mb")
        out.append("| import of %s MB of DWARF, peak RSS | %.0f MB (%.1f s) | %s MB (%s s, gsymutil) | | | <= 300 MB | %s |"
                   % (env.get("LARGE_DWARF_MB"), rss, number(large_i, "median_seconds"), large_g.get("peak_rss_mb"),
                      large_g.get("median_seconds"), verdict(rss <= TARGET_LARGE_RSS_MB)))
    else:
        out.append("| import of ~200 MB of DWARF, peak RSS | not run (`run.sh --large`) | | | | <= 300 MB | |")
    out.append("")
    out.append("Lookups: %s addresses (pseudo-random in __TEXT plus every range start), %s levels per answer "
               "(ours) / %s (symbolic); %s of them checked against SymbolTable.lookup on the dSYM, %s differ. "
               "symbolic's figure is bound by the Python call into Rust, not by its index."
               % (ours_l.get("addresses"), ours_l.get("levels_per_answer"), symc_l.get("levels_per_answer"),
                  ours_l.get("checked"), ours_l.get("mismatches")))
    out.append("Report: %s of the %s frames with symbols were symbolicated with a file and line by `symbolicate`; "
               "llvm-symbolizer and symbolic are given the same %s adjusted addresses (the 4 system frames have no "
               "symbols anywhere)." % (env.get("SYMBOLICATED"), env.get("FRAMES"), env.get("FRAMES")))
    print("\n".join(out))


if __name__ == "__main__":
    main()
