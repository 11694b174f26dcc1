// The ELF reader: what a slice needs from an ELF file (machine, build id, the lowest executable
// PT_LOAD and the first mapping, whether it holds DWARF) and, when its table is loaded, the `.debug_*` sections and the
// `.symtab` / `.dynsym` symbols as llvm-symbolizer takes them. All reading goes through libelf
// (`ElfImage` in LibElf.swift); a handle is opened for each step and closed after it, so slices
// shared between threads never share a libelf handle (the step that inflates SHF_COMPRESSED
// sections opens its handle over a private copy of the file; zstd ones are decompressed by Zstd). The older `.zdebug_*` sections
// ("ZLIB", a big-endian size, a zlib stream) are inflated here with Zlib.

internal import Compression
import SymbolicateModel

struct ELFFile {
    let data: ByteReader
    let path: String
    let is64: Bool
    let machine: UInt16
    /// `e_type` (ET_REL for a relocatable object, ET_EXEC / ET_DYN for linked files).
    let fileType: UInt16
    let buildID: [UInt8]?
    let textAddress: UInt64
    let textSize: UInt64
    let hasDebugInfo: Bool
    /// Some debug section is SHF_COMPRESSED, so reading them takes a private copy of the file.
    let hasCompressedDebugSections: Bool

    /// Reads the headers of the ELF file in `data`; `path` names it in errors.
    init(_ data: ByteReader, path: String) throws {
        let image = try ElfImage(data, path: path)
        self.data = data
        self.path = path
        is64 = image.is64
        machine = image.machine
        fileType = image.fileType
        buildID = try image.buildID()
        // The image's base is its first mapping, not its code: addresses in a module are
        // offsets from there, and the range runs to the end of the executable segment.
        let text = try image.executableSegment()
        let base = min(try image.lowestMapping() ?? text?.address ?? 0, text?.address ?? .max)
        textAddress = text == nil ? 0 : base
        if let text, case (let end, let overflow) = text.address.addingReportingOverflow(text.size), !overflow {
            textSize = end - base
        } else {
            textSize = text?.size ?? 0
        }
        hasDebugInfo = image.sections.contains {
            ($0.name == ".debug_info" || $0.name == ".zdebug_info") && $0.size > 0 && $0.type != ElfSection.typeNobits
        }
        hasCompressedDebugSections = image.sections.contains { Self.isDebugSection($0) && $0.isCompressed }
    }

    var arch: Arch {
        switch machine {
        case EM_X86_64: return .x86_64
        case EM_AARCH64: return Arch("aarch64")
        case EM_386: return .i386
        case EM_ARM: return Arch("arm")
        default: return Arch("elf-machine-\(machine)")
        }
    }

    /// The `.debug_*` sections under their `.debug_` names, inflated when compressed.
    func debugSections() throws -> [String: ByteReader] {
        let image = try ElfImage(data, path: path, inflating: hasCompressedDebugSections)
        var out: [String: ByteReader] = [:]
        for s in image.sections where Self.isDebugSection(s) {
            let contents = try image.contents(s)
            if s.name.hasPrefix(".zdebug_") {
                out["." + s.name.dropFirst(2)] = try Self.inflateLegacy(contents)
            } else {
                out[s.name] = contents
            }
        }
        return out
    }

    private static func isDebugSection(_ s: ElfSection) -> Bool {
        s.name.hasPrefix(".debug_") || s.name.hasPrefix(".zdebug_")
    }

    /// A `.zdebug_*` section: "ZLIB", the inflated size (8 bytes, big-endian), a zlib stream.
    /// Sections without the magic are taken as they are.
    private static func inflateLegacy(_ raw: ByteReader) throws -> ByteReader {
        guard raw.count > 0 else { return raw }
        var r = raw
        guard try r.bytes(4) == Array("ZLIB".utf8) else { return raw }
        r.bigEndian = true
        let size = try r.u64()
        let compressed = try raw.sub(12, raw.count - 12)
        let bytes: [UInt8]
        do {
            bytes = try Zlib.inflate(
                UnsafeRawBufferPointer(start: compressed.pointer, count: compressed.count), expectedSize: size)
        } catch {
            throw DecodeError(error.message)
        }
        return ByteStorage(bytes: bytes).reader()
    }

    /// Function and object symbols of `.symtab` (or `.dynsym` when there is none), as
    /// llvm-symbolizer takes them: defined in a section, named, not mapping symbols (`$x`).
    /// Local symbols carry the name of the STT_FILE symbol before them.
    func symbols() throws -> [RawSymbol] {
        let image = try ElfImage(data, path: path)
        let sections = image.sections
        let table =
            sections.first { $0.type == ElfSection.typeSymtab } ?? sections.first { $0.type == ElfSection.typeDynsym }
        guard let table, Int(table.link) < sections.count else { return [] }
        var out: [RawSymbol] = []
        var fileName: String?
        for (i, symbol) in try image.symbols(in: table).enumerated() {
            let type = symbol.info & 0xf
            if type == STT_FILE {
                fileName = symbol.name
                continue
            }
            guard type == STT_NOTYPE || type == STT_OBJECT || type == STT_FUNC || type == STT_GNU_IFUNC else {
                continue
            }
            // Defined in a real section (not SHN_UNDEF, nor a reserved index such as SHN_ABS).
            let shndx = Int(symbol.sectionIndex)
            guard shndx != SHN_UNDEF, shndx < SHN_LORESERVE, shndx < sections.count, let name = symbol.name else {
                continue
            }
            if type == STT_NOTYPE, name.isEmpty || name.hasPrefix("$") { continue }
            let local = symbol.info >> 4 == STB_LOCAL
            out.append(
                RawSymbol(
                    address: symbol.value, size: symbol.size, name: name, order: i + 1,
                    isCode: sections[shndx].flags & ElfSection.flagExecutable != 0, file: local ? fileName : nil))
        }
        return out
    }
}
