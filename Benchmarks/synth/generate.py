#!/usr/bin/env python3
"""generate.py -- builds the large synthetic iOS app the benchmarks symbolicate, and its crash report.

The app, SynthApp, is C++ generated from a fixed seed: many modules (one source file each) of
non-inlined functions that call each other across modules, and headers of `static inline`
helpers nested three deep (top -> mid -> leaf) plus small class templates, so the DWARF is full
of inlined subroutines, template instances and line rows. It is compiled with the Swift
toolchain's clang for arm64-apple-ios15.0 (-O2 -gdwarf-5, or -gdwarf-4 with `--dwarf 4`), linked with ld64.lld-14 and its dSYM
written by dsymutil-19, as Samples/generate.sh does for the small fixtures. Debug paths and
object paths are fixed, so the same tools give the same bytes and the same LC_UUID.

Next to the build it writes a 60-frame, 4-image text crash report (SynthApp, the Samples'
HoldApp and HoldKit of ios-arm64-dwarf5, and libsystem_kernel.dylib, which has no symbols) whose
frame addresses are real return addresses (the instruction after a `bl`, found with
llvm-objdump-14), plus frames.tsv listing every frame (image, dSYM, address to look up).

Outputs land in <cache>/<variant>/ and are made only when missing (a stamp records the
parameters). `--large` builds the ~200 MB-of-DWARF variant instead of the default ~40 MB one,
`--mid` one of about 100 MB (the middle of the import's memory curve). `--dwarf 4` builds the same
sources with -gdwarf-4, as clang does for older deployment targets and as most dSYMs in the field
are: range lists in .debug_ranges, location lists in .debug_loc, names as DW_FORM_strp and
version-4 line programs; its variants land in <cache>/<variant>-dwarf4/. Modules compile in
parallel (`--jobs`, one per core by default); a module's object is remade only when its source
changed.
Usage: generate.py [--cache DIR] [--large | --mid] [--dwarf 4|5] [--jobs N]
"""

import argparse
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "Samples"))
from machoinfo import read_slices  # noqa: E402

SEED = 20261130
DEBUG_DIR = "/Users/build/SynthApp/src"
# variant -> (modules, functions per module, headers)
VARIANTS = {"synth": (400, 40, 32), "synth-mid": (950, 40, 64), "synth-large": (1900, 40, 64)}
HELPERS = 6  # leaf, mid and top helpers per header
TEMPLATES = 4
# Bumped when the generated sources or build flags change, so cached builds are remade.
FORMAT = 2


def die(message):
    sys.exit("generate.py: " + message)


def run(args, cwd=None):
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        die("%s failed:\n%s" % (" ".join(args[:3]), done.stderr[-4000:]))
    return done.stdout


# ---- sources ----------------------------------------------------------------------------------

def header_source(k, rng):
    """One header: leaf, mid and top static inline helpers; each mid inlines two leaves, each top two mids."""
    out = ["// synthetic helpers, group %d" % k, "#pragma once", '#include "synth_tmpl.h"', ""]
    for j in range(HELPERS):
        a, b = rng.randrange(1, 1 << 31) | 1, rng.randrange(3, 29)
        out += ["static inline unsigned h%d_leaf%d(unsigned x, unsigned y) {" % (k, j),
                "    unsigned t = x * %uu + y;" % a,
                "    t ^= t >> %d;" % b,
                "    return t + %uu;" % rng.randrange(1 << 16),
                "}", ""]
    for j in range(HELPERS):
        l1, l2 = rng.randrange(HELPERS), rng.randrange(HELPERS)
        out += ["static inline unsigned h%d_mid%d(unsigned x, unsigned y) {" % (k, j),
                "    unsigned a = h%d_leaf%d(x, y);" % (k, l1),
                "    if (a & %du)" % (1 << rng.randrange(8)),
                "        a = synth::rotl(a, %d);" % rng.randrange(1, 31),
                "    if (__builtin_expect((a & 0xfffu) == %du, 0))" % rng.randrange(0x1000),
                "        a = synth_cold(a, y);",
                "    unsigned b = h%d_leaf%d(a, x ^ y);" % (k, l2),
                "    return a ^ (b << 1);",
                "}", ""]
    for j in range(HELPERS):
        m1, m2 = rng.randrange(HELPERS), rng.randrange(HELPERS)
        out += ["static inline unsigned h%d_top%d(unsigned x, unsigned y) {" % (k, j),
                "    unsigned r = h%d_mid%d(x, y);" % (k, m1),
                "    synth::Ring<unsigned, %d> ring;" % rng.randrange(2, 6),
                "    ring.push(r);",
                "    ring.push(x);",
                "    r += ring.fold();",
                "    return h%d_mid%d(r, y + %du);" % (k, m2, rng.randrange(1000)),
                "}", ""]
    return "\n".join(out)


