// Hand-made inputs for the decoders, where the right answer follows from the DWARF and ELF
// specifications: LEB128 edge cases, DWARF's initial length (32- and 64-bit), a DWARF 5 line
// program (file register starting at 1 with 0-based file numbers, an epilogue row inside a
// sequence, a huge line advance), DWARF 4 path joining, and ELF headers whose offsets point
// past the end of the address space.

import SymbolicateModel
import Testing

@testable import ObjectFiles

struct DecoderTests {
    func reader(_ bytes: [UInt8]) -> ByteReader { ByteStorage(bytes: bytes).reader() }

    @Test func leb128() throws {
        var r = reader([0xe5, 0x8e, 0x26, 0x7f, 0x80, 0x7f] + [UInt8](repeating: 0xff, count: 9) + [0x7f] + [0x80])
        #expect(try r.uleb() == 624_485)
        #expect(try r.sleb() == -1)
        #expect(try r.sleb() == -128)
        #expect(try r.sleb() == -1)  // ten bytes: sign bits past 64 are dropped, no trap
        #expect(throws: DecodeError.self) { try r.uleb() }  // continuation bit, then the end
    }

    @Test func readsPastTheEndThrow() throws {
        var r = reader([1, 2, 3])
        #expect(try r.u16() == 0x0201)
        #expect(throws: DecodeError.self) { try r.u32() }
        #expect(throws: DecodeError.self) { try r.sub(2, 5) }
        #expect(throws: DecodeError.self) { try r.sub(UInt64.max, 1) }
        var s = reader(Array("abc".utf8))
        #expect(throws: DecodeError.self) { try s.cString() }
        var t = reader(Array("ab\0cd\0e".utf8))
        #expect(try t.cStringLength() == 2)
        #expect(try t.cString() == "cd")
        #expect(t.offset == 6)
        #expect(throws: DecodeError.self) { try t.cStringLength() }
    }

    /// DWARF 5, 7.4: a 32-bit initial length, or the escape and a 64-bit one with 8-byte offsets.
    @Test func initialLength() throws {
        var r = reader([0x10, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x20, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1])
        #expect(try r.initialLength() == (16, 4))
        #expect(try r.initialLength() == (32, 8))
        #expect(r.offset == 16)
        #expect(throws: DecodeError.self) { try r.initialLength() }
    }

    /// A DWARF 5 line table: directories ["/src", "inc"], files [a.c (dir 0), b.h (dir 1)].
    func dwarf5LineTable(program: [UInt8]) -> [UInt8] {
        // min_inst, max_ops, default_is_stmt, line_base -5, line_range, opcode_base
        var header: [UInt8] = [1, 1, 1, 0xfb, 14, 13]
        header += [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]  // standard opcode lengths
        header += [1, 0x01, 0x08]  // directory format: path as string
        header += [2] + Array("/src".utf8) + [0] + Array("inc".utf8) + [0]
        header += [2, 0x01, 0x08, 0x02, 0x0b]  // file format: path string, directory index data1
        header += [2] + Array("a.c".utf8) + [0, 0] + Array("b.h".utf8) + [0, 1]
        var unit: [UInt8] = [5, 0, 8, 0]  // version 5, address size 8, segment selector size 0
        unit += withUnsafeBytes(of: UInt32(header.count).littleEndian, Array.init)
        unit += header + program
        return withUnsafeBytes(of: UInt32(unit.count).littleEndian, Array.init) + unit
    }

    @Test func dwarf5LineProgram() throws {
        var program: [UInt8] = [0, 9, 2] + withUnsafeBytes(of: UInt64(0x1000).littleEndian, Array.init)
        program += [0x01]  // copy: row at 0x1000, file 1 (b.h: the register starts at 1), line 1
        program += [0x04, 0x00, 0x05 + 13 + 14 * 4]  // set_file 0; special: +4 address, line +0
        program += [0x0b, 0x03, 0x0a, 0x01]  // epilogue_begin, advance_line 10, copy
        program += [0x03] + [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]  // huge advance_line
        program += [0x02, 0x08, 0x01]  // advance_pc 8, copy
        program += [0x02, 0x04, 0x00, 0x01, 0x01]  // advance_pc 4, end_sequence
        let table = try LineProgram.parse(
            reader(dwarf5LineTable(program: program)), at: 0, strings: .init(), compDir: "/build")
        #expect(table.rows.map(\.address) == [0x1000, 0x1004, 0x1004, 0x100c, 0x1010])
        #expect(table.rows.map(\.file) == [1, 0, 0, 0, 0])
        #expect(table.rows.prefix(3).map(\.line) == [1, 1, 11])
        #expect(table.rows.map(\.endSequence) == [false, false, false, false, true])
        #expect(table.path(ofFile: 0) == "/src/a.c")
        #expect(table.path(ofFile: 1) == "/build/inc/b.h")
        #expect(table.path(ofFile: 2) == nil)
    }

    @Test func dwarf4PathsJoinTheCompilationDirectory() {
        var t = LineTable()
        t.version = 4
        t.compDir = "/work"
        t.directories = ["lib", "/usr/include"]
        t.fileNames = [("main.c", 0), ("util.h", 1), ("stdio.h", 2), ("/abs/x.c", 1)]
        #expect(t.path(ofFile: 0) == nil)
        #expect(t.path(ofFile: 1) == "/work/main.c")
        #expect(t.path(ofFile: 2) == "/work/lib/util.h")
        #expect(t.path(ofFile: 3) == "/usr/include/stdio.h")
        #expect(t.path(ofFile: 4) == "/abs/x.c")
        #expect(t.path(ofFile: 5) == nil)
    }

    /// llvm joins paths on bytes: a slash followed by a combining mark (one character with it)
    /// still makes a path absolute.
    @Test func pathsJoinOnSlashBytes() {
        var t = LineTable()
        t.version = 4
        t.compDir = "/work/"
        t.directories = ["/\u{301}inc", "lib/"]
        t.fileNames = [("/\u{301}abs.c", 0), ("x.h", 1), ("\u{301}y.h", 2), ("\u{301}z.c", 0)]
        #expect(t.path(ofFile: 1) == "/\u{301}abs.c")
        #expect(t.path(ofFile: 2) == "/\u{301}inc/x.h")
        #expect(t.path(ofFile: 3) == "/work/lib/\u{301}y.h")
        #expect(t.path(ofFile: 4) == "/work/\u{301}z.c")
    }

    @Test func elfHeadersPointingNowhere() {
        var header: [UInt8] = [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 8)
        header += [2, 0, 62, 0, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 8)  // type, machine, version, entry
        header += [UInt8](repeating: 0xff, count: 16)  // phoff, shoff: the end of the address space
        header += [0, 0, 0, 0, 64, 0, 56, 0, 3, 0, 64, 0, 5, 0, 4, 0]
        do {
            _ = try ObjectFile.slices(bytes: header, path: "far.elf")
            Issue.record("accepted an impossible ELF header")
        } catch let e as SymbolicateError {
            #expect(e.code == .badInput)
            #expect(e.path == "far.elf")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
