#!/usr/bin/env python3
"""swift_generate.py -- builds the synthetic Swift program the benchmarks import, as a Linux ELF.

Most of the apps whose crashes the store symbolicates are written in Swift, whose DWARF looks
unlike C++'s: long mangled linkage names, many type DIEs (structs, classes, enums, protocols and
their witness tables), generic specializations, closures, async functions split into partial
functions, and thunks. This writes, from a fixed seed, modules (one source file each) of
structs, classes, protocols with extensions, generic types and functions, closures passed to
map/filter/reduce, and async functions awaiting each other, then compiles them with the
toolchain's `swiftc -g -O` into one executable, SynthSwift.

The iOS SDK is not on this machine, so the program is built for Linux: an ELF whose .debug_*
sections hold the DWARF (version 4, which `swiftc -g` writes on Linux). Against the C++ app's
Mach-O dSYM this variant therefore changes the DWARF version, the container and the language at
once. About 40 MB of DWARF by default: 850 modules, about 16 minutes on 2 cores (`--modules N`
to try other sizes).

Output in <cache>/swift/ (SynthSwift, app.tsv), made only when missing: a stamp records the
parameters. Usage: swift_generate.py [--cache DIR] [--modules N] [--jobs N]
"""

import argparse
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261204
MODULES = 850  # about 40 MB of DWARF (about 48 KB a module)
GROUP = 50  # module entries awaited by one function of Main.swift
TYPES = 6  # structs, classes and generic types per module
FORMAT = 2  # bumped when the generated sources or flags change
DEBUG_DIR = "/home/build/SynthSwift/src"


def die(message):
    sys.exit("swift_generate.py: " + message)


def module_source(m, modules, rng):
    """One module: a protocol with an extension, conforming structs and classes, a generic box,
    closures over collections and an async chain; an entry point main calls."""
    out = ["// synthetic Swift module %d" % m, ""]
    out += ["protocol Shape%d {" % m,
            "    var area: Int { get }",
            "    mutating func grow(by amount: Int) -> Int",
            "}", "",
            "extension Shape%d {" % m,
            "    @inline(never) func describe(_ tag: Int) -> Int {",
            "        return area &* %d &+ tag" % rng.randrange(3, 999),
            "    }", "}", ""]
    out += ["struct Box%d<Value> {" % m,
            "    var items: [Value] = []",
            "    @inline(never) mutating func push(_ value: Value) -> Int {",
            "        items.append(value)",
            "        return items.count",
            "    }",
            "    func fold<R>(_ initial: R, _ step: (R, Value) -> R) -> R {",
            "        return items.reduce(initial, step)",
            "    }", "}", ""]
    for t in range(TYPES):
        a, b = rng.randrange(1, 1 << 20), rng.randrange(1, 31)
        if t % 2 == 0:
            out += ["struct Point%d_%d: Shape%d {" % (m, t, m),
                    "    var x: Int", "    var y: Int", "    var tags: [String]",
                    "    var area: Int { return x &* y &+ tags.count }",
                    "    @inline(never) mutating func grow(by amount: Int) -> Int {",
                    "        x = x &+ amount ^ %d" % a,
                    "        y = (y << %d) | (y >> %d)" % (b % 8 + 1, 64 - b % 8 - 1),
                    "        return area",
                    "    }", "}", ""]
        else:
            out += ["final class Node%d_%d: Shape%d {" % (m, t, m),
                    "    var value: Int", "    var children: [Node%d_%d] = []" % (m, t),
                    "    var weights: [Double]",
                    "    init(value: Int) {",
                    "        self.value = value",
                    "        self.weights = (0..<(value & 7)).map { Double($0) * %d.5 }" % (a % 100),
                    "    }",
                    "    var area: Int { return children.reduce(value) { $0 &+ $1.value } }",
                    "    @inline(never) func grow(by amount: Int) -> Int {",
                    "        if children.count < 3 { children.append(Node%d_%d(value: value &+ amount)) }" % (m, t),
                    "        value = value &* %d &+ amount" % (b | 1),
                    "        return area &+ Int(weights.reduce(0, +))",
                    "    }", "}", ""]
    out += ["enum Event%d {" % m,
            "    case tap(Int)", "    case move(x: Int, y: Int)", "    case text(String)", "",
            "    @inline(never) func weight() -> Int {",
            "        switch self {",
            "        case .tap(let n): return n &* %d" % rng.randrange(2, 99),
            "        case .move(let x, let y): return x &+ y",
            "        case .text(let s): return s.utf8.count",
            "        }", "    }", "}", ""]
    out += ["@inline(never) func measure%d<S: Shape%d>(_ shapes: inout [S], by amount: Int) -> Int {" % (m, m),
            "    var total = 0",
            "    for i in shapes.indices {",
            "        total = total &+ shapes[i].grow(by: amount &+ i)",
            "        total = total &+ shapes[i].describe(i)",
            "    }",
            "    return total", "}", ""]
    out += ["@inline(never) func pipeline%d(_ input: [Int]) -> Int {" % m,
            "    let scale = input.count | 1",
            "    let mapped = input.map { $0 &* scale &+ %d }" % rng.randrange(1000),
            "    let kept = mapped.filter { $0 %% %d != 0 }" % rng.randrange(2, 9),
            "    var box = Box%d<Int>()" % m,
            "    for value in kept { _ = box.push(value) }",
            "    let events: [Event%d] = kept.prefix(4).map { .move(x: $0, y: scale) } + [.tap(scale), .text(\"m%d\")]"
            % (m, m),
            "    return box.fold(0) { $0 &+ $1 } &+ events.reduce(0) { $0 &+ $1.weight() }", "}", ""]
    callees = sorted({rng.randrange(modules) for _ in range(2)} - {m})
    out += ["@inline(never) func load%d(_ seed: Int) async -> Int {" % m,
            "    var points = [Point%d_0(x: seed, y: %d, tags: [\"a\", \"b\"]), Point%d_0(x: 1, y: seed, tags: [])]"
            % (m, rng.randrange(99), m),
            "    var others = [Point%d_2(x: seed &+ 1, y: %d, tags: [\"c\"])]" % (m, rng.randrange(99)),
            "    let node = Node%d_1(value: seed)" % m,
            "    var nodes = [node, Node%d_3(value: seed &+ 2)] as [any Shape%d]" % (m, m),
            "    var sum = measure%d(&points, by: seed) &+ measure%d(&others, by: seed)" % (m, m),
            "    for i in nodes.indices { sum = sum &+ nodes[i].grow(by: i) }",
            "    await Task.yield()",
            "    return sum &+ pipeline%d(Array(0..<(seed & 15)))" % m, "}", ""]
    out += ["@inline(never) func entry%d(_ seed: Int) async -> Int {" % m,
            "    var r = await load%d(seed)" % m]
    for c in callees:
        out.append("    if seed < 2 { r = r &+ (await entry%d(seed &+ 1)) }" % c)
    out += ["    return r", "}", ""]
    return "\n".join(out)


