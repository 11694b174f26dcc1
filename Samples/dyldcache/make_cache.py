#!/usr/bin/env python3
"""make_cache.py -- builds small dyld shared caches from Samples' own Mach-O dylibs.

Real caches cannot be fetched here, so tests build theirs from `Samples/build/*/HoldKit` with this
script, following dyld's `dyld_cache_format.h` (the facts used are written down in
cacheformat.py). Layouts:

  old     one file, iOS 13-14 header (0x138), images at imagesOffsetOld, local symbols in the main
          file with 32-bit entries keyed by file offset.
  ios15   split: main file, `.1` (second image's text and data), `.2` (every image's __LINKEDIT),
          `.symbols` (local symbols, 64-bit entries keyed by VM offset); v1 subcache entries.
  ios16   as ios15 with v2 subcache entries naming `.01` and `.02`.

`--no-locals` leaves the local symbols out (a cache copied from a device or a Mac has none), so only
the images' exported names remain. `--copies N` repeats every image N times, each with its own
LC_UUID and path, for memory measurements. Output is deterministic: the same inputs give the same
bytes. Usage:

  Samples/dyldcache/make_cache.py --layout ios16 --arch arm64e --out DIR [--name NAME] [DYLIB...]

Without DYLIB arguments the two arm64 HoldKit builds (DWARF 4 and 5 variants, two LC_UUIDs) are
used for arm64/arm64e, the simulator HoldKit for x86_64. Prints one line per image: path, UUID,
unslid __TEXT address and size.
"""

import argparse
import hashlib
import os
import struct
import sys
import uuid as uuidlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cacheformat import (  # noqa: E402
    HEADER_IOS15, HEADER_IOS16, HEADER_OLD, IMAGE_INFO_SIZE, IMAGE_TEXT_INFO_SIZE, LOCAL_SYMBOLS_INFO_SIZE,
    MAGIC, MAPPING_AND_SLIDE_INFO_SIZE, MAPPING_INFO_SIZE, NLIST_64_SIZE, PLATFORM_IOS, SHARED_REGION_START,
    SUBCACHE_ENTRY_SIZE, SUBCACHE_ENTRY_V1_SIZE, VM_PROT_EXECUTE, VM_PROT_READ, VM_PROT_WRITE, header_has, put,
)
from cacheimage import Dylib  # noqa: E402

SAMPLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = "HoldApp.app/Frameworks/HoldKit.framework/HoldKit"
DEFAULT_INPUTS = {
    "arm64": ["build/ios-arm64-dwarf4/" + KIT, "build/ios-arm64-dwarf5/" + KIT],
    "x86_64": ["build/sim-x86_64-dwarf4/" + KIT],
}
PAGE = 0x4000
HEADER_SIZE = {"old": HEADER_OLD, "ios15": HEADER_IOS15, "ios16": HEADER_IOS16}
OS_VERSION = {"old": (14, 8, 0), "ios15": (15, 5, 0), "ios16": (17, 5, 0)}


def align(value, to=PAGE):
    return (value + to - 1) // to * to


def stable_uuid(*parts):
    return hashlib.md5(b"|".join(parts)).digest()


