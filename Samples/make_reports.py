#!/usr/bin/env python3
"""make_reports.py -- writes the sample crash reports for the HoldApp/HoldKit builds.

For every variant built by generate.sh it writes an Apple text report (.crash, Report Version 104)
and a JSON report (.ips, bug_type 309) describing one incident, plus two special reports: an
arm64e report whose addresses carry pointer-authentication bits, and a report whose app UUID
differs from the build by one digit. Frame addresses are real: the crashing frame is an
instruction inside an inlined region of Store.commit(count:) in HoldKit, the other frames are
return addresses (the instruction after a call, found by disassembling the binaries with
llvm-objdump-14), and the image UUIDs and __TEXT extents are read from the Mach-O load commands.
Next to the reports, expected/<report>.tsv lists for every app and framework frame the address,
the address to look up in the dSYM, and llvm-symbolizer-14's answer.
Usage: make_reports.py --build Samples/build --reports Samples/reports
"""

import argparse
import hashlib
import os
import re
import sys
import tempfile
import uuid as uuidlib

from llvmtools import symbolize, tool
from machoinfo import read_slices
from report_writers import SYSTEM, write_crash, write_expected, write_ips

APP_LOAD = 0x102BC4000
KIT_LOAD = 0x1030A0000
PAC_BITS = 0x001E000000000000
APP_PATH = "/private/var/containers/Bundle/Application/5E1B1C8A-3F0D-4C52-9A8E-2D7B61C0A4F3/HoldApp.app"
SIM_PATH = ("/Users/build/Library/Developer/CoreSimulator/Devices/0B7A3E51-63C4-4B6D-8E0A-93F2D4C1B7E6"
            "/data/Containers/Bundle/Application/5E1B1C8A-3F0D-4C52-9A8E-2D7B61C0A4F3/HoldApp.app")

# Crashed thread, innermost first. ("kit"|"app", function, how): how is "deepest" (the first
# instruction with the most inline levels), "pc" (the function's third instruction),
# "ret:NAME" (return address of the first call to NAME) or "ret#N" (of the Nth call).
# ("sys", image, (symbol, offset)) is a system frame.
CRASHED = [
    ("kit", "_$s7HoldKit5StoreC6commit5countSiSi_tF", "deepest"),
    ("kit", "_hk_session_flush", "ret:_$s7HoldKit5StoreC6commit5countSiSi_tF"),
    ("kit", "__ZN7holdkit5codec7SessionIjE3runEj", "ret:_hk_session_flush"),
    ("kit", "_hk_codec_run", "ret:__ZN7holdkit5codec7SessionIjE3runEj"),
    ("app", "_$s7HoldApp14ViewControllerC11viewDidLoadyyFyycfU_", "ret:_hk_codec_run"),
    ("app", "_$s7HoldApp14ViewControllerC11viewDidLoadyyF",
     "ret:_$s7HoldApp14ViewControllerC11viewDidLoadyyFyycfU_"),
    ("app", "-[HAViewController loadView]", "ret:_$s7HoldApp14ViewControllerC11viewDidLoadyyF"),
    ("sys", "UIKitCore", ("-[UIViewController loadViewIfRequired]", 1048)),
    ("sys", "UIKitCore", ("UIApplicationMain", 364)),
    ("app", "_main", "ret:_UIApplicationMain"),
    ("sys", "libdyld.dylib", ("start", 4)),
]
SECOND = [
    ("kit", "_hk_store_get", "pc"),
    ("app", "_ha_worker_drain", "ret:_hk_store_get"),
    ("app", "-[HAWorker run:]", "ret:_ha_worker_drain"),
    ("sys", "libsystem_kernel.dylib", ("__pthread_start", 40)),
]
EXCEPTION = [
    ("sys", "libsystem_kernel.dylib", ("__pthread_kill", 8)),
    ("sys", "UIKitCore", ("-[UIApplication _handleNonLaunchSpecificActions:]", 124)),
    ("kit", "-[HKRecord save]", "ret:_hk_store_put"),
    ("app", "-[HAAppDelegate makeRecord:]", "ret#2"),
    ("app", "-[HAAppDelegate application:didFinishLaunchingWithOptions:]", "ret#1"),
    ("sys", "UIKitCore", ("UIApplicationMain", 364)),
    ("app", "_main", "ret:_UIApplicationMain"),
    ("sys", "libdyld.dylib", ("start", 4)),
]


