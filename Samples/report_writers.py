"""report_writers.py -- renders resolved frames as Apple crash reports and expected-answer tables.

write_crash renders the text format (Report Version 104), write_ips the JSON format (bug_type
309: a one-line metadata document, then the report body), and write_expected a tab-separated
table of every app and framework frame with llvm-symbolizer-14's answer for it. Frames arrive
from make_reports.py as dicts: image, address, load, and either symbol/symbolOffset (system
images) or vmaddr/return/imageObj (images we have dSYMs for); "signed" is an address with
pointer-authentication bits.
"""

import json
import sys

from llvmtools import symbolize

BUNDLE_ID = "com.example.HoldApp"
PROCESS = "HoldApp"
PID = 4127

# System images we have no symbols for (made-up UUIDs): name -> (arm64 load, x86_64 load, uuid,
# path, __TEXT size).
SYSTEM = {
    "libsystem_kernel.dylib": (0x1E0AAF000, 0x7FF81D5A0000, "a7c3e1f0-52d4-3b8e-9f61-0d4c2b7e8a15",
                               "/usr/lib/system/libsystem_kernel.dylib", 0x36000),
    "UIKitCore": (0x1AB302000, 0x7FF8239A1000, "6e0d94b2-1f3a-3c7d-8b25-c4e9a07f3d61",
                  "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore", 0x189C000),
    "libdyld.dylib": (0x1A9BB0000, 0x7FF81D4C2000, "0f9a2e6c-3b1d-3a58-9c74-5e2d8b1f6a30",
                      "/usr/lib/system/libdyld.dylib", 0x3A000),
}


def _header_fields(variant):
    if variant.simulator:
        return {"model": "MacBookPro16,1", "code": "X86-64 (Native)", "cpu": "X86-64",
                "os": "iPhone OS 15.5 (19F77) (Simulator)", "arch": "x86_64"}
    return {"model": "iPhone14,2", "code": "ARM-64 (Native)", "cpu": "ARM-64",
            "os": "iPhone OS 15.5 (19F77)", "arch": "arm64e"}


def _images(variant, app_uuid):
    """The images in report order: app, framework, then the system images."""
    head = _header_fields(variant)
    images = [
        (PROCESS, variant.app.load, variant.app.text_size, variant.app.arch, app_uuid, variant.app.path),
        ("HoldKit", variant.kit.load, variant.kit.text_size, variant.kit.arch, variant.kit.uuid, variant.kit.path),
    ]
    for name, (arm_load, x86_load, uuid, path, size) in SYSTEM.items():
        load = x86_load if variant.simulator else arm_load
        images.append((name, load, size, head["arch"], uuid.upper(), path))
    return images


def _frame_line(index, frame):
    text = "%-4d%-30s\t%#18x " % (index, frame["image"], frame.get("signed", frame["address"]))
    if "symbol" in frame:
        return text + "%s + %d" % (frame["symbol"], frame["symbolOffset"])
    return text + "%#x + %d" % (frame["load"], frame["address"] - frame["load"])