TEMPLATE_HEADER = """// synthetic templates shared by every module
#pragma once
// out of line, on paths marked unlikely: the code around its calls is moved to the end of the
// function, so inlined helpers span several address ranges (range lists in the DWARF)
extern "C" __attribute__((noinline, cold)) unsigned synth_cold(unsigned x, unsigned y);
namespace synth {
template <typename T> static inline T rotl(T x, unsigned k) {
    return (T)((x << (k & 31)) | (x >> ((32 - k) & 31)));
}
template <typename T, unsigned N> struct Ring {
    T values[N] = {};
    unsigned position = 0;
    inline void push(T x) {
        values[position % N] = x;
        position++;
    }
    inline T fold() const {
        T r = 0;
        for (unsigned i = 0; i < N; ++i)
            r = r * 31 + values[i];
        return r;
    }
};
template <typename T, int K> struct Accumulator {
    T total = 0;
    __attribute__((noinline)) T step(T x) {
        total = rotl<T>(total ^ x, K) + (T)K;
        return total;
    }
};
}  // namespace synth
"""


def module_source(m, modules, functions, headers, rng):
    """One module: `functions` non-inlined functions in namespace synth::modM, and an extern "C" entry."""
    used = sorted(rng.sample(range(headers), 3))
    out = ["// synthetic module %d" % m, '#include "synth_tmpl.h"']
    out += ['#include "h%d.h"' % k for k in used]
    callees = sorted({rng.randrange(modules) for _ in range(3)} - {m})
    out += ['extern "C" unsigned synth_mod%d_entry(unsigned x);' % c for c in callees]
    out += ["", "namespace synth {", "namespace mod%d {" % m, "",
            "struct State%d {" % m, "    unsigned a, b, c;", "    unsigned history[%d];" % rng.randrange(2, 9), "};", ""]
    for i in range(functions):
        out.append("__attribute__((noinline)) unsigned fn%d(State%d *s, unsigned x) {" % (i, m))
        out.append("    unsigned r = x + %du;" % rng.randrange(1 << 20))
        for _ in range(rng.randrange(2, 4)):
            k = rng.choice(used)
            out.append("    r = h%d_top%d(r, s->%s);" % (k, rng.randrange(HELPERS), rng.choice("abc")))
            if i > 0 and rng.random() < 0.5:
                out.append("    r += fn%d(s, r ^ %du);" % (rng.randrange(i), rng.randrange(1000)))
        if rng.random() < 0.4:
            out.append("    synth::Accumulator<unsigned, %d> acc;" % rng.randrange(1, TEMPLATES * 4))
            out.append("    r ^= acc.step(r);")
        if callees and rng.random() < 0.3:
            out.append("    if (r & 7) r += synth_mod%d_entry(r);" % rng.choice(callees))
        out.append("    s->%s = r;" % rng.choice("abc"))
        out.append("    return r;")
        out.append("}")
        out.append("")
    out += ["}  // namespace mod%d" % m, "}  // namespace synth", ""]
    out += ['extern "C" unsigned synth_mod%d_entry(unsigned x) {' % m,
            "    static synth::mod%d::State%d state;" % (m, m),
            "    if (x > %du) return x;" % (1 << 30),
            "    return synth::mod%d::fn%d(&state, x);" % (m, functions - 1),
            "}", ""]
    return "\n".join(out)


