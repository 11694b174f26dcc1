// The dyld shared cache format constants DyldCache.swift reads, under the names dyld's
// `dyld_cache_format.h` gives them. The header grew over the years: a field exists when it ends
// at or before `mappingOffset`, because the first `dyld_cache_mapping_info` follows the header
// directly. Headers we know end at 0x98 (oldest) up to 0x200 (iOS 16-17); a longer header is a
// layout we have not seen and is refused by name rather than misread.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

enum DyldCacheHeader {
    static let magicPrefix = "dyld_v1"
    // Field offsets in struct dyld_cache_header.
    static let mappingOffset = 0x10
    static let mappingCount = 0x14
    static let imagesOffsetOld = 0x18
    static let imagesCountOld = 0x1c
    static let localSymbolsOffset = 0x48
    static let localSymbolsSize = 0x50
    static let uuid = 0x58
    static let imagesTextOffset = 0x88
    static let imagesTextCount = 0x90
    static let platform = 0xd8
    static let sharedRegionStart = 0xe0
    static let osVersion = 0x16c
    static let subCacheArrayOffset = 0x188
    static let subCacheArrayCount = 0x18c
    static let symbolFileUUID = 0x190
    static let imagesOffset = 0x1c0
    static let imagesCount = 0x1c4
    static let cacheSubType = 0x1c8
    /// The smallest header that has an images table and a uuid (dyld-421).
    static let smallest = 0x98
    /// The largest header this reader knows (through dynamicDataMaxSize, dyld-1042).
    static let largestKnown = 0x200
}

/// sizeof(dyld_cache_mapping_info)
let DYLD_CACHE_MAPPING_INFO_SIZE = 32
/// sizeof(dyld_cache_image_info)
let DYLD_CACHE_IMAGE_INFO_SIZE = 32
/// sizeof(dyld_cache_image_text_info)
let DYLD_CACHE_IMAGE_TEXT_INFO_SIZE = 32
/// sizeof(dyld_subcache_entry_v1): uuid, cacheVMOffset
let DYLD_SUBCACHE_ENTRY_V1_SIZE = 24
/// sizeof(dyld_subcache_entry): uuid, cacheVMOffset, fileSuffix[32]
let DYLD_SUBCACHE_ENTRY_SIZE = 56
/// sizeof(dyld_cache_local_symbols_entry): dylibOffset (a file offset), nlistStartIndex, nlistCount
let DYLD_CACHE_LOCAL_SYMBOLS_ENTRY_SIZE = 12
/// sizeof(dyld_cache_local_symbols_entry_64): dylibOffset (a VM offset), nlistStartIndex, nlistCount
let DYLD_CACHE_LOCAL_SYMBOLS_ENTRY_64_SIZE = 16

// Mach-O load commands a cache image needs beyond MachOConstants.swift (loader.h).
let LC_DYLD_INFO: UInt32 = 0x22
let LC_DYLD_INFO_ONLY: UInt32 = 0x8000_0022
let LC_FUNCTION_STARTS: UInt32 = 0x26
let LC_DYLD_EXPORTS_TRIE: UInt32 = 0x8000_0033
/// Export trie flags (loader.h).
let EXPORT_SYMBOL_FLAGS_KIND_MASK: UInt64 = 0x03
let EXPORT_SYMBOL_FLAGS_KIND_REGULAR: UInt64 = 0x00
let EXPORT_SYMBOL_FLAGS_REEXPORT: UInt64 = 0x08
let EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER: UInt64 = 0x10