def write_crash(path, variant, incident, crashed, second, exception, exception_style, app_uuid):
    """Writes an Apple text crash report (Report Version 104)."""
    head = _header_fields(variant)
    lines = [
        "Incident Identifier: %s" % incident,
        "CrashReporter Key:   5c1e2a3b4d5f60718293a4b5c6d7e8f901234567",
        "Hardware Model:      %s" % head["model"],
        "Process:             %s [%d]" % (PROCESS, PID),
        "Path:                %s" % variant.app.path,
        "Identifier:          %s" % BUNDLE_ID,
        "Version:             1.2 (12)",
        "Code Type:           %s" % head["code"],
        "Role:                Foreground",
        "Parent Process:      launchd [1]",
        "Coalition:           %s [811]" % BUNDLE_ID,
        "",
        "Date/Time:           2026-11-02 09:41:07.5120 +0100",
        "Launch Time:         2026-11-02 09:41:06.9981 +0100",
        "OS Version:          %s" % head["os"],
        "Release Type:        User",
        "Report Version:      104",
        "",
    ]
    lines += ["Exception Type:  EXC_CRASH (SIGABRT)",
              "Exception Codes: 0x0000000000000000, 0x0000000000000000",
              "Exception Note:  EXC_CORPSE_NOTIFY",
              "Termination Reason: SIGNAL 6 Abort trap: 6",
              "Terminating Process: %s [%d]" % (PROCESS, PID), "",
              "Triggered by Thread:  0", ""]
    if exception is not None:
        lines.append("Last Exception Backtrace:")
        if exception_style == "parenthesized":
            lines.append("(" + " ".join("%#x" % f.get("signed", f["address"]) for f in exception) + ")")
        else:
            lines += [_frame_line(i, f) for i, f in enumerate(exception)]
        lines.append("")
    lines += ["Thread 0 name:   Dispatch queue: com.apple.main-thread", "Thread 0 Crashed:"]
    lines += [_frame_line(i, f) for i, f in enumerate(crashed)]
    lines += ["", "Thread 1:"]
    lines += [_frame_line(i, f) for i, f in enumerate(second)]
    lines += [""]
    pc, lr = crashed[0]["address"], crashed[1]["address"]
    if variant.simulator:
        lines += ["Thread 0 crashed with X86 Thread State (64-bit):",
                  "  rax: 0x0000000000000000  rbx: 0x0000000000000004  rcx: 0x000000000000000f  rdx: 0x0000000000000010",
                  "  rdi: 0x0000000000000004  rsi: 0x00000000cc9e2d51  rbp: 0x00007ff7b8a3f0d0  rsp: 0x00007ff7b8a3f0c0",
                  "  rip: %#018x  rfl: 0x0000000000000246  cr2: 0x0000000000000000" % pc, ""]
    else:
        lines += ["Thread 0 crashed with ARM Thread State (64-bit):",
                  "    x0: 0x0000000000000004   x1: 0x00000000cc9e2d51   x2: 0x0000000000000010   x3: 0x0000000000000000",
                  "    fp: 0x000000016d43b0b0   lr: %#018x" % lr,
                  "    sp: 0x000000016d43b090   pc: %#018x cpsr: 0x60001000" % pc,
                  "   far: 0x0000000000000000   esr: 0x56000080  Address size fault", ""]
    lines.append("Binary Images:")
    for name, load, size, arch, uuid, image_path in _images(variant, app_uuid):
        lines.append("%#18x - %#18x %s %s  <%s> %s" % (load, load + size - 1, name, arch,
                                                        uuid.replace("-", "").lower(), image_path))
    lines += ["", "EOF", ""]
    with open(path, "w") as handle:
        handle.write("\n".join(lines))


def _ips_frames(frames, images):
    index = {name: i for i, (name, *_rest) in enumerate(images)}
    out = []
    for frame in frames:
        entry = {"imageOffset": frame["address"] - frame["load"]}
        if "symbol" in frame:
            entry["symbol"] = frame["symbol"]
            entry["symbolLocation"] = frame["symbolOffset"]
        entry["imageIndex"] = index[frame["image"]]
        out.append(entry)
    return out