def main_source(modules):
    out = ['extern "C" unsigned synth_mod%d_entry(unsigned x);' % m for m in range(modules)]
    out += ['extern "C" unsigned synth_cold(unsigned x, unsigned y) { return x * 2654435761u ^ y; }']
    out += ["", "int main(void) {", "    unsigned r = 1;"]
    out += ["    r += synth_mod%d_entry(r);" % m for m in range(modules)]
    out += ["    return (int)(r & 1);", "}", ""]
    return "\n".join(out)


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as handle:
            if handle.read() == text:
                return
    with open(path, "w") as handle:
        handle.write(text)


def write_sources(src, modules, functions, headers):
    os.makedirs(src, exist_ok=True)
    rng = random.Random(SEED)
    write_if_changed(os.path.join(src, "synth_tmpl.h"), TEMPLATE_HEADER)
    for k in range(headers):
        write_if_changed(os.path.join(src, "h%d.h" % k), header_source(k, rng))
    names = []
    for m in range(modules):
        name = "mod%04d.cpp" % m
        write_if_changed(os.path.join(src, name), module_source(m, modules, functions, headers, rng))
        names.append(name)
    write_if_changed(os.path.join(src, "main.cpp"), main_source(modules))
    return names + ["main.cpp"]


# ---- build ------------------------------------------------------------------------------------

def find_clang():
    clang = os.environ.get("CLANG") or ("/opt/swift/usr/bin/clang" if os.path.exists("/opt/swift/usr/bin/clang")
                                        else shutil.which("clang"))
    if not clang:
        die("no clang found; set CLANG to the Swift toolchain's clang")
    return clang