class CacheFile:
    """One file of the cache (the main file or a subcache): its header, mappings and contents."""

    def __init__(self, header_size, magic, uuid, vm_start):
        self.header_size = header_size
        self.data = bytearray(header_size)
        self.magic, self.uuid, self.vm_start = magic, uuid, vm_start
        self.mappings = []  # (address, size, fileOffset, prot)

    def append(self, payload, alignment=8):
        while len(self.data) % alignment:
            self.data.append(0)
        offset = len(self.data)
        self.data.extend(payload)
        return offset

    def reserve(self, size, alignment=8):
        return self.append(bytes(size), alignment)

    def finish_header(self, fields):
        buf = self.data
        put(buf, "magic", self.magic.ljust(16, b"\0"))
        mapping_off = self.header_size
        put(buf, "mappingOffset", mapping_off)
        put(buf, "mappingCount", len(self.mappings))
        for i, (address, size, offset, prot) in enumerate(self.mappings):
            struct.pack_into("<QQQII", buf, fields["_mappings_at"] + i * MAPPING_INFO_SIZE,
                             address, size, offset, prot, prot)
        if header_has(self.header_size, "mappingWithSlideCount") and self.mappings:
            put(buf, "mappingWithSlideOffset", fields["_slide_mappings_at"])
            put(buf, "mappingWithSlideCount", len(self.mappings))
            for i, (address, size, offset, prot) in enumerate(self.mappings):
                struct.pack_into("<QQQQQQII", buf, fields["_slide_mappings_at"] + i * MAPPING_AND_SLIDE_INFO_SIZE,
                                 address, size, offset, 0, 0, 0, prot, prot)
        put(buf, "uuid", self.uuid)
        for name, value in fields.items():
            if not name.startswith("_") and header_has(self.header_size, name):
                put(buf, name, value)

    def reserve_mapping_tables(self, count):
        """Mapping tables follow the header directly (the rule readers use to date a header)."""
        assert len(self.data) == self.header_size
        fields = {"_mappings_at": self.reserve(count * MAPPING_INFO_SIZE)}
        if header_has(self.header_size, "mappingWithSlideCount"):
            fields["_slide_mappings_at"] = self.reserve(count * MAPPING_AND_SLIDE_INFO_SIZE)
        return fields


def local_symbols_blob(images, entry_64, base):
    """dyld_cache_local_symbols_info + nlist + strings + entries, one entry per image."""
    nlist, strings, entries = bytearray(), bytearray(b" \0"), bytearray()
    for image in images:
        start = len(nlist) // NLIST_64_SIZE
        for name, ntype, sect, desc, value in image["locals"]:
            strx = len(strings)
            strings.extend(name + b"\0")
            nlist.extend(struct.pack("<IBBHQ", strx, ntype, sect, desc, value))
        count = len(nlist) // NLIST_64_SIZE - start
        if entry_64:
            entries.extend(struct.pack("<QII", image["vmaddr"] - base, start, count))
        else:
            entries.extend(struct.pack("<III", image["main_fileoff"], start, count))
    while len(strings) % 8:
        strings.append(0)
    nlist_off = LOCAL_SYMBOLS_INFO_SIZE
    strings_off = nlist_off + len(nlist)
    entries_off = strings_off + len(strings)
    info = struct.pack("<6I", nlist_off, len(nlist) // NLIST_64_SIZE, strings_off, len(strings),
                       entries_off, len(images))
    return info + nlist + strings + entries


