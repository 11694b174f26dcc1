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
# Every input (DWARF 5 and 4, C++ and Swift, ~40 and ~200 MB): the import's CPU and wall time
# against gsymutil's on the same file, and its peak RSS at ~200 MB of DWARF
TARGET_VARIANT_CPU_RATIO = 0.5
TARGET_VARIANT_WALL_RATIO = 0.4
TARGET_VARIANT_LARGE_RSS_MB = 150


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


def variants(out, directory):
    """The import of every input run.sh measured (DWARF 5 and 4, Swift, the large ones): one row each."""
    if not directory or not os.path.exists(os.path.join(directory, "order")):
        return
    out.append("")
    out.append("### The import, on every shape of DWARF")
    out.append("")
    out.append("Each input imported into an empty store by `symbolicate import` and converted by "
               "`llvm-gsymutil-14 --convert` (and by symbolic's SymCache, but for the ~200 MB inputs), median of %s "
               "runs, the tools taking turns one run at a time. Targets: CPU <= %.1f x gsymutil's, wall <= %.1f x, peak RSS <= %d MB at ~200 MB of DWARF."
               % (os.environ.get("IMPORT_RUNS", "3"), TARGET_VARIANT_CPU_RATIO, TARGET_VARIANT_WALL_RATIO, TARGET_VARIANT_LARGE_RSS_MB))
    out.append("")
    out.append("| input | DWARF | CPU: ours / gsymutil / symbolic | CPU ratio | wall: ours / gsymutil | wall ratio "
               "| peak RSS: ours / gsymutil | verdict |")
    out.append("|---|---|---|---|---|---|---|---|")
    with open(os.path.join(directory, "order")) as handle:
        names = [line.strip() for line in handle if line.strip()]
    for name in names:
        def read(kind):
            path = os.path.join(directory, name, kind)
            if not os.path.exists(path):
                return {}
            values = {}
            with open(path) as handle:
                for line in handle:
                    key, sep, value = line.partition(": ")
                    if sep:
                        values[key.strip()] = value.strip()
            return values
        meta, ours, gsym, symc = read("meta"), read("ours"), read("gsym"), read("symc")
        cpu, gcpu, scpu = (number(v, "median_cpu_seconds") for v in (ours, gsym, symc))
        wall, gwall = number(ours, "median_seconds"), number(gsym, "median_seconds")
        rss, grss = number(ours, "peak_rss_mb"), number(gsym, "peak_rss_mb")
        if cpu is None or not gcpu or not gwall:
            continue
        large = name.endswith("large")
        checks = [cpu / gcpu <= TARGET_VARIANT_CPU_RATIO, wall / gwall <= TARGET_VARIANT_WALL_RATIO]
        if large:
            checks.append(rss <= TARGET_VARIANT_LARGE_RSS_MB)
        failed = [what for what, ok in zip(("CPU", "wall", "RSS"), checks) if not ok]
        out.append("| %s (`%s`) | %s MB | %.2f / %.2f / %s s | %.2f x | %.2f / %.2f s | %.2f x | %.0f / %.0f MB | %s |"
                   % (meta.get("label", name), name, meta.get("dwarf_mb", "?"), cpu, gcpu,
                      "%.2f" % scpu if scpu is not None else "-", cpu / gcpu, wall, gwall, wall / gwall, rss, grss,
                      "PASS" if not failed else "MISS (%s)" % ", ".join(failed)))


def main():
    env = os.environ
    ours_i, gsym_i, symc_i = figures("ours_import"), figures("gsym_import"), figures("symc_import")
    ours_l, symc_l = figures("ours_lookups"), figures("symc_lookups")
    ours_r, llvm_r, symc_r = figures("ours_report"), figures("llvm_report"), figures("symc_report")

    out = ["# Benchmark results", ""]
    out.append("Measured %s on %s, by `Benchmarks/run.sh` (`make bench`)." % (env.get("DATE"), env.get("MACHINE")))
    out.append("Load average while measuring: %s." % env.get("LOAD", "?"))
    before, after = figures("calibration_before"), figures("calibration_after")
    out.append("Calibration (`Benchmarks/calibrate.sh`, a fixed C loop of about 1.6 billion instructions on one "
               "core): %s ms of CPU before the run (load %s), %s ms after (load %s). Seconds below compare with "
               "another run's only through this figure; instruction counts and ratios to the other tools, "
               "measured in the same run, compare directly."
               % (before.get("calibration_ms", "?"), before.get("load_average", "?"),
                  after.get("calibration_ms", "?"), after.get("load_average", "?")))
    out.append("")
    out.append("Input: the synthetic SynthApp (%s MB of DWARF 5 in its dSYM, %s functions, %s locations and %s "
               "ranges in its symbol table), its 60-frame 4-image report, and the Samples' HoldApp/HoldKit "
               "(ios-arm64-dwarf5)." % (env.get("DWARF_MB"), ours_l.get("functions"), ours_l.get("locations"),
                                        ours_l.get("ranges")))
    out.append("Times are medians (" + env.get("IMPORT_RUNS", "3") + " runs for imports, 10 for reports) of wall time and of the process's CPU time "
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
    variants(out, env.get("VARIANTS_DIR"))
    build = (env.get("LARGE_BUILD") or "").split()
    if len(build) == 3:
        wall, cpu = float(build[0]), float(build[1]) + float(build[2])
        out.append("")
        out.append("Building the ~200 MB DWARF 5 input (compile, link, dsymutil; timed by the run that built it): "
                   "%.1f min wall, %.1f min CPU; target <= 15 min on 2 cores: %s (CPU / 2 cores)."
                   % (wall / 60, cpu / 60, verdict(cpu / 2 <= 15 * 60)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
