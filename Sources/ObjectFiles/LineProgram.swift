// The `.debug_line` decoder: the version 2-5 headers (DWARF 5 directory and file entry formats,
// strings in `.debug_line_str` / `.debug_str`) and the line-number state machine. We decode the
// program ourselves rather than through libdwarf's dwarf_srclines, which in the packaged version
// ends sequences at epilogue rows and numbers DWARF 5 files from the wrong base (see the notes).
// File names are joined to directories exactly as llvm-symbolizer joins them.

import SymbolicateModel

struct LineRow {
    var address: UInt64
    var file: UInt32
    var line: UInt32
    var endSequence: Bool
}

struct LineTable {
    var version: UInt16 = 0
    var directories: [String] = []
    var fileNames: [(name: String, directory: UInt64)] = []
    var rows: [LineRow] = []
    var compDir: String = ""

    /// The full path of file number `index` as the program uses it (1-based before DWARF 5,
    /// 0-based from DWARF 5), or nil when there is no such file.
    func path(ofFile index: UInt64) -> String? {
        let entry: (name: String, directory: UInt64)
        if version >= 5 {
            guard index < UInt64(fileNames.count) else { return nil }
            entry = fileNames[Int(index)]
        } else {
            guard index >= 1, index <= UInt64(fileNames.count) else { return nil }
            entry = fileNames[Int(index - 1)]
        }
        if PathParts.isAbsolute(entry.name) { return entry.name }
        var includeDir = ""
        if version >= 5 {
            if entry.directory < UInt64(directories.count) { includeDir = directories[Int(entry.directory)] }
        } else if entry.directory > 0, entry.directory <= UInt64(directories.count) {
            includeDir = directories[Int(entry.directory - 1)]
        }
        var path = ""
        if version < 5 || entry.directory != 0, !compDir.isEmpty, !PathParts.isAbsolute(includeDir) {
            path = compDir
        }
        LineTable.append(&path, includeDir)
        LineTable.append(&path, entry.name)
        return path
    }

    /// llvm::sys::path::append for POSIX paths, on bytes as llvm's: a slash followed by a
    /// combining mark is one character with it, but still a separator.
    static func append(_ path: inout String, _ component: String) {
        guard !component.isEmpty else { return }
        if path.isEmpty {
            path = component
        } else if path.hasSuffix("/") {
            path += String(decoding: component.utf8.drop { $0 == UInt8(ascii: "/") }, as: UTF8.self)
        } else if PathParts.isAbsolute(component) {
            path += component
        } else {
            path += "/" + component
        }
    }
}

enum LineProgram {
    struct Strings {
        var lineStr: ByteReader?
        var str: ByteReader?
    }

