// DebugLink: a stripped ELF binary's way to its separate debug file. `objcopy
// --add-gnu-debuglink=app.debug app` leaves a `.gnu_debuglink` section in the binary: the debug
// file's name (NUL-terminated, padded to 4 bytes) and the CRC-32 of that file's bytes. Debuggers
// look for the file beside the binary and in a `.debug` folder beside it; a file found there is
// used only when its CRC matches and its build id is the binary's, so a debug file of another
// build with the same name never answers for this one.

internal import Compression
import SymbolicateModel

extension ELFFile {
    /// The `.gnu_debuglink` section: the debug file's name and its CRC-32; nil when there is none.
    func debugLink() throws -> (name: String, crc: UInt32)? {
        let image = try ElfImage(data, path: path)
        guard let section = image.sections.first(where: { $0.name == ".gnu_debuglink" }) else { return nil }
        var contents = try image.contents(section)
        let bytes = try contents.bytes(contents.count)
        guard let nul = bytes.firstIndex(of: 0), nul > 0 else { return nil }
        let crcOffset = (nul + 4) & ~3
        guard crcOffset + 4 <= bytes.count else { return nil }
        let b = bytes[crcOffset..<crcOffset + 4].map(UInt32.init)
        // EI_DATA (e_ident[5]): ELFDATA2MSB is 2.
        var ident = data
        let bigEndian = (try? ident.bytes(6))?.last == 2
        let crc = bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
        return (String(decoding: bytes[..<nul], as: UTF8.self), crc)
    }
}

enum DebugLink {
    /// The debug file `binary` (at `path`) links to, as slices named after the binary, when one is
    /// found beside it or in `.debug/` beside it with the link's CRC and the binary's build id;
    /// nil when the binary has DWARF of its own, no link, or no such file.
    static func slices(for binary: ObjectSlice, path: String) -> [ObjectSlice]? {
        guard binary.info.kind != .debugInfo, case .elf(let file) = binary.format,
            let link = try? file.debugLink(), !link.name.contains("/")
        else { return nil }
        let folder = PathParts.parent(path)
        for candidate in [folder + "/" + link.name, folder + "/.debug/" + link.name] where candidate != path {
            guard let storage = try? ByteStorage(path: candidate), crc32(storage.reader()) == link.crc,
                let slices = try? ObjectFile.slices(storage: storage, path: candidate),
                let debug = slices.first, slices.count == 1, debug.info.uuid == binary.info.uuid,
                debug.info.kind == .debugInfo
            else { continue }
            var info = debug.info
            info.name = binary.info.name
            return [ObjectSlice(info: info, format: debug.format)]
        }
        return nil
    }

    /// The CRC-32 of every byte of `reader`, as `.gnu_debuglink` records it.
    static func crc32(_ reader: ByteReader) -> UInt32 {
        guard let pointer = reader.pointer else { return 0 }
        return Zlib.crc32(0, UnsafeRawBufferPointer(start: pointer, count: reader.count))
    }
}
