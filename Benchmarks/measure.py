#!/usr/bin/env python3
"""measure.py -- runs one command several times and reports its wall time and peak memory.

  measure.py [--runs N] [--before 'SHELL COMMAND'] [--stdin FILE] [--record FILE] -- COMMAND [ARG...]
  measure.py --summarize FILE

Each run starts the command directly (no shell in between), waits for it with wait4(), and
takes the wall time around it, and from the kernel's rusage of that child its CPU time (user +
system) and its peak resident set size (ru_maxrss, the figure `/usr/bin/time -v` prints as
"Maximum resident set size"). The
optional --before command runs ahead of every run, untimed (e.g. to empty a store). Prints
`median_seconds`, `min_seconds`, `max_seconds`, `median_cpu_seconds`, `min_cpu_seconds` and
`peak_rss_mb` (the largest over the runs) as `key: value` lines; exits 1 with the command's error
output if any run fails. --record appends each run's figures to FILE, and --summarize prints the
same lines for every run recorded there: run.sh alternates the runs of the tools it compares,
one at a time, so that a machine whose speed drifts during the measurement slows them alike.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def run_once(command, stdin_path):
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        errors = child.stderr.read().decode(errors="replace")
        child.stderr.close()
    finally:
        if stdin_path:
            stdin.close()
    if child.returncode != 0:
        sys.exit("measure.py: %s exited with %d:\n%s" % (" ".join(command), child.returncode, errors[-2000:]))
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def summarize(times, cpus, rss):
    print("runs: %d" % len(times))
    print("median_seconds: %.4f" % statistics.median(times))
    print("min_seconds: %.4f" % min(times))
    print("max_seconds: %.4f" % max(times))
    print("median_cpu_seconds: %.4f" % statistics.median(cpus))
    print("min_cpu_seconds: %.4f" % min(cpus))
    print("peak_rss_mb: %.1f" % max(rss))


def main():
    parser = argparse.ArgumentParser(description="Time a command over several runs.")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", help="shell command run, untimed, ahead of every run")
    parser.add_argument("--stdin", help="file given to the command as standard input")
    parser.add_argument("--record", help="file each run's wall, CPU and RSS figures are appended to")
    parser.add_argument("--summarize", help="print the figures of the runs recorded in this file")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.summarize:
        with open(args.summarize) as f:
            rows = [tuple(float(x) for x in line.split()) for line in f if line.strip()]
        if not rows:
            sys.exit("measure.py: no runs recorded in %s" % args.summarize)
        summarize(*zip(*rows))
        return
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or args.runs < 1:
        parser.error("give --runs >= 1 and a command after --")
    times, cpus, rss = [], [], []
    for _ in range(args.runs):
        if args.before:
            subprocess.run(args.before, shell=True, check=True)
        elapsed, cpu, peak = run_once(command, args.stdin)
        times.append(elapsed)
        cpus.append(cpu)
        rss.append(peak)
        if args.record:
            with open(args.record, "a") as f:
                f.write("%.6f %.6f %.1f\n" % (elapsed, cpu, peak))
    summarize(times, cpus, rss)


if __name__ == "__main__":
    main()
