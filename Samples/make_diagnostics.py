#!/usr/bin/env python3
"""make_diagnostics.py -- writes MetricKit payloads and resource reports over the HoldApp samples.

The frames come from a sample .ips report written by make_reports.py (real addresses in the
HoldApp and HoldKit builds: a pc inside inlined code, then return addresses), so every frame
has a matching dSYM under build/. Written to diagnostics/:

  HoldApp-metrickit.json        an MXDiagnosticPayload (pretty-printed, as
                                jsonRepresentation() writes it): a crash diagnostic whose call
                                stacks are per thread (root = the pc, subFrames = callers), and a
                                CPU exception diagnostic whose tree aggregates samples (roots =
                                outermost frames, subFrames = callees, leaves = pcs)
  HoldApp-metrickit-array.json  two payloads in an array, compact, one with load addresses in
                                offsetIntoBinaryTextSegment (the iOS 14 quirk) and a frame with
                                no binaryUUID
  HoldApp-callstacktree.json    a bare MXCallStackTree (callStacks + callStackPerThread)
  HoldApp-cpu-resource.txt      a microstackshot resource report (Event: cpu usage): the heaviest
                                stack (one chain, outermost first) and the sample tree, lines
                                `N  ??? (Image + offset) [0xaddr]`, and its Binary Images
  HoldApp-sample.txt            /usr/bin/sample output (Report Version 7) for the HoldApp process of
                                sim-x86_64-dwarf4, from that variant's .ips: one call-graph tree per
                                thread (outermost first; the main thread's pc split with pc + 4),
                                `???  (in Image)  load address 0x.. + 0x..  [0x..]` app frames,
                                "Sort by top of stack" and Binary Images
  HoldApp-spindump.txt          spindump process sections, from the same .ips: HoldApp (both
                                threads, outermost first, `N  ??? (Image + offset) [0x..]` lines, a
                                `<patched truncated backtrace>` node after the -[HAViewController
                                loadView] return address and a `*` kernel frame under the pc), then
                                a HoldWidget extension that loads HoldKit at another address
                                (0x104560000); each section with its own Binary Images

Usage: make_diagnostics.py --reports Samples/reports --out Samples/diagnostics
"""

import argparse
import json
import os

SOURCE = "HoldApp-ios-arm64-dwarf5.ips"


def load(reports, source=SOURCE):
    with open(os.path.join(reports, source)) as handle:
        _, body = handle.read().split("\n", 1)
    report = json.loads(body)
    images = report["usedImages"]
    threads = []
    for thread in report["threads"]:
        frames = []
        for frame in thread["frames"]:
            image = images[frame["imageIndex"]]
            frames.append({"image": image, "offset": frame["imageOffset"],
                           "address": image["base"] + frame["imageOffset"],
                           "symbol": frame.get("symbol"), "symbolLocation": frame.get("symbolLocation")})
        threads.append(frames)
    return report, threads


def node(frame, count, quirk=False, uuid=True):
    """One MetricKit frame object, keys in the order jsonRepresentation() writes them."""
    out = {}
    if uuid:
        out["binaryUUID"] = frame["image"]["uuid"].upper()
    out["offsetIntoBinaryTextSegment"] = frame["image"]["base"] if quirk else frame["offset"]
    out["sampleCount"] = count
    out["binaryName"] = frame["image"]["name"]
    out["address"] = frame["address"]
    return out


def per_thread_tree(threads, quirk=False, no_uuid_at=None):
    """callStackPerThread true: each thread's innermost frame is the root, callers nest below."""
    stacks = []
    for t, frames in enumerate(threads):
        root = None
        parent = None
        for i, frame in enumerate(frames):
            n = node(frame, 1, quirk=quirk, uuid=(t, i) != no_uuid_at)
            if parent is None:
                root = n
            else:
                parent["subFrames"] = [n]
            parent = n
        stacks.append({"threadAttributed": t == 0, "callStackRootFrames": [root]})
    return {"callStackPerThread": True, "callStacks": stacks}


def aggregated_tree(threads):
    """callStackPerThread false: samples of both threads merged from the outermost frame down."""
    roots = []
    for weight, frames in zip((7, 3), threads):
        level = roots
        for frame in reversed(frames):
            existing = next((n for n in level if n["address"] == frame["address"]), None)
            if existing is None:
                existing = node(frame, 0)
                level.append(existing)
            existing["sampleCount"] += weight
            level = existing.setdefault("subFrames", [])
    strip_empty(roots)
    return {"callStackPerThread": False, "callStacks": [{"threadAttributed": False, "callStackRootFrames": roots}]}


