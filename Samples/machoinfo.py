"""machoinfo.py -- reads what the sample reports need from Mach-O files: UUID and __TEXT extent.

Thin and universal (fat) files are both handled; each slice is keyed by its architecture name
(arm64, x86_64). Only the load commands are read, with every offset checked against the file.
"""

import struct
import uuid as uuidlib

CPU_NAMES = {0x0100000C: "arm64", 0x01000007: "x86_64"}
LC_SEGMENT_64 = 0x19
LC_UUID = 0x1B


def _slice(data, offset):
    if offset + 32 > len(data):
        raise ValueError("truncated Mach-O header")
    magic, cputype, _, _, ncmds, _, _, _ = struct.unpack_from("<IiiIIIII", data, offset)
    if magic != 0xFEEDFACF:
        raise ValueError("not a 64-bit little-endian Mach-O (magic 0x%08x)" % magic)
    info = {"arch": CPU_NAMES.get(cputype & 0xFFFFFFFF, "cpu%d" % cputype)}
    cursor = offset + 32
    for _ in range(ncmds):
        if cursor + 8 > len(data):
            raise ValueError("truncated load command")
        cmd, size = struct.unpack_from("<II", data, cursor)
        if size < 8 or cursor + size > len(data):
            raise ValueError("bad load command size")
        if cmd == LC_UUID and size >= 24:
            info["uuid"] = str(uuidlib.UUID(bytes=data[cursor + 8:cursor + 24])).upper()
        elif cmd == LC_SEGMENT_64 and size >= 72:
            name = data[cursor + 8:cursor + 24].rstrip(b"\0").decode()
            vmaddr, vmsize = struct.unpack_from("<QQ", data, cursor + 24)
            if name == "__TEXT":
                info["text_vmaddr"], info["text_size"] = vmaddr, vmsize
        cursor += size
    if "uuid" not in info or "text_vmaddr" not in info:
        raise ValueError("Mach-O without LC_UUID or __TEXT")
    return info


def read_slices(path):
    """Returns {arch: {"uuid", "text_vmaddr", "text_size", "arch"}} for a thin or fat file."""
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) >= 8 and data[:4] == b"\xca\xfe\xba\xbe":
        (count,) = struct.unpack_from(">I", data, 4)
        slices = {}
        for index in range(count):
            entry = 8 + 20 * index
            if entry + 20 > len(data):
                raise ValueError("truncated fat header")
            _, _, offset, _, _ = struct.unpack_from(">iiIII", data, entry)
            info = _slice(data, offset)
            slices[info["arch"]] = info
        return slices
    info = _slice(data, 0)
    return {info["arch"]: info}