    static func parse(_ section: ByteReader, at offset: UInt64, strings: Strings, compDir: String) throws -> LineTable {
        var r = section
        try r.seek(Int(clamping: offset))
        let (unitLength, offsetSize) = try r.initialLength()
        guard unitLength <= UInt64(r.remaining) else {
            throw DecodeError("line table at \(offset) runs past its section")
        }
        var u = try r.sub(r.offset, Int(unitLength))
        var table = LineTable()
        table.compDir = compDir
        table.version = try u.u16()
        guard (2...5).contains(table.version) else {
            throw DecodeError("unsupported line table version \(table.version)")
        }
        var addressSize = 8
        if table.version >= 5 {
            addressSize = Int(try u.u8())
            _ = try u.u8()
        }
        let headerLength = try u.unsigned(size: offsetSize)
        let programStart = u.offset + Int(min(headerLength, UInt64(u.remaining)))
        let minInst = UInt64(try u.u8())
        if table.version >= 4 { _ = try u.u8() }
        _ = try u.u8()  // default_is_stmt
        let lineBase = Int64(Int8(bitPattern: try u.u8()))
        let lineRange = UInt64(try u.u8())
        let opcodeBase = try u.u8()
        guard lineRange > 0 else { throw DecodeError("line table at \(offset) has line_range 0") }
        var standardLengths: [UInt8] = [0]
        if opcodeBase > 1 { standardLengths += try u.bytes(Int(opcodeBase) - 1) }

        if table.version >= 5 {
            let dirFormats = try formats(&u)
            let dirCount = try u.uleb()
            for _ in 0..<min(dirCount, UInt64(u.remaining)) {
                let e = try entry(&u, dirFormats, offsetSize: offsetSize, strings: strings)
                table.directories.append(e.name)
            }
            let fileFormats = try formats(&u)
            let fileCount = try u.uleb()
            for _ in 0..<min(fileCount, UInt64(u.remaining)) {
                table.fileNames.append(try entry(&u, fileFormats, offsetSize: offsetSize, strings: strings))
            }
        } else {
            while true {
                let d = try u.cString()
                if d.isEmpty { break }
                table.directories.append(d)
            }
            while true {
                let name = try u.cString()
                if name.isEmpty { break }
                let dir = try u.uleb()
                _ = try u.uleb()
                _ = try u.uleb()
                table.fileNames.append((name, dir))
            }
        }

        try u.seek(programStart)
        var address: UInt64 = 0
        var file: UInt32 = 1
        var line: Int64 = 1
        var rows: [LineRow] = []
        rows.reserveCapacity(u.remaining / 2)
        func emit(_ end: Bool) {
            rows.append(LineRow(address: address, file: file, line: UInt32(clamping: max(line, 0)), endSequence: end))
        }
        // Each special opcode's advances, worked out once: the divisions by line_range (a
        // variable) are the slowest instructions of the loop, run for most rows.
        var special: [(address: UInt64, line: Int64)] = []
        special.reserveCapacity(256)
        for op in 0..<256 {
            let adjusted = UInt64(max(op - Int(opcodeBase), 0))
            special.append(((adjusted / lineRange) &* minInst, lineBase &+ Int64(adjusted % lineRange)))
        }
        while !u.isAtEnd {
            let op = try u.u8()
            if op >= opcodeBase {
                let advance = special[Int(op)]
                address &+= advance.address
                line &+= advance.line
                emit(false)
                continue
            }
            switch op {
            case DW_LNS_extended_op:
                let len = Int(clamping: try u.uleb())
                guard len > 0, len <= u.remaining else {
                    throw DecodeError("bad extended opcode length in line table at \(offset)")
                }
                let next = u.offset + len
                let sub = try u.u8()
                switch sub {
                case DW_LNE_end_sequence:
                    emit(true)
                    address = 0
                    file = 1
                    line = 1
                case DW_LNE_set_address:
                    address = try u.unsigned(size: len - 1 <= 8 ? len - 1 : addressSize)
                case DW_LNE_define_file where table.version < 5:
                    let name = try u.cString()
                    let dir = try u.uleb()
                    table.fileNames.append((name, dir))
                default:
                    break
                }
                try u.seek(next)
            case DW_LNS_copy: emit(false)
            case DW_LNS_advance_pc: address &+= try u.uleb() &* minInst
            case DW_LNS_advance_line: line &+= try u.sleb()
            case DW_LNS_set_file: file = UInt32(truncatingIfNeeded: try u.uleb())
            case DW_LNS_set_column: _ = try u.uleb()
            case DW_LNS_negate_stmt, DW_LNS_set_basic_block, DW_LNS_set_prologue_end, DW_LNS_set_epilogue_begin: break
            case DW_LNS_const_add_pc: address &+= ((255 - UInt64(opcodeBase)) / lineRange) &* minInst
            case DW_LNS_fixed_advance_pc: address &+= UInt64(try u.u16())
            case DW_LNS_set_isa: _ = try u.uleb()
            default:
                let n = Int(op) < standardLengths.count ? Int(standardLengths[Int(op)]) : 0
                for _ in 0..<n { _ = try u.uleb() }
            }
        }
        table.rows = rows
        return table
    }

    private static func formats(_ u: inout ByteReader) throws -> [(content: UInt64, form: UInt64)] {
        let count = try u.u8()
        var out: [(UInt64, UInt64)] = []
        for _ in 0..<count { out.append((try u.uleb(), try u.uleb())) }
        return out
    }

    private static func entry(
        _ u: inout ByteReader, _ formats: [(content: UInt64, form: UInt64)], offsetSize: Int, strings: Strings
    ) throws -> (name: String, directory: UInt64) {
        var name = ""
        var dir: UInt64 = 0
        for f in formats {
            // Forms past 16 bits are unknown: the same error as any other unknown form.
            switch UInt16(exactly: f.form) ?? .max {
            case DW_FORM_string:
                let s = try u.cString()
                if f.content == DW_LNCT_path { name = s }
            case DW_FORM_line_strp, DW_FORM_strp:
                let off = try u.unsigned(size: offsetSize)
                if f.content == DW_LNCT_path {
                    guard let table = f.form == UInt64(DW_FORM_line_strp) ? strings.lineStr : strings.str else {
                        throw DecodeError("line table names a string section that is missing")
                    }
                    name = try table.string(at: Int(clamping: off))
                }
            case DW_FORM_udata, DW_FORM_sdata:
                let v = try u.uleb()
                if f.content == DW_LNCT_directory_index { dir = v }
            case DW_FORM_data1:
                let v = UInt64(try u.u8())
                if f.content == DW_LNCT_directory_index { dir = v }
            case DW_FORM_data2:
                let v = UInt64(try u.u16())
                if f.content == DW_LNCT_directory_index { dir = v }
            case DW_FORM_data4:
                let v = UInt64(try u.u32())
                if f.content == DW_LNCT_directory_index { dir = v }
            case DW_FORM_data8: _ = try u.u64()
            case DW_FORM_data16: try u.skip(16)
            case DW_FORM_block: try u.skip(Int(clamping: try u.uleb()))
            case DW_FORM_block1: try u.skip(Int(try u.u8()))
            case DW_FORM_strx, DW_FORM_strx1, DW_FORM_strx2, DW_FORM_strx3, DW_FORM_strx4:
                throw DecodeError("line table uses string-index forms, which are not supported")
            default:
                throw DecodeError("line table uses unknown form 0x\(String(f.form, radix: 16))")
            }
        }
        return (name, dir)
    }
}