def strip_empty(nodes):
    for n in nodes:
        if n.get("subFrames") == []:
            del n["subFrames"]
        else:
            strip_empty(n.get("subFrames", []))


def meta(report, **extra):
    out = {"appBuildVersion": "1", "appVersion": "1.0", "bundleIdentifier": "com.example.HoldApp",
           "deviceType": "iPhone14,2", "osVersion": "iPhone OS 16.1 (20B82)", "platformArchitecture": "arm64",
           "regionFormat": "US", "isTestFlightApp": False, "lowPowerModeEnabled": False, "pid": report["pid"]}
    out.update(extra)
    return out


def resource_report(report, threads):
    """A microstackshot report (Event: cpu usage) with the aggregated sample tree."""
    images = {}
    for frames in threads:
        for frame in frames:
            images[frame["image"]["name"]] = frame["image"]
    lines = [
        "Date/Time:        2024-03-02 10:15:22.000 +0000",
        "End time:         2024-03-02 10:16:12.000 +0000",
        "OS Version:       iPhone OS 16.1 (Build 20B82)",
        "Architecture:     arm64",
        "Report Version:   44",
        "Incident Identifier: 6A0D3C0E-1F0B-4C9E-8E1B-5E3C3A9F2D11",
        "",
        "Data Source:      Microstackshots",
        "Shared Cache:     0F4A3B8E-2C1D-3E4F-9A8B-7C6D5E4F3A2B slid base address 0x1a9b00000, slide 0x29b00000",
        "",
        "Command:          HoldApp",
        "Path:             " + images["HoldApp"]["path"],
        "Identifier:       com.example.HoldApp",
        "Version:          1.0 (1)",
        "PID:              %d" % report["pid"],
        "",
        "Event:            cpu usage",
        "Action taken:     Process killed",
        "CPU:              90 seconds cpu time over 50 seconds (180% cpu average), exceeding limit of 80% cpu over 60 seconds",
        "CPU limit:        48s",
        "Limit duration:   60s",
        "CPU used:         90s",
        "CPU duration:     50s",
        "Duration:         50.00s",
        "Duration Sampled: 48.00s",
        "Steps:            10",
        "",
        "Hardware model:   iPhone14,2",
        "Active cpus:      6",
        "",
        "",
        "Heaviest stack for the target process:",
    ] + ["  7  ??? (%s + %d) [0x%x]" % (f["image"]["name"], f["offset"], f["address"]) for f in reversed(threads[0])] + [
        "",
        "",
        "Powerstats for:   HoldApp [%d]" % report["pid"],
        "UUID:             " + images["HoldApp"]["uuid"].upper(),
        "Path:             " + images["HoldApp"]["path"],
        "Architecture:     arm64",
        "Footprint:        12.34 MB",
        "Start time:       2024-03-02 10:15:22.000 +0000",
        "End time:         2024-03-02 10:16:12.000 +0000",
        "Num samples:      10 (100%)",
        "Primary state:    10 samples Frontmost App, User mode, Effective Thread QoS User Interactive",
        "User Activity:    10 samples Idle, 0 samples Active",
        "Power Source:     10 samples on Battery, 0 samples on AC",
        "",
    ]
    tree = aggregated_tree(threads)["callStacks"][0]["callStackRootFrames"]

    def emit(nodes, depth):
        for n in nodes:
            offset = n["offsetIntoBinaryTextSegment"]
            lines.append("%s%d  ??? (%s + %d) [0x%x]" % ("  " * (depth + 1), n["sampleCount"], n["binaryName"],
                                                         offset, n["address"]))
            emit(n.get("subFrames", []), depth + 1)
    emit(tree, 0)
    lines += ["", "  Binary Images:"]
    for name in sorted(images, key=lambda k: images[k]["base"]):
        image = images[name]
        end = image["base"] + image["size"] - 1
        lines.append("         0x%x -        0x%x  %s 1.0 (1)  <%s>  %s" % (
            image["base"], end, name, image["uuid"].upper(), image["path"]))
    return "\n".join(lines) + "\n"


