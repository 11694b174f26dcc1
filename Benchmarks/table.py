#!/usr/bin/env python3
"""table.py -- turns the figures run.sh collected into the Markdown table of Benchmarks/results.md.

run.sh passes each tool's `key: value` output (from measure.py, symbolicate-bench and
symbolic_bench.py) in environment variables; this prints the date and machine, one row per
measurement with the ratio to the other tools, and PASS/MISS against the targets of the store.
"""

import os

TARGET_IMPORT_RATIO = 1.0  # our import's CPU time / llvm-gsymutil's on the same file
NEXT_IMPORT_RATIO = 0.5  # the next step
TARGET_IMPORT_WALL_RATIO = 0.6  # our import's wall time / llvm-gsymutil's, on 2 cores
TARGET_LOOKUPS = 600_000  # lookups per CPU second, one thread, inline chains included
TARGET_REPORT_CPU_SECONDS = 0.010  # 60-frame report, whole process, warm store
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
    mid_i, mid_g = figures("mid_import"), figures("mid_gsym")

    out = ["# Benchmark results", ""]
    out.append("Measured %s on %s, by `Benchmarks/run.sh` (`make bench`)." % (env.get("DATE"), env.get("MACHINE")))
    out.append("Load average while measuring: %s." % env.get("LOAD", "?"))
    out.append("")
    out.append("Input: the synthetic SynthApp (%s MB of DWARF 5 in its dSYM, %s functions, %s locations and %s "
               "ranges in its symbol table), its 60-frame 4-image report, and the Samples' HoldApp/HoldKit "
               "(ios-arm64-dwarf5)." % (env.get("DWARF_MB"), ours_l.get("functions"), ours_l.get("locations"),
                                        ours_l.get("ranges")))
    out.append("Times are medians (3 runs for imports, 10 for reports) of wall time and of the process's CPU time "
               "(user + system); memory is the peak resident set size (rusage `ru_maxrss`, as `/usr/bin/time -v`). "
               "On a machine shared with other work, wall time includes waiting for a core, so the verdicts use "
               "CPU time (lookups: CPU time of the looking-up thread); both are shown.")
    out.append("")
    out.append("| measurement | symbolicate | LLVM (gsymutil --convert, llvm-symbolizer --inlines) | symbolic (SymCache) | ours / LLVM | ours / symbolic | target | verdict |")
    out.append("|---|---|---|---|---|---|---|---|")

    def row(name, ours, llvm, symc, key, scale, unit, target, ok):
        a, b, c = number(ours, key), number(llvm, key), number(symc, key)
        cell = lambda v: "%.*f %s" % (2 if unit == "s" else 1, v * scale, unit) if v is not None else "-"
        ratio = lambda x, y: "%.2f x" % (x / y) if x and y else "-"
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, cell(a), cell(b), cell(c), ratio(a, b), ratio(a, c), target,
            verdict(ok(a, b, c)) if ok else ""))

    row("import, wall", ours_i, gsym_i, symc_i, "median_seconds", 1, "s",
        "<= 0.6 x gsymutil", lambda a, b, c: a is not None and b and a / b <= TARGET_IMPORT_WALL_RATIO)
    row("import, CPU", ours_i, gsym_i, symc_i, "median_cpu_seconds", 1, "s",
        "<= 1.0 x gsymutil", lambda a, b, c: a is not None and b and a / b <= TARGET_IMPORT_RATIO)
    cpu_ratio = (number(ours_i, "median_cpu_seconds") or 0) / (number(gsym_i, "median_cpu_seconds") or 1)
    out.append("| import, CPU, the next step | | | | %.2f x | | <= 0.5 x gsymutil | %s |"
               % (cpu_ratio, verdict(0 < cpu_ratio <= NEXT_IMPORT_RATIO)))
    row("import, peak RSS", ours_i, gsym_i, symc_i, "peak_rss_mb", 1, "MB", "", None)
    store_mb, symc_mb = float(env.get("STORE_MB") or 0), float(env.get("SYMC_MB") or 0)
    out.append("| import, output size | %.1f MB (build file) | %s MB (.gsym) | %.1f MB (.symcache) | | %.2f x | <= SymCache | %s |"
               % (store_mb, env.get("GSYM_MB"), symc_mb, store_mb / symc_mb if symc_mb else 0,
                  verdict(0 < store_mb <= symc_mb)))

    for label, key in (("wall", "lookups_per_second"), ("CPU", "lookups_per_cpu_second")):
        a, c = number(ours_l, key), number(symc_l, key)
        target = ">= 600,000 / s" if label == "CPU" else ""
        ok = verdict((a or 0) >= TARGET_LOOKUPS) if label == "CPU" else ""
        out.append("| lookups per second, one thread (%s) | %s | - | %s (Python loop) | - | %s | %s | %s |" % (
            label, "{:,.0f}".format(a or 0), "{:,.0f}".format(c or 0),
            "%.2f x" % (a / c) if a and c else "-", target, ok))

    row("60-frame report, whole process, wall", ours_r, llvm_r, symc_r, "median_seconds", 1000,
        "ms", "", None)
    row("60-frame report, whole process, fastest of 10, wall", ours_r, llvm_r, symc_r, "min_seconds", 1000, "ms", "", None)
    row("60-frame report, whole process, CPU", ours_r, llvm_r, symc_r, "median_cpu_seconds", 1000, "ms",
        "<= 10 ms", lambda a, b, c: a is not None and a <= TARGET_REPORT_CPU_SECONDS)
    row("60-frame report, peak RSS", ours_r, llvm_r, symc_r, "peak_rss_mb", 1, "MB", "", None)
    if large_i:
        # The memory curve: the import above (~40 MB of DWARF), then ~100 and ~200 MB.
        for label, mb, i, g in (("", env.get("DWARF_MB"), ours_i, gsym_i),
                                ("", env.get("MID_DWARF_MB"), mid_i, mid_g),
                                ("", env.get("LARGE_DWARF_MB"), large_i, large_g)):
            if not i:
                continue
            rss = number(i, "peak_rss_mb")
            ok = verdict(rss <= TARGET_LARGE_RSS_MB) if i is large_i else ""
            out.append("| import of %s MB of DWARF, peak RSS | %.0f MB | %.0f MB | | %.2f x | | %s | %s |"
                       % (mb, rss, number(g, "peak_rss_mb"), rss / number(g, "peak_rss_mb"),
                          "<= 300 MB" if i is large_i else "", ok))
            cpu, gcpu = number(i, "median_cpu_seconds"), number(g, "median_cpu_seconds")
            out.append("| import of %s MB of DWARF, CPU | %.2f s | %.2f s | | %.2f x | | %s | %s |"
                       % (mb, cpu, gcpu, cpu / gcpu, "<= 1.0 x gsymutil" if i is large_i else "",
                          verdict(cpu <= TARGET_IMPORT_RATIO * gcpu) if i is large_i else ""))
            wall, gwall = number(i, "median_seconds"), number(g, "median_seconds")
            out.append("| import of %s MB of DWARF, wall | %.2f s | %.2f s | | %.2f x | | %s | %s |"
                       % (mb, wall, gwall, wall / gwall, "<= 0.6 x gsymutil" if i is large_i else "",
                          verdict(wall <= TARGET_IMPORT_WALL_RATIO * gwall) if i is large_i else ""))
        build = (env.get("LARGE_BUILD") or "").split()
        if len(build) == 3:
            wall, cpu = float(build[0]), float(build[1]) + float(build[2])
            out.append("| building the %s MB input (compile, link, dsymutil; timed by the run that built it) | %.1f min wall, %.1f min CPU | | | | | "
                       "<= 15 min on 2 cores | %s |"
                       % (env.get("LARGE_DWARF_MB"), wall / 60, cpu / 60,
                          verdict(cpu / 2 <= 15 * 60) + " (CPU / 2 cores)"))
    else:
        rss, dwarf = number(ours_i, "peak_rss_mb"), float(env.get("DWARF_MB") or 0)
        per_mb = rss / dwarf if rss and dwarf else 0
        out.append("| import of ~200 MB of DWARF, peak RSS | not run (`run.sh --large`); %.1f MB of RSS per MB of "
                   "DWARF above, so about %.0f MB | | | | | <= 300 MB | %s |"
                   % (per_mb, 200 * per_mb, verdict(200 * per_mb <= TARGET_LARGE_RSS_MB) + " (extrapolated)"))
    out.append("")
    out.append("Lookups: %s addresses (pseudo-random in __TEXT plus every range start), %s levels per answer "
               "(ours) / %s (symbolic); %s of them checked against SymbolTable.lookup on the dSYM, %s differ. "
               "symbolic's figure is bound by the Python call into Rust, not by its index."
               % (ours_l.get("addresses"), ours_l.get("levels_per_answer"), symc_l.get("levels_per_answer"),
                  ours_l.get("checked"), ours_l.get("mismatches")))
    out.append("")
    out.append("Report: %s of the %s frames with symbols were symbolicated with a file and line by `symbolicate`; "
               "llvm-symbolizer (given each dSYM and address on standard input) and symbolic (prebuilt SymCaches) "
               "look up the same %s adjusted addresses; the 4 libsystem_kernel frames have no symbols anywhere. "
               "`symbolicate --help` alone takes %s ms of CPU (process start)."
               % (env.get("SYMBOLICATED"), env.get("FRAMES"), env.get("FRAMES"),
                  "%.1f" % (1000 * (number(figures("ours_start"), "median_cpu_seconds") or 0))))
    print("\n".join(out))


if __name__ == "__main__":
    main()