class Image:
    """One Mach-O slice of the app or the framework: UUID, __TEXT extent, code, and its dSYM."""

    def __init__(self, name, binary, dsym, arch, load, device_path):
        slices = read_slices(binary)
        if arch not in slices:
            sys.exit("make_reports.py: %s has no %s slice" % (binary, arch))
        info = slices[arch]
        self.name, self.binary, self.dsym, self.arch, self.load = name, binary, dsym, arch, load
        self.uuid, self.text_vmaddr, self.text_size = info["uuid"], info["text_vmaddr"], info["text_size"]
        self.path = device_path
        self.functions = self._disassemble()
        self.stubs = self._stubs()

    def _disassemble(self):
        with tempfile.TemporaryDirectory() as scratch:
            thin = os.path.join(scratch, "thin")
            target = self.binary
            if _is_fat(self.binary):
                tool("llvm-lipo-14", self.binary, "-thin", self.arch, "-output", thin)
                target = thin
            text = tool("llvm-objdump-14", "-d", "--no-show-raw-insn", target)
        functions, current = {}, None
        for line in text.splitlines():
            head = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
            if head:
                current = functions.setdefault(head.group(2), [])
                continue
            insn = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
            if insn and current is not None:
                current.append((int(insn.group(1), 16), insn.group(2), insn.group(3)))
        return functions

    def _stubs(self):
        names = {}
        text = tool("llvm-objdump-14", "--macho", "--indirect-symbols", "--arch=" + self.arch, self.binary)
        for line in text.splitlines():
            entry = re.match(r"^0x([0-9a-f]+)\s+\d+\s+(\S+)$", line)
            if entry:
                names[int(entry.group(1), 16)] = entry.group(2)
        return names

    def call_target(self, operands):
        found = re.search(r"0x([0-9a-f]+)", operands)
        if not found:
            return None
        target = int(found.group(1), 16)
        if target in self.stubs:
            return self.stubs[target]
        for name, insns in self.functions.items():
            if insns and insns[0][0] == target:
                return name
        return None

    def address(self, function, how):
        """Returns (vmaddr in the file, is_return) for one frame spec."""
        insns = self.functions.get(function)
        if not insns:
            sys.exit("make_reports.py: no function %s in %s" % (function, self.binary))
        if how == "pc":
            return insns[min(2, len(insns) - 1)][0], False
        if how == "deepest":
            best, depth = insns[0][0], 0
            for addr, _, _ in insns:
                levels = len(symbolize(self, addr))
                if levels > depth:
                    best, depth = addr, levels
            return best, False
        calls = [i for i, (_, mnemonic, _) in enumerate(insns) if mnemonic in ("bl", "blr", "call", "callq")]
        if how.startswith("ret#"):
            chosen = calls[int(how[4:]) - 1]
        else:
            wanted = how[4:]
            matches = [i for i in calls if self.call_target(insns[i][2]) == wanted]
            if not matches:
                sys.exit("make_reports.py: %s never calls %s in %s" % (function, wanted, self.binary))
            chosen = matches[0]
        return insns[chosen + 1][0], True

    def runtime(self, vmaddr):
        return self.load + (vmaddr - self.text_vmaddr)


def _is_fat(path):
    with open(path, "rb") as handle:
        return handle.read(4) in (b"\xca\xfe\xba\xbe", b"\xca\xfe\xba\xbf")


class Variant:
    """The images of one build variant as the reports see them."""

    def __init__(self, build, name, arch, kit_arch, label=None):
        root = os.path.join(build, name)
        self.name, self.arch, self.label = name, arch, label or name
        self.simulator = arch == "x86_64"
        base = SIM_PATH if self.simulator else APP_PATH
        self.app = Image("HoldApp", os.path.join(root, "HoldApp.app/HoldApp"),
                         os.path.join(root, "HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"),
                         arch, APP_LOAD, base + "/HoldApp")
        self.kit = Image("HoldKit", os.path.join(root, "HoldApp.app/Frameworks/HoldKit.framework/HoldKit"),
                         os.path.join(root, "HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"),
                         kit_arch, KIT_LOAD, base + "/Frameworks/HoldKit.framework/HoldKit")

    def frames(self, spec):
        """Resolves a frame spec list into dicts with image, address and what a lookup needs."""
        out = []
        for kind, where, how in spec:
            if kind == "sys":
                arm_load, x86_load, _, _, _ = SYSTEM[where]
                load = x86_load if self.simulator else arm_load
                offset = 0x1A2B4 + 0x40 * len(out) + how[1]
                out.append({"image": where, "address": load + offset, "load": load, "symbol": how[0],
                            "symbolOffset": how[1]})
                continue
            image = self.app if kind == "app" else self.kit
            vmaddr, is_return = image.address(where, how)
            out.append({"image": image.name, "address": image.runtime(vmaddr), "load": image.load,
                        "vmaddr": vmaddr, "return": is_return, "imageObj": image})
        return out