SAMPLE_SOURCE = "HoldApp-sim-x86_64-dwarf4.ips"
SAMPLE_APP_IMAGES = ("HoldApp", "HoldKit")
SAMPLE_VERSIONS = {"libsystem_kernel.dylib": "8020.121.3", "UIKitCore": "6209.1.101", "libdyld.dylib": "957"}


def sample_report(reports):
    """The output of /usr/bin/sample (Report Version 7) over the sim-x86_64-dwarf4 report's threads.

    One call-graph tree per thread, outermost frame first; the main thread's samples are split
    between its pc (2000) and pc + 4 (449, the next instruction of the same function), so its
    innermost caller has two leaves. App and framework frames are `???  (in Image)  load address`
    lines; system frames are named from the report's symbol and symbolLocation when it has them.
    """
    report, threads = load(reports, SAMPLE_SOURCE)
    ids = [16000000 + thread["id"] for thread in report["threads"] if thread["frames"]]
    threads = [frames for frames in threads if frames]
    if len(threads) == 1:
        threads.append(threads[0][2:])
        ids.append(ids[0] + 7)
    app = next(image for image in report["usedImages"] if image["name"] == "HoldApp")

    def unnamed(frame):
        return "???  (in %s)  load address 0x%x + 0x%x  [0x%x]" % (
            frame["image"]["name"], frame["image"]["base"], frame["offset"], frame["address"])

    def text(frame):
        if frame["image"]["name"] in SAMPLE_APP_IMAGES or frame.get("symbol") is None:
            return unnamed(frame)
        return "%s  (in %s) + %d  [0x%x]" % (frame["symbol"], frame["image"]["name"], frame["symbolLocation"],
                                             frame["address"])

    def top(frame):
        if frame["image"]["name"] in SAMPLE_APP_IMAGES or frame.get("symbol") is None:
            return unnamed(frame)
        return "%s  (in %s)" % (frame["symbol"], frame["image"]["name"])

    # Each tree: [count, frame, children]; thread 0's pc shares its samples with pc + 4.
    trees = []
    for t, frames in enumerate(threads):
        chain = list(reversed(frames))
        total = 2449
        leaves = [[total, chain[-1], []]]
        if t == 0:
            pc = chain[-1]
            other = dict(pc, offset=pc["offset"] + 4, address=pc["address"] + 4)
            leaves = [[2000, pc, []], [449, other, []]]
        level = leaves
        for frame in reversed(chain[:-1]):
            level = [[total, frame, level]]
        trees.append((total, level))

    lines = [
        "Sampling process %d for 3 seconds with 1 millisecond of run time between samples" % report["pid"],
        "Sampling completed, processing symbols...",
        "Analysis of sampling HoldApp (pid %d) every 1 millisecond" % report["pid"],
        "Process:         HoldApp [%d]" % report["pid"],
        "Path:            " + app["path"],
        "Load Address:    0x%x" % app["base"],
        "Identifier:      com.example.HoldApp",
        "Version:         1.2 (12)",
        "Code Type:       X86-64",
        "Platform:        iOS Simulator",
        "Parent Process:  launchd_sim [4100]",
        "",
        "Date/Time:       2026-11-02 09:41:07.000 +0100",
        "Launch Time:     2026-11-02 09:41:06.998 +0100",
        "OS Version:      macOS 12.4 (21F79)",
        "Report Version:  7",
        "Analysis Tool:   /usr/bin/sample",
        "",
        "Physical footprint:         12.3M",
        "Physical footprint (peak):  12.4M",
        "----",
        "",
        "Call graph:",
    ]
    leaf_counts = {}

    def emit(nodes, depth, cells):
        nodes = sorted(nodes, key=lambda n: -n[0])
        for i, (count, frame, children) in enumerate(nodes):
            lines.append("    %s%d %s" % ("".join(cells), count, text(frame)))
            if children:
                later = i + 1 < len(nodes)
                emit(children, depth + 1, cells + [("+!:|"[depth % 4] + " ") if later else "  "])
            else:
                leaf_counts[top(frame)] = leaf_counts.get(top(frame), 0) + count

    for t, (total, roots) in enumerate(trees):
        thread = "    %d Thread_%d" % (total, ids[t])
        if t == 0:
            thread += "   DispatchQueue_1: com.apple.main-thread  (serial)"
        lines.append(thread)
        emit(roots, 1, ["+ " if t + 1 < len(trees) else "  "])

    lines += ["", "Total number in stack (recursive counted multiple, when >=5):", "",
              "Sort by top of stack, same collapsed (when >= 5):"]
    for name, count in sorted(leaf_counts.items(), key=lambda item: -item[1]):
        lines.append("        %s        %d" % (name, count))
    lines += ["", "Binary Images:"]
    for image in sorted(report["usedImages"], key=lambda image: image["base"]):
        if image["name"] in SAMPLE_APP_IMAGES:
            version = "1.2 - 12"
        else:
            version = SAMPLE_VERSIONS.get(image["name"], "1")
        lines.append("%18s - %18s %s%s (%s) <%s> %s" % (
            "0x%x" % image["base"], "0x%x" % (image["base"] + image["size"] - 1),
            "+" if image["name"] == "HoldApp" else " ", image["name"], version, image["uuid"].upper(),
            image["path"]))
    return "\n".join(lines) + "\n"


