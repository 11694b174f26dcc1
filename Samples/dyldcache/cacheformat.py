"""cacheformat.py -- the dyld shared cache format facts that make_cache.py writes, in one place.

Taken from dyld's open-source `dyld_cache_format.h` (dyld-832 through dyld-1042; the field list is
the one DyldExtractor 2.2.2's `dyld_structs.py` also carries) and `mach-o/loader.h` / `nlist.h`.
Every integer is little-endian. Offsets are byte offsets into `struct dyld_cache_header`.

Layout eras (the header grows; a reader learns which fields exist from `mappingOffset`, because the
first `dyld_cache_mapping_info` follows the header directly, so a field exists when its offset is
below `mappingOffset`):

| era | header size (= mappingOffset) | images table | local symbols | subcaches |
| --- | --- | --- | --- | --- |
| iOS 13-14, one file | 0x138 (through otherTrieSize) | imagesOffsetOld/CountOld at 0x18/0x1c | main file, localSymbolsOffset at 0x48; 32-bit entries whose dylibOffset is the FILE offset of the image's mach_header | none |
| iOS 15 split | 0x1c8 (through imagesCount) | imagesOffset/Count at 0x1c0/0x1c4; the old pair is 0 | `.symbols` file whose header uuid is the main header's symbolFileUUID (0x190); 64-bit entries whose dylibOffset is the image's VM offset from sharedRegionStart | v1 entries (24 bytes) at subCacheArrayOffset 0x188, files named `.1`, `.2`... (1-based index) |
| iOS 16+ split | 0x200 (through dynamicDataMaxSize) | as iOS 15 | as iOS 15 | v2 entries (56 bytes) carrying their file extension (`.01`, `.02`...) |

Facts used:
- `magic[16]`: "dyld_v1" then the arch right-aligned in 16 bytes: "dyld_v1   arm64", "dyld_v1  arm64e",
  "dyld_v1  x86_64".
- `dyld_cache_mapping_info` (32 bytes): address u64, size u64, fileOffset u64, maxProt u32, initProt u32.
  Each file (main, every subcache) has its own header and mappings; fileOffset is in that file.
- `dyld_cache_mapping_and_slide_info` (56 bytes, mappingWithSlideOffset/Count at 0x138/0x13c from
  iOS 14): address, size, fileOffset, slideInfoFileOffset, slideInfoFileSize, flags u64; maxProt,
  initProt u32.
- `dyld_cache_image_info` (32 bytes): address u64 (unslid mach_header), modTime u64, inode u64,
  pathFileOffset u32 (into the main file), pad u32.
- `dyld_cache_image_text_info` (32 bytes, imagesTextOffset/Count u64 at 0x88/0x90): uuid[16],
  loadAddress u64, textSegmentSize u32, pathOffset u32.
- `dyld_cache_local_symbols_info` (24 bytes at localSymbolsOffset): nlistOffset, nlistCount,
  stringsOffset, stringsSize, entriesOffset, entriesCount, all u32 and relative to the info itself.
- `dyld_cache_local_symbols_entry` (12 bytes): dylibOffset u32, nlistStartIndex u32, nlistCount u32;
  `dyld_cache_local_symbols_entry_64` (16 bytes): dylibOffset u64, nlistStartIndex u32, nlistCount u32.
- `dyld_subcache_entry_v1` (24 bytes): uuid[16], cacheVMOffset u64 (from the main cache's base);
  `dyld_subcache_entry` (56 bytes): uuid[16], cacheVMOffset u64, fileSuffix char[32].
- uuid (0x58), cacheType u64 (0x68), platform u32 (0xd8), sharedRegionStart u64 (0xe0),
  sharedRegionSize u64 (0xe8), osVersion u32 (0x16c, iOS 15+: major<<16 | minor<<8 | patch),
  cacheSubType u32 (0x1c8).
- Inside the cache every image keeps its own load commands: a segment's vmaddr is its unslid cache
  address and its fileoff is an offset in the file (main or subcache) that holds it; the link-edit
  offsets (symoff, stroff, indirectsymoff, LC_FUNCTION_STARTS dataoff, the export trie) are offsets
  in the file that holds the image's `__LINKEDIT`, which may be another subcache. An image's own
  symbol table keeps only its exported and undefined symbols; its locals live in the local symbols
  info above (a device's own cache often has none at all).
"""

