// Containers and dumps people send in place of a crash report, named from their magic numbers so
// the refusal says what was seen and what to do: a zip or tar of reports (for `symbolicate
// batch`), gzip data (decompress it, or send it with `Content-Encoding: gzip`), a Windows
// minidump, an ELF core file, other ELF and Mach-O files (symbols, for `symbolicate import`).
// FormatSniffer.binaryRefusal asks here first.

import SymbolicateModel

enum ContainerSniffer {
    /// APPNOTE.TXT 4.3.7: the local file header signature, `PK\x03\x04`; 4.3.16: the end of
    /// central directory signature, `PK\x05\x06`, which starts an empty archive.
    static let zipLocalFileHeader: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
    static let zipEndOfCentralDirectory: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
    /// RFC 1952 2.3.1: ID1 and ID2.
    static let gzipID: [UInt8] = [0x1F, 0x8B]
    /// minidumpapiset.h: MINIDUMP_SIGNATURE, 'MDMP' as its bytes appear in the file.
    static let minidumpSignature: [UInt8] = Array("MDMP".utf8)
    /// ELF: ELFMAG, EI_DATA's offset and ELFDATA2MSB, e_type's offset and ET_CORE.
    static let elfMagic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]
    static let eiData = 5
    static let elfData2MSB: UInt8 = 2
    static let eType = 16
    static let etCore: UInt16 = 4
    /// POSIX ustar: the magic field at offset 257 ("ustar" then NUL or space).
    static let tarMagicOffset = 257
    static let tarMagic: [UInt8] = Array("ustar".utf8)
    /// <mach-o/loader.h> MH_MAGIC, MH_MAGIC_64 and <mach-o/fat.h> FAT_MAGIC as the file's first bytes.
    static let machOMagics: [[UInt8]] = [
        [0xCE, 0xFA, 0xED, 0xFE], [0xCF, 0xFA, 0xED, 0xFE], [0xFE, 0xED, 0xFA, 0xCE], [0xFE, 0xED, 0xFA, 0xCF],
        [0xCA, 0xFE, 0xBA, 0xBE],
    ]

    /// The refusal for a container or dump, or nil for anything else.
    static func refusal(_ bytes: [UInt8]) -> SymbolicateError? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        if starts(zipLocalFileHeader) || starts(zipEndOfCentralDirectory) {
            return notAReport(
                "a zip archive: use `symbolicate batch` for a zip of reports (symbols go to `symbolicate import`"
                    + " or POST /v1/symbols)")
        }
        if starts(gzipID) {
            return notAReport(
                "gzip data: decompress it first (`gzip -dc FILE | symbolicate`), or send it to the server"
                    + " with `Content-Encoding: gzip`")
        }
        if starts(minidumpSignature) {
            return notAReport("a Windows minidump (MDMP): minidumps are not read, only Apple crash reports")
        }
        if starts(elfMagic) {
            if isCore(bytes) {
                return notAReport(
                    "an ELF core file: a core dump holds no crash report; get a backtrace with gdb or lldb")
            }
            return notAReport("an ELF file: symbols go to `symbolicate import` or POST /v1/symbols")
        }
        if starts(tarMagic, at: tarMagicOffset) {
            return notAReport("a tar archive: use `symbolicate batch` for an archive of reports")
        }
        if machOMagics.contains(where: { starts($0) }) {
            return notAReport("a Mach-O file: symbols go to `symbolicate import` or POST /v1/symbols")
        }
        return nil
    }

    /// e_type is ET_CORE, read in the byte order EI_DATA gives.
    static func isCore(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= eType + 2 else { return false }
        let (a, b) = (UInt16(bytes[eType]), UInt16(bytes[eType + 1]))
        let type = bytes[eiData] == elfData2MSB ? a << 8 | b : b << 8 | a
        return type == etCore
    }

    static func notAReport(_ what: String) -> SymbolicateError {
        SymbolicateError(.unsupported, "not a crash report: \(what)")
    }
}
