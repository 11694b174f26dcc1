"""cacheimage.py -- turns one Mach-O dylib into the pieces a dyld shared cache holds for it.

A cache keeps each image's __TEXT and data segments together (here: slid as one block, so the
export trie's image-relative offsets, the function starts and the rebase/bind opcodes stay valid),
and moves its __LINKEDIT into the cache's shared link-edit region, possibly in another file. The
image's own symbol table keeps only exported and undefined symbols; its local symbols go to the
cache's local symbols info. Debug-map stabs are dropped, as the cache builder does.
"""

import struct

from cacheformat import (
    INDIRECT_SYMBOL_ABS, INDIRECT_SYMBOL_LOCAL, LC_CODE_SIGNATURE, LC_DATA_IN_CODE, LC_DYLD_CHAINED_FIXUPS,
    LC_DYLD_EXPORTS_TRIE, LC_DYLD_INFO, LC_DYLD_INFO_ONLY, LC_DYSYMTAB, LC_FUNCTION_STARTS, LC_SEGMENT_64,
    LC_SYMTAB, LC_UUID, MH_MAGIC_64, N_EXT, N_STAB, N_TYPE, N_SECT, NLIST_64_SIZE,
)

LINKEDIT_DATA_COMMANDS = (LC_FUNCTION_STARTS, LC_DATA_IN_CODE, LC_DYLD_EXPORTS_TRIE, LC_DYLD_CHAINED_FIXUPS)


def _cstring(data, offset):
    end = data.index(b"\0", offset)
    return data[offset:end]