import struct

HEADER_OLD = 0x138  # iOS 13-14: through otherTrieSize
HEADER_IOS15 = 0x1C8  # through imagesCount
HEADER_IOS16 = 0x200  # through dynamicDataMaxSize

# struct dyld_cache_header field offsets
OFF = {
    "magic": 0x00,
    "mappingOffset": 0x10,
    "mappingCount": 0x14,
    "imagesOffsetOld": 0x18,
    "imagesCountOld": 0x1C,
    "dyldBaseAddress": 0x20,
    "localSymbolsOffset": 0x48,
    "localSymbolsSize": 0x50,
    "uuid": 0x58,
    "cacheType": 0x68,
    "imagesTextOffset": 0x88,
    "imagesTextCount": 0x90,
    "platform": 0xD8,
    "formatVersion": 0xDC,
    "sharedRegionStart": 0xE0,
    "sharedRegionSize": 0xE8,
    "mappingWithSlideOffset": 0x138,
    "mappingWithSlideCount": 0x13C,
    "osVersion": 0x16C,
    "subCacheArrayOffset": 0x188,
    "subCacheArrayCount": 0x18C,
    "symbolFileUUID": 0x190,
    "imagesOffset": 0x1C0,
    "imagesCount": 0x1C4,
    "cacheSubType": 0x1C8,
}

# field -> struct format
FMT = {
    "magic": "16s", "uuid": "16s", "symbolFileUUID": "16s",
    "dyldBaseAddress": "<Q", "localSymbolsOffset": "<Q", "localSymbolsSize": "<Q", "cacheType": "<Q",
    "imagesTextOffset": "<Q", "imagesTextCount": "<Q", "sharedRegionStart": "<Q", "sharedRegionSize": "<Q",
}

MAPPING_INFO_SIZE = 32
MAPPING_AND_SLIDE_INFO_SIZE = 56
IMAGE_INFO_SIZE = 32
IMAGE_TEXT_INFO_SIZE = 32
LOCAL_SYMBOLS_INFO_SIZE = 24
LOCAL_SYMBOLS_ENTRY_SIZE = 12
LOCAL_SYMBOLS_ENTRY_64_SIZE = 16
SUBCACHE_ENTRY_V1_SIZE = 24
SUBCACHE_ENTRY_SIZE = 56

VM_PROT_READ, VM_PROT_WRITE, VM_PROT_EXECUTE = 1, 2, 4
PLATFORM_IOS = 2

MAGIC = {"arm64": b"dyld_v1   arm64", "arm64e": b"dyld_v1  arm64e", "x86_64": b"dyld_v1  x86_64"}
SHARED_REGION_START = {"arm64": 0x180000000, "arm64e": 0x180000000, "x86_64": 0x7FF800000000}

# mach-o/loader.h, nlist.h
MH_MAGIC_64 = 0xFEEDFACF
LC_SEGMENT_64 = 0x19
LC_SYMTAB = 0x2
LC_DYSYMTAB = 0xB
LC_UUID = 0x1B
LC_CODE_SIGNATURE = 0x1D
LC_FUNCTION_STARTS = 0x26
LC_DATA_IN_CODE = 0x29
LC_DYLD_INFO = 0x22
LC_DYLD_INFO_ONLY = 0x80000022
LC_DYLD_EXPORTS_TRIE = 0x80000033
LC_DYLD_CHAINED_FIXUPS = 0x80000034
NLIST_64_SIZE = 16
N_STAB, N_TYPE, N_EXT, N_SECT = 0xE0, 0x0E, 0x01, 0x0E
INDIRECT_SYMBOL_LOCAL, INDIRECT_SYMBOL_ABS = 0x80000000, 0x40000000


def put(buf, field, value):
    """Writes one header field by its spec name."""
    fmt = FMT.get(field, "<I")
    struct.pack_into(fmt, buf, OFF[field], value)


def header_has(header_size, field):
    """A field exists in a header when it ends at or before mappingOffset (the header's size)."""
    return OFF[field] + struct.calcsize(FMT.get(field, "<I")) <= header_size
