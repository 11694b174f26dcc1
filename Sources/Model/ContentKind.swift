// ContentKind: what a file is, by its first bytes. One sniffer for every place that must tell an
// archive from an object file before opening it: the symbol-file finder and the store's import
// (object files and archives in folders and archives), the object-file reader (which parser),
// and the server (an upload is refused before a process is spent on it). Magic numbers carry
// the names their specifications give them: mach-o/loader.h, mach-o/fat.h, the ELF header,
// PKWARE's APPNOTE, RFC 1952, the xz and zstd formats, POSIX ustar.

// swift-format-ignore-file: AlwaysUseLowerCamelCase

public enum ContentKind: Sendable, Hashable {
    /// A zip archive (a local file header, an empty archive's end record, or a split-archive mark).
    case zip
    /// A POSIX ustar (or GNU) tar archive.
    case tar
    /// Compressed streams libarchive reads (a compressed tar, usually).
    case gzip, bzip2, xz, zstd
    /// A thin Mach-O in little-endian byte order (every Apple platform since Intel).
    case machO
    /// A thin Mach-O in big-endian byte order (PowerPC), which we do not read.
    case machOBigEndian
    /// A universal (fat) binary, with 32- or 64-bit slice offsets.
    case universal, universal64
    /// An ELF file.
    case elf

    /// Bytes a caller reads to sniff every kind (the ustar magic sits at offset 257).
    public static let prefixLength = 512

    // mach-o/loader.h and mach-o/fat.h. A thin header's magic is in the file's byte order (a
    // little-endian file reads as MH_CIGAM(_64) big-endian); a fat header is big-endian. The
    // Mach-O reader checks its headers against these too.
    public static let MH_MAGIC: UInt32 = 0xfeed_face
    public static let MH_MAGIC_64: UInt32 = 0xfeed_facf
    static let MH_CIGAM: UInt32 = 0xcefa_edfe
    static let MH_CIGAM_64: UInt32 = 0xcffa_edfe
    public static let FAT_MAGIC: UInt32 = 0xcafe_babe
    public static let FAT_MAGIC_64: UInt32 = 0xcafe_babf
    /// ELFMAG: "\u{7f}ELF".
    static let ELFMAG: UInt32 = 0x7f45_4c46
    /// APPNOTE 4.3.7 local file header, 4.3.16 end of central directory, 8.5.3 spanned archive;
    /// little-endian in the file, as APPNOTE writes them. The zip reader looks for the first two.
    public static let zipLocalFileHeaderSignature: UInt32 = 0x0403_4B50
    public static let zipEndOfCentralDirectorySignature: UInt32 = 0x0605_4B50
    static let zipSpanningSignature: UInt32 = 0x0807_4B50
    /// RFC 1952 ID1, ID2.
    static let gzipID: [UInt8] = [0x1F, 0x8B]
    /// "BZh".
    static let bzip2Magic: [UInt8] = [0x42, 0x5A, 0x68]
    /// The xz file format's Header Magic Bytes.
    static let xzHeaderMagic: [UInt8] = [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]
    /// RFC 8878 Magic_Number 0xFD2FB528, little-endian.
    static let zstdMagicNumber: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
    /// POSIX ustar: "ustar" at offset 257 of the first header block.
    static let TMAGIC: [UInt8] = Array("ustar".utf8)
    static let tarMagicOffset = 257

    /// The kind of the content that starts with `prefix`, or nil for anything else.
    public static func sniff(_ prefix: [UInt8]) -> ContentKind? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            prefix.count >= offset + magic.count && prefix[offset..<offset + magic.count].elementsEqual(magic)
        }
        if prefix.count >= 4 {
            let word = UInt32(prefix[0]) << 24 | UInt32(prefix[1]) << 16 | UInt32(prefix[2]) << 8 | UInt32(prefix[3])
            switch word.byteSwapped {
            case zipLocalFileHeaderSignature, zipEndOfCentralDirectorySignature, zipSpanningSignature:
                return .zip
            default: break
            }
            switch word {
            case MH_CIGAM, MH_CIGAM_64: return .machO
            case MH_MAGIC, MH_MAGIC_64: return .machOBigEndian
            case FAT_MAGIC: return .universal
            case FAT_MAGIC_64: return .universal64
            case ELFMAG: return .elf
            default: break
            }
        }
        if starts(gzipID) { return .gzip }
        if starts(bzip2Magic) { return .bzip2 }
        if starts(xzHeaderMagic) { return .xz }
        if starts(zstdMagicNumber) { return .zstd }
        if starts(TMAGIC, at: tarMagicOffset) { return .tar }
        return nil
    }

    /// An archive or a compressed stream, for libarchive.
    public var isArchive: Bool {
        switch self {
        case .zip, .tar, .gzip, .bzip2, .xz, .zstd: return true
        case .machO, .machOBigEndian, .universal, .universal64, .elf: return false
        }
    }

    /// A Mach-O (either byte order), universal or ELF file.
    public var isObjectFile: Bool { !isArchive }
}