def write_ips(path, variant, incident, crashed, second, exception, app_uuid, arm64e):
    """Writes a JSON crash report (bug_type 309, two documents)."""
    head = _header_fields(variant)
    images = _images(variant, app_uuid)
    meta = {"app_name": PROCESS, "timestamp": "2026-11-02 09:41:07.00 +0100", "app_version": "1.2",
            "slice_uuid": app_uuid.lower(), "build_version": "12", "platform": 7 if variant.simulator else 2,
            "bundleID": BUNDLE_ID, "share_with_app_devs": 1, "is_first_party": 0, "bug_type": "309",
            "os_version": head["os"], "incident_id": incident, "name": PROCESS}
    pc, lr = crashed[0]["address"], crashed[1]["address"]
    if variant.simulator:
        state = {"flavor": "x86_THREAD_STATE", "rip": {"value": pc, "matchesCrashFrame": 1},
                 "rbp": {"value": 140701929697488}, "rsp": {"value": 140701929697472},
                 "rax": {"value": 0}, "rbx": {"value": 4}, "cr2": {"value": 0}}
    else:
        state = {"flavor": "ARM_THREAD_STATE64", "x": [{"value": 4}, {"value": 3435015505}, {"value": 16}],
                 "lr": {"value": (lr | 0x002A000000000000) if arm64e else lr},
                 "fp": {"value": 6128119984}, "sp": {"value": 6128119952},
                 "pc": {"value": pc, "matchesCrashFrame": 1}, "cpsr": {"value": 1610616832},
                 "esr": {"value": 1442840704, "description": " Address size fault"},
                 "far": {"value": 0}}
    leb = _ips_frames(exception, images)
    for entry, frame in zip(leb, exception):
        if "signed" in frame:
            entry["imageOffset"] = frame["signed"] - frame["load"]
    body = {
        "uptime": 41000, "procLaunch": "2026-11-02 09:41:06.9981 +0100", "procRole": "Foreground",
        "version": 2, "userID": 501, "deployVersion": 210, "modelCode": head["model"],
        "procStartAbsTime": 981270041533, "coalitionID": 811,
        "osVersion": {"isEmbedded": not variant.simulator, "train": "iPhone OS 15.5",
                      "releaseType": "User", "build": "19F77"},
        "captureTime": "2026-11-02 09:41:07.5120 +0100", "incident": incident, "bug_type": "309",
        "pid": PID, "procExitAbsTime": 981282377912,
        "cpuType": "ARM-64E" if arm64e else head["cpu"], "procName": PROCESS, "procPath": variant.app.path,
        "bundleInfo": {"CFBundleShortVersionString": "1.2", "CFBundleVersion": "12",
                       "CFBundleIdentifier": BUNDLE_ID},
        "parentProc": "launchd", "parentPid": 1, "coalitionName": BUNDLE_ID,
        "crashReporterKey": "5c1e2a3b4d5f60718293a4b5c6d7e8f901234567", "isCorpse": 1,
        "exception": {"codes": "0x0000000000000000, 0x0000000000000000", "rawCodes": [0, 0],
                      "type": "EXC_CRASH", "signal": "SIGABRT"},
        "termination": {"flags": 0, "code": 6, "namespace": "SIGNAL", "indicator": "Abort trap: 6",
                        "byProc": PROCESS, "byPid": PID},
        "faultingThread": 0,
        "threads": [
            {"triggered": True, "id": 318204, "threadState": state, "queue": "com.apple.main-thread",
             "frames": _ips_frames(crashed, images)},
            {"id": 318211, "frames": _ips_frames(second, images)},
        ],
        "usedImages": [{"source": "P", "arch": arch, "base": load, "size": size, "uuid": uuid.lower(),
                        "path": image_path, "name": name}
                       for name, load, size, arch, uuid, image_path in images],
        "sharedCache": {"base": 7125286912, "size": 2569486336, "uuid": "d3bf9328-5873-39b5-86eb-dda04c31f0d3"},
        "legacyInfo": {"threadTriggered": {"queue": "com.apple.main-thread"}},
        "lastExceptionBacktrace": leb,
    }
    with open(path, "w") as handle:
        handle.write(json.dumps(meta, separators=(",", ":")) + "\n")
        handle.write(json.dumps(body, indent=2) + "\n")


def write_expected(path, crashed, second, exception, app_uuid):
    """Writes the expected answers for every app/framework frame of a report."""
    rows = ["# section\tframe\timage\tuuid\tarch\taddress\tkind\tlookup_address\tllvm-symbolizer-14 "
            "(function (file:line:column), innermost first, ' | ' between inline levels)"]
    sections = [("thread0", crashed), ("thread1", second)] + ([("lastException", exception)] if exception else [])
    for section, frames in sections:
        for index, frame in enumerate(frames):
            if "imageObj" not in frame:
                continue
            image = frame["imageObj"]
            lookup = frame["vmaddr"] - 1 if frame["return"] else frame["vmaddr"]
            uuid = app_uuid if image.name == PROCESS else image.uuid
            if uuid != image.uuid:
                answer = "(no dSYM with this UUID)"
            else:
                levels = symbolize(image, lookup)
                if not levels or levels[-1][2] == 0:
                    sys.exit("make_reports.py: llvm-symbolizer-14 has no line for %#x in %s" % (lookup, image.dsym))
                answer = " | ".join("%s (%s:%d:%d)" % level for level in levels)
            rows.append("\t".join([section, str(index), image.name, uuid, image.arch,
                                   "%#x" % frame.get("signed", frame["address"]),
                                   "return" if frame["return"] else "pc", "%#x" % lookup, answer]))
    with open(path, "w") as handle:
        handle.write("\n".join(rows) + "\n")