def build(variant_dir, modules, functions, headers, jobs, dwarf):
    src, obj = os.path.join(variant_dir, "src"), os.path.join(variant_dir, "obj")
    os.makedirs(obj, exist_ok=True)
    names = write_sources(src, modules, functions, headers)
    clang = find_clang()

    def compile_one(name):
        out = os.path.join(obj, name.replace(".cpp", ".o"))
        if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(os.path.join(src, name)):
            return out
        run([clang, "-target", "arm64-apple-ios15.0", "-x", "c++", "-std=c++17", "-fno-exceptions", "-fno-rtti",
             "-O2", "-g", "-gdwarf-%d" % dwarf, "-ffreestanding", "-fno-stack-protector", "-fno-common",
             "-fdebug-compilation-dir=" + DEBUG_DIR, "-I.", "-c", name, "-o", out + ".tmp"], cwd=src)
        os.replace(out + ".tmp", out)
        return out

    print("generate.py: compiling %d modules (%d jobs)" % (len(names), jobs), file=sys.stderr)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        objects = list(pool.map(compile_one, names))
    app_dir = os.path.join(variant_dir, "SynthApp.app")
    os.makedirs(app_dir, exist_ok=True)
    binary = os.path.join(app_dir, "SynthApp")
    env = dict(os.environ, ZERO_AR_DATE="1")
    filelist = os.path.join(obj, "objects.txt")
    with open(filelist, "w") as handle:
        handle.write("\n".join(objects) + "\n")
    print("generate.py: linking", file=sys.stderr)
    done = subprocess.run(["ld64.lld-14", "-arch", "arm64", "-platform_version", "ios", "15.0", "15.0",
                           "-execute", "-e", "_main", "-undefined", "dynamic_lookup", "-oso_prefix", variant_dir,
                           "-filelist", filelist, "-o", binary], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        die("ld64.lld-14 failed:\n" + done.stderr[-4000:])
    dsym = os.path.join(variant_dir, "SynthApp.app.dSYM")
    print("generate.py: dsymutil-19", file=sys.stderr)
    shutil.rmtree(dsym, ignore_errors=True)
    done = subprocess.run(["dsymutil-19", "--oso-prepend-path", variant_dir, "--num-threads", str(jobs),
                           binary, "-o", dsym], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        die("dsymutil-19 failed:\n" + done.stderr[-4000:])
    return binary, os.path.join(dsym, "Contents/Resources/DWARF/SynthApp")


# ---- crash report -----------------------------------------------------------------------------

def return_addresses(binary):
    """Every return address (the instruction after a `bl`) in the binary's __text, with its function."""
    text = run(["llvm-objdump-14", "-d", "--no-show-raw-insn", binary])
    found, current, previous_call = [], None, False
    for line in text.splitlines():
        head = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if head:
            current, previous_call = head.group(2), False
            continue
        insn = re.match(r"^\s*([0-9a-f]+):\s+(\S+)", line)
        if insn and current is not None:
            if previous_call:
                found.append((int(insn.group(1), 16), current))
            previous_call = insn.group(2) == "bl"
    return found


class Image:
    def __init__(self, name, binary, dsym, load, path):
        info = read_slices(binary)["arm64"]
        self.name, self.binary, self.dsym, self.load, self.path = name, binary, dsym, load, path
        self.uuid, self.vmaddr, self.size = info["uuid"], info["text_vmaddr"], info["text_size"]
        self.returns = return_addresses(binary)


SYSTEM = ("libsystem_kernel.dylib", 0x1E0AAF000, 0x36000, "A7C3E1F0-52D4-3B8E-9F61-0D4C2B7E8A15",
          "/usr/lib/system/libsystem_kernel.dylib")
APP_PATH = "/private/var/containers/Bundle/Application/7A9D2C41-0B3E-4F6A-8C15-3E9D0A7B6C22/SynthApp.app"


def write_report(variant_dir, app_binary, app_dsym):
    samples = os.path.join(REPO, "Samples/build/ios-arm64-dwarf5")
    images = [
        Image("SynthApp", app_binary, app_dsym, 0x100F2C000, APP_PATH + "/SynthApp"),
        Image("HoldApp", os.path.join(samples, "HoldApp.app/HoldApp"),
              os.path.join(samples, "HoldApp.app.dSYM/Contents/Resources/DWARF/HoldApp"), 0x10B3A8000,
              APP_PATH + "/Frameworks/HoldApp.framework/HoldApp"),
        Image("HoldKit", os.path.join(samples, "HoldApp.app/Frameworks/HoldKit.framework/HoldKit"),
              os.path.join(samples, "HoldKit.framework.dSYM/Contents/Resources/DWARF/HoldKit"), 0x10C820000,
              APP_PATH + "/Frameworks/HoldKit.framework/HoldKit"),
    ]
    rng = random.Random(SEED + 1)
    # two threads of 30 frames: 20 SynthApp, 4 HoldApp, 4 HoldKit, 2 system frames each.
    plan = ["sys"] + ["HoldKit"] * 4 + ["HoldApp"] * 4 + ["SynthApp"] * 20 + ["sys"]
    threads = []
    for _ in range(2):
        frames = []
        for index, which in enumerate(plan):
            if which == "sys":
                offset = 0x1A2B4 + 4 * rng.randrange(0x1000)
                frames.append((SYSTEM[0], SYSTEM[1] + offset, SYSTEM[1], None, None))
                continue
            image = next(i for i in images if i.name == which)
            vmaddr, _ = rng.choice(image.returns)
            lookup = vmaddr if index == 0 else vmaddr - 1
            frames.append((image.name, image.load + vmaddr - image.vmaddr, image.load, image, lookup))
        threads.append(frames)

    lines = ["Incident Identifier: 5B0F3C2A-7E41-4D8B-9A26-C1E07F53B8D4",
             "CrashReporter Key:   9d2f4a6b8c0e1f3a5b7c9d1e3f5a7b9c1d3e5f70",
             "Hardware Model:      iPhone14,2",
             "Process:             SynthApp [5120]",
             "Path:                %s/SynthApp" % APP_PATH,
             "Identifier:          com.example.SynthApp",
             "Version:             3.1 (310)",
             "Code Type:           ARM-64 (Native)",
             "Role:                Foreground",
             "Parent Process:      launchd [1]",
             "Coalition:           com.example.SynthApp [902]",
             "",
             "Date/Time:           2026-11-02 10:12:44.2210 +0100",
             "Launch Time:         2026-11-02 10:12:40.0075 +0100",
             "OS Version:          iPhone OS 15.5 (19F77)",
             "Release Type:        User",
             "Report Version:      104",
             "",
             "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)",
             "Exception Subtype: KERN_INVALID_ADDRESS at 0x0000000000000010",
             "Exception Codes: 0x0000000000000001, 0x0000000000000010",
             "Termination Reason: SIGNAL 11 Segmentation fault: 11",
             "Terminating Process: exc handler [5120]",
             "",
             "Triggered by Thread:  0",
             ""]
    for number, frames in enumerate(threads):
        lines.append("Thread %d Crashed:" % number if number == 0 else "Thread %d:" % number)
        for index, (name, address, load, _, _) in enumerate(frames):
            lines.append("%-4d%-30s\t%#18x %#x + %d" % (index, name, address, load, address - load))
        lines.append("")
    lines.append("Binary Images:")
    for image in images:
        lines.append("%#18x - %#18x %s arm64  <%s> %s" % (image.load, image.load + image.size - 1, image.name,
                                                          image.uuid.replace("-", "").lower(), image.path))
    name, load, size, uuid, path = SYSTEM
    lines.append("%#18x - %#18x %s arm64e  <%s> %s" % (load, load + size - 1, name,
                                                       uuid.replace("-", "").lower(), path))
    lines += ["", "EOF", ""]
    with open(os.path.join(variant_dir, "report.crash"), "w") as handle:
        handle.write("\n".join(lines))

    rows = ["# image\tuuid\tdsym\tlookup_address\ttext_vmaddr"]
    for frames in threads:
        for name, _, _, image, lookup in frames:
            if image is not None:
                rows.append("%s\t%s\t%s\t%#x\t%#x" % (name, image.uuid, image.dsym, lookup, image.vmaddr))
    with open(os.path.join(variant_dir, "frames.tsv"), "w") as handle:
        handle.write("\n".join(rows) + "\n")
    with open(os.path.join(variant_dir, "app.tsv"), "w") as handle:
        handle.write("uuid\t%s\ndsym\t%s\nbinary\t%s\ntext_vmaddr\t%#x\n"
                     % (images[0].uuid, app_dsym, app_binary, images[0].vmaddr))


def main():
    parser = argparse.ArgumentParser(description="Build the synthetic app the benchmarks use.")
    parser.add_argument("--cache", default=os.path.join(os.path.dirname(HERE), ".cache"))
    parser.add_argument("--large", action="store_true", help="build the ~200 MB-of-DWARF variant")
    parser.add_argument("--mid", action="store_true", help="build the ~100 MB-of-DWARF variant")
    parser.add_argument("--dwarf", type=int, choices=(4, 5), default=5, help="the DWARF version to compile with")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--modules", type=int, help="override the module count (for trying sizes)")
    args = parser.parse_args()

    variant = "synth-large" if args.large else "synth-mid" if args.mid else "synth"
    modules, functions, headers = VARIANTS[variant]
    modules = args.modules or modules
    variant_dir = os.path.join(os.path.abspath(args.cache), variant + ("-dwarf4" if args.dwarf == 4 else ""))
    stamp = os.path.join(variant_dir, "stamp")
    key = "seed %d modules %d functions %d headers %d format %d" % (SEED, modules, functions, headers, FORMAT)
    if args.dwarf != 5:
        key += " dwarf %d" % args.dwarf
    built = os.path.exists(stamp) and open(stamp).read().strip() == key
    if not built:
        os.makedirs(variant_dir, exist_ok=True)
        build(variant_dir, modules, functions, headers, args.jobs, args.dwarf)
        with open(stamp, "w") as handle:
            handle.write(key + "\n")
    report = os.path.join(variant_dir, "report.crash")
    if not built or not os.path.exists(report) or os.path.getmtime(report) < os.path.getmtime(__file__):
        binary = os.path.join(variant_dir, "SynthApp.app/SynthApp")
        write_report(variant_dir, binary, os.path.join(variant_dir, "SynthApp.app.dSYM/Contents/Resources/DWARF/SynthApp"))
    print(variant_dir)


if __name__ == "__main__":
    main()