def main():
    parser = argparse.ArgumentParser(description="Write the HoldApp sample crash reports.")
    parser.add_argument("--build", required=True)
    parser.add_argument("--reports", required=True)
    args = parser.parse_args()

    os.makedirs(os.path.join(args.reports, "expected"), exist_ok=True)
    for old in os.listdir(args.reports):
        if old.endswith((".crash", ".ips")):
            os.remove(os.path.join(args.reports, old))
    for old in os.listdir(os.path.join(args.reports, "expected")):
        os.remove(os.path.join(args.reports, "expected", old))

    variants = [
        (Variant(args.build, "ios-arm64-dwarf4", "arm64", "arm64"), "parenthesized"),
        (Variant(args.build, "ios-arm64-dwarf5", "arm64", "arm64"), "frames"),
        (Variant(args.build, "sim-x86_64-dwarf4", "x86_64", "x86_64"), None),
        (Variant(args.build, "universal-dwarf5", "arm64", "arm64"), None),
    ]
    for variant, exception_style in variants:
        incident = incident_for(variant.label)
        crashed, second = variant.frames(CRASHED), variant.frames(SECOND)
        exception = variant.frames(EXCEPTION)
        report = "HoldApp-%s" % variant.name
        write_crash(os.path.join(args.reports, report + ".crash"), variant, incident, crashed, second,
                    exception if exception_style else None, exception_style, variant.app.uuid)
        write_ips(os.path.join(args.reports, report + ".ips"), variant, incident, crashed, second,
                  exception, variant.app.uuid, arm64e=False)
        write_expected(os.path.join(args.reports, "expected", report + ".crash.tsv"), crashed, second,
                       exception if exception_style else None, variant.app.uuid)
        write_expected(os.path.join(args.reports, "expected", report + ".ips.tsv"), crashed, second,
                       exception, variant.app.uuid)

    write_images(os.path.join(args.build, "images.tsv"), args.build, [v for v, _ in variants])

    pac = Variant(args.build, "ios-arm64-dwarf5", "arm64", "arm64", label="arm64e-pac")
    crashed, second, exception = pac.frames(CRASHED), pac.frames(SECOND), pac.frames(EXCEPTION)
    for frame in exception:
        if frame["image"] == "HoldApp":
            frame["signed"] = frame["address"] | PAC_BITS
            break
    write_ips(os.path.join(args.reports, "HoldApp-arm64e-pac.ips"), pac, incident_for("arm64e-pac"),
              crashed, second, exception, pac.app.uuid, arm64e=True)
    write_expected(os.path.join(args.reports, "expected", "HoldApp-arm64e-pac.ips.tsv"), crashed, second,
                   exception, pac.app.uuid)

    bad = Variant(args.build, "ios-arm64-dwarf4", "arm64", "arm64", label="uuid-mismatch")
    wrong = mismatched_uuid(bad.app.uuid)
    crashed, second, exception = bad.frames(CRASHED), bad.frames(SECOND), bad.frames(EXCEPTION)
    write_crash(os.path.join(args.reports, "HoldApp-uuid-mismatch.crash"), bad, incident_for("uuid-mismatch"),
                crashed, second, exception, "frames", wrong)
    write_expected(os.path.join(args.reports, "expected", "HoldApp-uuid-mismatch.crash.tsv"), crashed, second,
                   exception, wrong)


def write_images(path, build, variants):
    """Writes build/images.tsv: every image slice with its UUID, __TEXT and load address in the reports."""
    rows = ["# variant\timage\tarch\tuuid\ttext_vmaddr\ttext_size\treport_load_address\tbinary\tdsym_dwarf"]
    for variant in variants:
        for image in (variant.app, variant.kit):
            for arch, info in sorted(read_slices(image.binary).items()):
                rows.append("\t".join([variant.name, image.name, arch, info["uuid"], "%#x" % info["text_vmaddr"],
                                       "%#x" % info["text_size"], "%#x" % image.load,
                                       os.path.relpath(image.binary, build), os.path.relpath(image.dsym, build)]))
    with open(path, "w") as handle:
        handle.write("\n".join(rows) + "\n")


def incident_for(label):
    """A fixed incident identifier per report, so regenerating gives the same bytes."""
    return str(uuidlib.UUID(bytes=hashlib.sha256(label.encode()).digest()[:16], version=4)).upper()


def mismatched_uuid(value):
    """The same UUID with its last hex digit changed."""
    last = value[-1]
    return value[:-1] + ("0" if last != "0" else "1")


if __name__ == "__main__":
    main()