def main_source(modules):
    """The entry point, awaiting every module's entry in groups of GROUP: one async function
    awaiting a thousand calls is split by the optimizer into a thousand partial functions at once,
    which takes the compiler more memory than a build machine has."""
    out = ["// synthetic Swift program: calls every module's async entry", ""]
    groups = [list(range(m, min(m + GROUP, modules))) for m in range(0, modules, GROUP)]
    for g, members in enumerate(groups):
        out += ["@inline(never) func group%d(_ seed: Int) async -> Int {" % g, "    var r = seed"]
        out += ["    r = r &+ (await entry%d(r & 7))" % m for m in members]
        out += ["    return r", "}", ""]
    out += ["@main struct SynthSwift {",
            "    static func main() async {",
            "        var r = 0"]
    out += ["        r = await group%d(r)" % g for g in range(len(groups))]
    out += ["        print(r)", "    }", "}", ""]
    return "\n".join(out)


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as handle:
            if handle.read() == text:
                return
    with open(path, "w") as handle:
        handle.write(text)


def build(variant_dir, modules, jobs):
    src = os.path.join(variant_dir, "src")
    os.makedirs(src, exist_ok=True)
    rng = random.Random(SEED)
    names = []
    for m in range(modules):
        name = "Module%04d.swift" % m
        write_if_changed(os.path.join(src, name), module_source(m, modules, rng))
        names.append(name)
    write_if_changed(os.path.join(src, "Main.swift"), main_source(modules))
    names.append("Main.swift")
    swiftc = os.environ.get("SWIFTC") or shutil.which("swiftc")
    if not swiftc:
        die("no swiftc found; put the Swift toolchain on PATH or set SWIFTC")
    binary = os.path.join(variant_dir, "SynthSwift")
    print("swift_generate.py: compiling %d modules (swiftc -g -O, %d jobs)" % (len(names), jobs), file=sys.stderr)
    done = subprocess.run([swiftc, "-g", "-O", "-parse-as-library", "-j%d" % jobs, "-module-name", "SynthSwift",
                           "-debug-prefix-map", "%s=%s" % (src, DEBUG_DIR), "-o", binary + ".tmp"] + names,
                          cwd=src, capture_output=True, text=True)
    if done.returncode != 0:
        die("swiftc failed:\n" + done.stderr[-4000:])
    os.replace(binary + ".tmp", binary)
    return binary


def main():
    parser = argparse.ArgumentParser(description="Build the synthetic Swift program the benchmarks import.")
    parser.add_argument("--cache", default=os.path.join(os.path.dirname(HERE), ".cache"))
    parser.add_argument("--modules", type=int, default=MODULES, help="module count (about 48 KB of DWARF each)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.modules < 1:
        parser.error("--modules takes a count of at least 1")
    variant_dir = os.path.join(os.path.abspath(args.cache), "swift")
    stamp = os.path.join(variant_dir, "stamp")
    key = "seed %d modules %d types %d format %d" % (SEED, args.modules, TYPES, FORMAT)
    if not (os.path.exists(stamp) and open(stamp).read().strip() == key):
        os.makedirs(variant_dir, exist_ok=True)
        binary = build(variant_dir, args.modules, args.jobs)
        with open(os.path.join(variant_dir, "app.tsv"), "w") as handle:
            handle.write("binary\t%s\ndsym\t%s\n" % (binary, binary))
        with open(stamp, "w") as handle:
            handle.write(key + "\n")
    print(variant_dir)


if __name__ == "__main__":
    main()