SPINDUMP_LOADS_AFTER = 0xb99  # HoldApp's return address into -[HAViewController loadView]
SPINDUMP_WIDGET_HOLDKIT = 0x104560000
SPINDUMP_KERNEL_FRAME = "ipc_mqueue_receive_continue + 0 (kernel + 335600) [0xffffff8000261ef0]"
SPINDUMP_KERNEL_IMAGE = ("*", 0xffffff8000210000, 0xffffff8000c0ffff, "kernel (8020.121.3)",
                         "3C587984-4004-3C76-8ADF-997822977184", "/System/Library/Kernels/kernel")


def spindump_report(reports):
    """Two spindump process sections over the sim-x86_64-dwarf4 report's threads.

    HoldApp: both threads as one chain each (1000 samples, outermost first), two spaces of indent
    per level; thread 0 gets a `<patched truncated backtrace>` node right after the return address
    into -[HAViewController loadView] and ends in a kernel frame (`*` in place of one space).
    HoldWidget: an app extension whose only thread runs thread 0's HoldKit frames (same offsets)
    with HoldKit loaded at 0x104560000, so one image name has two load addresses in the file.
    """
    report, threads = load(reports, SAMPLE_SOURCE)
    threads = [frames for frames in threads if frames]
    images = {image["name"]: image for image in report["usedImages"]}
    app = images["HoldApp"]

    def text(frame):
        if frame["image"]["name"] in SAMPLE_APP_IMAGES or frame.get("symbol") is None:
            name = "???"
        else:
            name = "%s + %d" % (frame["symbol"], frame["symbolLocation"])
        return "%s (%s + %d) [0x%x]" % (name, frame["image"]["name"], frame["offset"], frame["address"])

    def tree(chain, marker_after=None, kernel=False):
        out = []
        depth = 0
        for frame in chain:
            out.append("%s1000  %s" % ("  " * (depth + 1), text(frame)))
            depth += 1
            if marker_after is not None and frame["image"]["name"] == "HoldApp" and frame["offset"] == marker_after:
                out.append("%s1000  <patched truncated backtrace>" % ("  " * (depth + 1)))
                depth += 1
        if kernel:
            out.append("%s*1000  %s" % (" " * (2 * (depth + 1) - 1), SPINDUMP_KERNEL_FRAME))
        return out

    def binary_images(used, kernel):
        rows = []
        for image in sorted(used, key=lambda image: image["base"]):
            if image["name"] in SAMPLE_APP_IMAGES:
                version = report["bundleInfo"]["CFBundleVersion"]
            else:
                version = SAMPLE_VERSIONS.get(image["name"], "1")
            rows.append((" ", image["base"], image["base"] + image["size"] - 1,
                         "%s (%s)" % (image["name"], version), image["uuid"].upper(), image["path"]))
        if kernel:
            rows.append(SPINDUMP_KERNEL_IMAGE)
        width = max(len(row[3]) for row in rows)
        return ["  Binary Images:"] + ["   %s%18s - %18s  %-*s <%s>  %s" % (
            star, "0x%x" % start, "0x%x" % end, width, name, uuid, path)
            for star, start, end, name, uuid, path in rows]

    def used(chains):
        seen = {}
        for chain in chains:
            for frame in chain:
                seen[frame["image"]["name"]] = frame["image"]
        return list(seen.values())

    chains = [list(reversed(frames)) for frames in threads]
    lines = [
        "Process:          HoldApp [%d]" % report["pid"],
        "UUID:             " + app["uuid"].upper(),
        "Path:             " + app["path"],
        "Identifier:       com.example.HoldApp",
        "Version:          1.2 (12)",
        "Shared Cache:     398ACFB4-57F6-31E0-BC82-E9959E5C92CE slid base address 0x7ff811b54000, slide 0x11b54000",
        "Architecture:     x86_64",
        "Parent:           launchd_sim [4100]",
        "Footprint:        12.34 MB",
        "Time Since Fork:  12s",
        "Num samples:      1000 (1-1000)",
        "",
        '  Thread 0x4d8a1    DispatchQueue "com.apple.main-thread"(1)    1000 samples (1-1000)    priority 46 (base 46)',
    ] + tree(chains[0], marker_after=SPINDUMP_LOADS_AFTER, kernel=True) + [
        "",
        "  Thread 0x4d8b3    1000 samples (1-1000)    priority 31 (base 31)",
    ] + tree(chains[1]) + [""] + binary_images(used(chains), kernel=True)

    holdkit = dict(images["HoldKit"], base=SPINDUMP_WIDGET_HOLDKIT)
    dyld = next(frame for frame in chains[0] if frame["image"]["name"] == "libdyld.dylib")
    widget = [dyld] + [dict(frame, image=holdkit, address=SPINDUMP_WIDGET_HOLDKIT + frame["offset"])
                       for frame in chains[0] if frame["image"]["name"] == "HoldKit"]
    appex = app["path"].rsplit("/", 1)[0] + "/PlugIns/HoldWidget.appex/HoldWidget"
    lines += [
        "",
        "",
        "Process:          HoldWidget [4133]",
        "UUID:             0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0",
        "Path:             " + appex,
        "Identifier:       com.example.HoldApp.HoldWidget",
        "Version:          1.2 (12)",
        "Architecture:     x86_64",
        "Parent:           launchd_sim [4100]",
        "Footprint:        3.21 MB",
        "Time Since Fork:  5s",
        "Num samples:      1000 (1-1000)",
        "",
        "  Thread 0x4d9c0    1000 samples (1-1000)    priority 31 (base 31)",
    ] + tree(widget) + [""] + binary_images(used([widget]), kernel=False)
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description="Write MetricKit payloads and resource reports over the samples.")
    parser.add_argument("--reports", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    report, threads = load(args.reports)

    payload = {
        "timeStampEnd": "2024-03-02 23:59:00 +0000",
        "timeStampBegin": "2024-03-02 00:00:00 +0000",
        "crashDiagnostics": [{
            "version": "1.0.0",
            "callStackTree": per_thread_tree(threads),
            "diagnosticMetaData": meta(report, exceptionType=1, exceptionCode=0, signal=11,
                                       terminationReason="Namespace SIGNAL, Code 11 Segmentation fault: 11",
                                       virtualMemoryRegionInfo="0 is not in any region."),
        }],
        "cpuExceptionDiagnostics": [{
            "version": "1.0.0",
            "callStackTree": aggregated_tree(threads),
            "diagnosticMetaData": meta(report, totalCPUTime="90 sec", totalSampledTime="50 sec"),
        }],
    }
    with open(os.path.join(args.out, "HoldApp-metrickit.json"), "w") as handle:
        handle.write(json.dumps(payload, indent=2, separators=(",", " : ")) + "\n")

    quirky = {
        "timeStampEnd": "2024-03-03 23:59:00 +0000",
        "timeStampBegin": "2024-03-03 00:00:00 +0000",
        "crashDiagnostics": [{
            "version": "1.0.0",
            "callStackTree": per_thread_tree(threads, quirk=True, no_uuid_at=(1, 0)),
            "diagnosticMetaData": meta(report, exceptionType=10, signal=6),
        }],
    }
    with open(os.path.join(args.out, "HoldApp-metrickit-array.json"), "w") as handle:
        handle.write(json.dumps([payload, quirky], separators=(",", ":")) + "\n")

    with open(os.path.join(args.out, "HoldApp-callstacktree.json"), "w") as handle:
        handle.write(json.dumps(aggregated_tree(threads), indent=2) + "\n")

    with open(os.path.join(args.out, "HoldApp-cpu-resource.txt"), "w") as handle:
        handle.write(resource_report(report, threads))

    with open(os.path.join(args.out, "HoldApp-sample.txt"), "w") as handle:
        handle.write(sample_report(args.reports))

    with open(os.path.join(args.out, "HoldApp-spindump.txt"), "w") as handle:
        handle.write(spindump_report(args.reports))


if __name__ == "__main__":
    main()