def build(layout, arch, inputs, out_dir, name, with_locals=True, copies=1):
    header_size = HEADER_SIZE[layout]
    magic = MAGIC[arch]
    base = SHARED_REGION_START[arch]
    label = ("%s|%s|%s|%d|%d" % (layout, arch, name, with_locals, copies)).encode()
    dylibs = []
    for copy in range(copies):
        for index, path in enumerate(inputs):
            with open(path, "rb") as f:
                data = f.read()
            override = None if copy == 0 else stable_uuid(label, b"copy", bytes([copy % 256, copy // 256]), data)
            stem = os.path.basename(path) if len(inputs) == 1 else "%s%d" % (os.path.basename(path), index + 1)
            if copy:
                stem += "_%d" % copy
            cache_path = "/System/Library/PrivateFrameworks/%s.framework/%s" % (stem, stem)
            dylibs.append((cache_path, Dylib(data, override)))
    split = layout != "old"
    main = CacheFile(header_size, magic, stable_uuid(label, b"main"), base)
    files = [main]
    # Split: the main file holds the first image, `.1` the rest, `.2` every __LINKEDIT.
    body_file = [main] * len(dylibs)
    if split:
        sub1 = CacheFile(header_size, magic, stable_uuid(label, b"sub1"), 0)
        sub2 = CacheFile(header_size, magic, stable_uuid(label, b"sub2"), 0)
        files += [sub1, sub2]
        body_file = [main if i == 0 else sub1 for i in range(len(dylibs))]

    # Main file: header, mapping tables, image tables, paths, subcache entries.
    main_fields = main.reserve_mapping_tables(2 if not split else 1)
    images_at = main.reserve(len(dylibs) * IMAGE_INFO_SIZE)
    text_at = main.reserve(len(dylibs) * IMAGE_TEXT_INFO_SIZE)
    path_offsets = [main.append(p.encode() + b"\0", 1) for p, _ in dylibs]
    subcache_at = 0
    if split:
        entry_size = SUBCACHE_ENTRY_V1_SIZE if layout == "ios15" else SUBCACHE_ENTRY_SIZE
        subcache_at = main.reserve(2 * entry_size)
        sub_fields = [f.reserve_mapping_tables(1) for f in (sub1, sub2)]

    # Bodies (__TEXT and data) page by page, in VM order across the files.
    vm = base
    images = []
    bodies = []
    for i, (path, dylib) in enumerate(dylibs):
        holder = body_file[i]
        if holder is not main and holder.vm_start == 0:
            vm = align(vm)
            holder.vm_start = vm
            holder.data.extend(bytes(align(len(holder.data)) - len(holder.data)))
            holder.body_start = len(holder.data)
        if holder is main and not hasattr(main, "body_start"):
            main.data.extend(bytes(align(len(main.data)) - len(main.data)))
            main.body_start = 0  # the main file's first mapping starts with the header
            vm = base + len(main.data)
        fileoff = holder.reserve(dylib.body_size(), PAGE)
        vmaddr = holder.vm_start + fileoff - holder.body_start if holder is not main else base + fileoff
        bodies.append((holder, fileoff, vmaddr))
        vm = vmaddr + dylib.body_size()
    linkedit_file = sub2 if split else main
    if split:
        vm = align(vm)
        sub2.vm_start = vm
        sub2.data.extend(bytes(align(len(sub2.data)) - len(sub2.data)))
        sub2.body_start = len(sub2.data)
    else:
        main.data.extend(bytes(align(len(main.data)) - len(main.data)))
        main.linkedit_start = len(main.data)
    for i, (path, dylib) in enumerate(dylibs):
        holder, fileoff, vmaddr = bodies[i]
        # Each image's link-edit goes at the current end of the file that holds link-edit.
        le_off = len(linkedit_file.data)
        le_vm = (linkedit_file.vm_start + le_off - linkedit_file.body_start) if split else base + le_off
        body, linkedit, local = dylib.place(vmaddr, fileoff, le_vm, le_off)
        holder.data[fileoff:fileoff + len(body)] = body
        linkedit_file.append(linkedit, 8)
        images.append({"path": path, "vmaddr": vmaddr, "main_fileoff": fileoff, "locals": local,
                       "uuid": dylib.uuid, "text_size": dylib.text["vmsize"], "dylib": dylib})
    linkedit_file.data.extend(bytes(align(len(linkedit_file.data)) - len(linkedit_file.data)))

    # Mappings.
    if split:
        main.mappings = [(base, len(main.data), 0, VM_PROT_READ | VM_PROT_EXECUTE)]
        sub1.mappings = [(sub1.vm_start, len(sub1.data) - sub1.body_start, sub1.body_start,
                          VM_PROT_READ | VM_PROT_EXECUTE)]
        sub2.mappings = [(sub2.vm_start, len(sub2.data) - sub2.body_start, sub2.body_start, VM_PROT_READ)]
    else:
        main.mappings = [(base, main.linkedit_start, 0, VM_PROT_READ | VM_PROT_EXECUTE | VM_PROT_WRITE),
                         (base + main.linkedit_start, len(main.data) - main.linkedit_start, main.linkedit_start,
                          VM_PROT_READ)]

    # Local symbols: in the main file (old) or in a `.symbols` file (split).
    entry_64 = header_has(header_size, "symbolFileUUID")
    fields = dict(main_fields)
    symbols = None
    if with_locals:
        blob = local_symbols_blob(images, entry_64, base)
        if split:
            symbols = CacheFile(header_size, magic, stable_uuid(label, b"symbols"), 0)
            sym_fields = symbols.reserve_mapping_tables(0)
            at = symbols.append(blob)
            sym_fields.update({"localSymbolsOffset": at, "localSymbolsSize": len(blob)})
            symbols.finish_header(sym_fields)
            fields["symbolFileUUID"] = symbols.uuid
        else:
            at = main.append(blob)
            fields.update({"localSymbolsOffset": at, "localSymbolsSize": len(blob)})

    # Image tables.
    for i, image in enumerate(images):
        struct.pack_into("<QQQII", main.data, images_at + i * IMAGE_INFO_SIZE, image["vmaddr"], 0, 0,
                         path_offsets[i], 0)
        struct.pack_into("<16sQII", main.data, text_at + i * IMAGE_TEXT_INFO_SIZE, image["uuid"], image["vmaddr"],
                         image["text_size"], path_offsets[i])
    images_key = "imagesOffset" if header_has(header_size, "imagesCount") else "imagesOffsetOld"
    fields[images_key] = images_at
    fields[images_key.replace("Offset", "Count")] = len(images)
    major, minor, patch = OS_VERSION[layout]
    end = max(f.vm_start + sum(m[1] for m in f.mappings) for f in files)
    fields.update({
        "imagesTextOffset": text_at, "imagesTextCount": len(images), "platform": PLATFORM_IOS,
        "cacheType": 1, "sharedRegionStart": base, "sharedRegionSize": end - base,
        "osVersion": major << 16 | minor << 8 | patch,
    })
    if split:
        fields.update({"subCacheArrayOffset": subcache_at, "subCacheArrayCount": 2, "cacheSubType": 1})
        for k, sub in enumerate((sub1, sub2)):
            if layout == "ios15":
                entry = struct.pack("<16sQ", sub.uuid, sub.vm_start - base)
            else:
                entry = struct.pack("<16sQ32s", sub.uuid, sub.vm_start - base, (".%02d" % (k + 1)).encode())
            main.data[subcache_at + k * len(entry):subcache_at + (k + 1) * len(entry)] = entry
        for sub, sf in zip((sub1, sub2), sub_fields):
            sub.finish_header(dict(sf, platform=PLATFORM_IOS, cacheType=1, sharedRegionStart=base,
                                   sharedRegionSize=end - base))
    main.finish_header(fields)

    os.makedirs(out_dir, exist_ok=True)
    outputs = [(name, main)]
    if split:
        suffixes = (".1", ".2") if layout == "ios15" else (".01", ".02")
        outputs += [(name + suffixes[0], sub1), (name + suffixes[1], sub2)]
        if symbols is not None:
            outputs.append((name + ".symbols", symbols))
    for filename, f in outputs:
        with open(os.path.join(out_dir, filename), "wb") as out:
            out.write(f.data)
    return images


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", choices=sorted(HEADER_SIZE), required=True)
    parser.add_argument("--arch", choices=sorted(MAGIC), default="arm64e")
    parser.add_argument("--out", required=True, help="folder to write the cache files into")
    parser.add_argument("--name", help="main file name (default dyld_shared_cache_ARCH)")
    parser.add_argument("--no-locals", action="store_true", help="leave out the local symbols")
    parser.add_argument("--copies", type=int, default=1, help="repeat every image N times")
    parser.add_argument("dylibs", nargs="*")
    args = parser.parse_args()
    inputs = args.dylibs or [os.path.join(SAMPLES, p) for p in DEFAULT_INPUTS["x86_64" if args.arch == "x86_64"
                                                                               else "arm64"]]
    name = args.name or "dyld_shared_cache_" + args.arch
    images = build(args.layout, args.arch, inputs, args.out, name, not args.no_locals, max(1, args.copies))
    for image in images:
        print("%s\t%s\t0x%x\t0x%x" % (image["path"], str(uuidlib.UUID(bytes=image["uuid"])).upper(),
                                      image["vmaddr"], image["text_size"]))


if __name__ == "__main__":
    main()