class Dylib:
    """A thin 64-bit Mach-O dylib, parsed just enough to move it into a cache."""

    def __init__(self, data, uuid_override=None):
        self.data = bytearray(data)
        magic, self.cputype, self.cpusubtype, _, self.ncmds, self.sizeofcmds = struct.unpack_from(
            "<IiiIII", data, 0)
        if magic != MH_MAGIC_64:
            raise ValueError("not a thin 64-bit Mach-O file (magic 0x%08x)" % magic)
        self.commands = []  # (cmd, offset, size)
        cursor = 32
        for _ in range(self.ncmds):
            cmd, size = struct.unpack_from("<II", data, cursor)
            self.commands.append((cmd, cursor, size))
            cursor += size
        self.segments = []  # dict per LC_SEGMENT_64
        for cmd, off, _ in self.commands:
            if cmd == LC_SEGMENT_64:
                name = data[off + 8:off + 24].rstrip(b"\0").decode()
                vmaddr, vmsize, fileoff, filesize = struct.unpack_from("<QQQQ", data, off + 24)
                nsects = struct.unpack_from("<I", data, off + 64)[0]
                self.segments.append({"name": name, "cmd": off, "vmaddr": vmaddr, "vmsize": vmsize,
                                      "fileoff": fileoff, "filesize": filesize, "nsects": nsects})
            elif cmd == LC_UUID and uuid_override is not None:
                self.data[off + 8:off + 24] = uuid_override
        self.linkedit = next(s for s in self.segments if s["name"] == "__LINKEDIT")
        self.body = [s for s in self.segments if s["name"] not in ("__LINKEDIT", "__PAGEZERO")]
        self.text = next(s for s in self.segments if s["name"] == "__TEXT")
        self.uuid = bytes(self._command_bytes(LC_UUID)[8:24])

    def _command(self, wanted):
        return next(((off, size) for cmd, off, size in self.commands if cmd in wanted), None)

    def _command_bytes(self, cmd):
        off, size = self._command((cmd,))
        return self.data[off:off + size]

    def body_size(self):
        """VM size of __TEXT through the last data segment (they are contiguous in VM and file)."""
        end = max(s["vmaddr"] + s["vmsize"] for s in self.body)
        return end - self.text["vmaddr"]

    def split_symbols(self):
        """Returns (locals, kept, index_map): nlist tuples (name, type, sect, desc, value) of local
        symbols, the symbols the image keeps (exported then undefined), and old -> new indices."""
        symoff, nsyms, stroff, _ = struct.unpack_from("<IIII", self.data, self._command((LC_SYMTAB,))[0] + 8)
        local, kept, index_map = [], [], {}
        for i in range(nsyms):
            strx, ntype, sect, desc, value = struct.unpack_from("<IBBHQ", self.data, symoff + i * NLIST_64_SIZE)
            entry = (bytes(_cstring(self.data, stroff + strx)), ntype, sect, desc, value)
            if ntype & N_STAB:
                continue
            if ntype & N_EXT:
                index_map[i] = len(kept)
                kept.append(entry)
            else:
                local.append(entry)
        return local, kept, index_map

    def place(self, body_vmaddr, body_fileoff, linkedit_vmaddr, linkedit_fileoff):
        """Rewrites the image for the cache: its body (__TEXT..data) at body_vmaddr / body_fileoff of
        the file that holds it, its __LINKEDIT at linkedit_vmaddr / linkedit_fileoff of the file that
        holds that. Returns (body bytes, linkedit bytes, local symbols with slid values)."""
        slide = body_vmaddr - self.text["vmaddr"]
        local, kept, index_map = self.split_symbols()
        blob = bytearray()
        header = self.data  # rewritten in place on a copy below
        out = bytearray(self.data[:self.body_size()])

        def relocate_blob(offset, size):
            """Copies [offset, offset+size) of the original link-edit; returns its new file offset."""
            if size == 0:
                return 0
            while len(blob) % 8:
                blob.append(0)
            new = linkedit_fileoff + len(blob)
            blob.extend(header[offset:offset + size])
            return new

        for cmd, off, _ in self.commands:
            if cmd in (LC_DYLD_INFO, LC_DYLD_INFO_ONLY):
                # rebase, bind, weak bind, lazy bind, export (offset, size) pairs. The cache builder
                # binds every symbol itself and slides the cache with its slide info, so the rebase
                # and bind opcodes do not follow the image in.
                fields = list(struct.unpack_from("<10I", header, off + 8))
                for k in range(0, 10, 2):
                    if k in (0, 2, 6):
                        fields[k] = fields[k + 1] = 0
                    fields[k] = relocate_blob(fields[k], fields[k + 1])
                struct.pack_into("<10I", out, off + 8, *fields)
            elif cmd in LINKEDIT_DATA_COMMANDS:
                dataoff, datasize = struct.unpack_from("<II", header, off + 8)
                struct.pack_into("<II", out, off + 8, relocate_blob(dataoff, datasize), datasize)
            elif cmd == LC_CODE_SIGNATURE:
                struct.pack_into("<II", out, off + 8, 0, 0)  # the cache is signed as a whole

        def slid(entry):
            name, ntype, sect, desc, value = entry
            if (ntype & N_TYPE) == N_SECT:
                value += slide
            return (name, ntype, sect, desc, value)

        kept = [slid(e) for e in kept]
        local = [slid(e) for e in local]
        strings = bytearray(b" \0")
        nlist = bytearray()
        for name, ntype, sect, desc, value in kept:
            strx = len(strings)
            strings.extend(name + b"\0")
            nlist.extend(struct.pack("<IBBHQ", strx, ntype, sect, desc, value))
        nextdef = sum(1 for e in kept if (e[1] & N_TYPE) != 0)
        dysym = self._command((LC_DYSYMTAB,))[0]
        indirect_off, nindirect = struct.unpack_from("<II", header, dysym + 56)
        indirect = bytearray()
        for i in range(nindirect):
            index = struct.unpack_from("<I", header, indirect_off + 4 * i)[0]
            if not index & (INDIRECT_SYMBOL_LOCAL | INDIRECT_SYMBOL_ABS):
                index = index_map[index]
            indirect.extend(struct.pack("<I", index))
        while len(blob) % 8:
            blob.append(0)
        symoff = linkedit_fileoff + len(blob)
        blob.extend(nlist)
        indirectsymoff = linkedit_fileoff + len(blob) if indirect else 0
        blob.extend(indirect)
        stroff = linkedit_fileoff + len(blob)
        blob.extend(strings)
        while len(blob) % 8:
            blob.append(0)
        struct.pack_into("<IIII", out, self._command((LC_SYMTAB,))[0] + 8, symoff, len(kept), stroff, len(strings))
        struct.pack_into("<IIIIII", out, dysym + 8, 0, 0, 0, nextdef, nextdef, len(kept) - nextdef)
        struct.pack_into("<II", out, dysym + 56, indirectsymoff, nindirect)

        for seg in self.segments:
            off = seg["cmd"]
            if seg["name"] == "__LINKEDIT":
                struct.pack_into("<QQQQ", out, off + 24, linkedit_vmaddr, len(blob), linkedit_fileoff, len(blob))
                continue
            delta_file = body_fileoff - self.text["fileoff"]
            struct.pack_into("<QQQQ", out, off + 24, seg["vmaddr"] + slide, seg["vmsize"],
                             seg["fileoff"] + delta_file if seg["filesize"] else 0, seg["filesize"])
            for k in range(seg["nsects"]):
                sect = off + 72 + 80 * k
                addr, size, offset = struct.unpack_from("<QQI", out, sect + 32)
                struct.pack_into("<QQI", out, sect + 32, addr + slide, size, offset + delta_file if offset else 0)
        return bytes(out), bytes(blob), local
