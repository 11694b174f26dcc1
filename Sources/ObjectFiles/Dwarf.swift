// libdwarf behind one small wrapper: the second DIE reader, which tests hold our own
// (DieDecoder) to, unit by unit. The sections our own Mach-O / ELF readers found are handed
// to libdwarf through `Dwarf_Obj_Access_Interface` + `dwarf_object_init_b` (section 0 an empty
// pseudo-section), which works for DWARF 4 and 5, thin and universal files alike. Result codes
// map as: DW_DLV_OK -> value, DW_DLV_NO_ENTRY -> nil, DW_DLV_ERROR -> thrown with dwarf_errmsg.
// libdwarf is not thread-safe (it races on global buffers even with one Dwarf_Debug per thread),
// so every use goes through `DwarfSession.withSession`, which holds one process-wide lock.

internal import CDwarf
import Foundation
import SymbolicateModel

/// A DIE handle; owned by the session's caller, released with `DwarfSession.release`.
struct DwarfDie {
    fileprivate let raw: OpaquePointer
}

/// A string attribute's string: where its bytes lie (our own reader's), read only when the
/// builder uses the name, or the number of its text in the libdwarf session's `texts` (libdwarf's
/// reading). Most DIEs that name a function repeat a name seen before, and the builder knows
/// those by where they lie without reading them again. No String inside, so DieAttributes is
/// plain data, copied without retains (a DIE's attributes are copied several times as it is read).
enum DieString: Equatable {
    case text(UInt32)
    case at(DwarfStringSection, UInt64)
}

/// The sections a DIE's strings live in.
enum DwarfStringSection: UInt8 {
    /// DW_FORM_string: inline in `.debug_info`.
    case info
    case str
    case lineStr

    var name: String {
        switch self {
        case .info: return ".debug_info"
        case .str: return ".debug_str"
        case .lineStr: return ".debug_line_str"
        }
    }

    /// The string at `offset` of this section, whose bytes are `bytes` (nil: the file lacks it).
    func string(at offset: UInt64, in bytes: ByteReader?) throws -> String {
        guard let bytes, offset < UInt64(bytes.count) else {
            throw DecodeError("string offset \(offset) is past the end of \(name)")
        }
        return try bytes.string(at: Int(offset))
    }
}

/// The attributes of one DIE that the symbol-table builder needs.
struct DieAttributes {
    var lowPC: UInt64?
    var highPC: UInt64?
    var highIsOffset = false
    var ranges: (form: UInt16, value: UInt64)?
    var abstractOrigin: UInt64?
    var specification: UInt64?
    var linkageName: DieString?
    var name: DieString?
    var callFile: UInt64?
    var callLine: UInt64?
    var stmtList: UInt64?
    var compDir: DieString?
    var addrBase: UInt64?
    var rnglistsBase: UInt64?
}

struct DwarfUnit {
    /// Offset of the unit header in `.debug_info`.
    var offset: UInt64
    var format: DwarfFormat
    var die: DwarfDie
}

final class DwarfSession {
    /// libdwarf's globals race between threads: one session at a time in the process.
    private static let lock = Locked(())

    private var dbg: OpaquePointer?
    /// The strings `attributes` read, each once, which its DieStrings number.
    private(set) var texts: [String] = []
    private var textIndex = StringIndex()
    private let context: Unmanaged<SectionTable>
    private let interface: UnsafeMutablePointer<Dwarf_Obj_Access_Interface>
    private let methods: UnsafeMutablePointer<Dwarf_Obj_Access_Methods>

    /// The sections libdwarf reads, kept alive (with their C names) for the session.
    private final class SectionTable {
        var entries: [(name: UnsafeMutablePointer<CChar>?, data: ByteReader)] = []
        var pointerSize: UInt8 = 8
        deinit { for e in entries { free(e.name) } }
    }

    /// Runs `body` with a session over `sections` while holding the libdwarf lock.
    static func withSession<T>(sections: [String: ByteReader], pointerSize: Int, _ body: (DwarfSession) throws -> T)
        throws -> T
    {
        try lock.withLock { _ throws -> T in
            let session = try DwarfSession(sections: sections, pointerSize: pointerSize)
            defer { session.finish() }
            return try body(session)
        }
    }

    private init(sections: [String: ByteReader], pointerSize: Int) throws {
        let table = SectionTable()
        table.pointerSize = UInt8(pointerSize)
        let empty = ByteStorage(bytes: []).reader()
        table.entries.append((strdup(""), empty))
        for (name, data) in sections.sorted(by: { $0.key < $1.key }) {
            table.entries.append((strdup(name), data))
        }
        context = Unmanaged.passRetained(table)
        methods = .allocate(capacity: 1)
        methods.initialize(
            to: Dwarf_Obj_Access_Methods(
                get_section_info: { obj, index, out, _ in
                    guard let obj, let out else { return DW_DLV_ERROR }
                    let t = Unmanaged<SectionTable>.fromOpaque(obj).takeUnretainedValue()
                    guard Int(index) < t.entries.count else { return DW_DLV_NO_ENTRY }
                    let e = t.entries[Int(index)]
                    out.pointee = Dwarf_Obj_Access_Section(
                        addr: 0, type: index == 0 ? 0 : 1, size: Dwarf_Unsigned(e.data.count),
                        name: UnsafePointer(e.name), link: 0, info: 0, entrysize: 0)
                    return DW_DLV_OK
                },
                get_byte_order: { _ in DW_OBJECT_LSB },
                get_length_size: { _ in 4 },
                get_pointer_size: { obj in
                    guard let obj else { return 8 }
                    return Unmanaged<SectionTable>.fromOpaque(obj).takeUnretainedValue().pointerSize
                },
                get_section_count: { obj in
                    guard let obj else { return 0 }
                    return Dwarf_Unsigned(Unmanaged<SectionTable>.fromOpaque(obj).takeUnretainedValue().entries.count)
                },
                load_section: { obj, index, out, _ in
                    guard let obj, let out else { return DW_DLV_ERROR }
                    let t = Unmanaged<SectionTable>.fromOpaque(obj).takeUnretainedValue()
                    guard Int(index) < t.entries.count else { return DW_DLV_NO_ENTRY }
                    guard let p = t.entries[Int(index)].data.pointer else { return DW_DLV_NO_ENTRY }
                    out.pointee = UnsafeMutablePointer(mutating: p.assumingMemoryBound(to: Dwarf_Small.self))
                    return DW_DLV_OK
                },
                relocate_a_section: nil))
        interface = .allocate(capacity: 1)
        interface.initialize(to: Dwarf_Obj_Access_Interface(object: context.toOpaque(), methods: methods))
        var err: Dwarf_Error?
        var handle: Dwarf_Debug?
        let rc = dwarf_object_init_b(interface, nil, nil, 0, &handle, &err)
        guard rc == DW_DLV_OK, let handle else {
            let message = err.map { String(cString: dwarf_errmsg($0)) } ?? "no DWARF sections"
            interface.deallocate()
            methods.deallocate()
            context.release()
            throw DecodeError("libdwarf cannot read the debug information: \(message)")
        }
        dbg = handle
    }

    private func finish() {
        if let dbg {
            var err: Dwarf_Error?
            _ = dwarf_object_finish(dbg, &err)
        }
        dbg = nil
        interface.deallocate()
        methods.deallocate()
        context.release()
    }

    private func check(_ rc: Int32, _ err: Dwarf_Error?, _ what: String) throws -> Bool {
        switch rc {
        case DW_DLV_OK: return true
        case DW_DLV_NO_ENTRY: return false
        default:
            var message = "unknown error"
            if let err {
                message = String(cString: dwarf_errmsg(err))
                dwarf_dealloc_error(dbg, err)
            }
            throw DecodeError("libdwarf: \(what): \(message)")
        }
    }

    /// One libdwarf getter through `check`: the value it wrote, nil for DW_DLV_NO_ENTRY.
    private func value<Value>(
        _ what: String, _ initial: Value,
        _ call: (UnsafeMutablePointer<Value>, UnsafeMutablePointer<Dwarf_Error?>) -> Int32
    ) throws -> Value? {
        var value = initial
        var err: Dwarf_Error?
        guard try check(call(&value, &err), err, what) else { return nil }
        return value
    }

    /// A getter that writes a pointer (a DIE, a string): nil for DW_DLV_NO_ENTRY or a null one.
    private func pointer<Pointee>(
        _ what: String, _ call: (UnsafeMutablePointer<Pointee?>, UnsafeMutablePointer<Dwarf_Error?>) -> Int32
    ) throws -> Pointee? {
        try value(what, nil, call) ?? nil
    }

    /// Calls `body` for each compilation unit of `.debug_info`.
    func forEachUnit(_ body: (DwarfUnit) throws -> Void) throws {
        var offset: UInt64 = 0
        while true {
            var length: Dwarf_Unsigned = 0
            var version: Dwarf_Half = 0
            var abbrev: Dwarf_Off = 0
            var addressSize: Dwarf_Half = 0
            var offsetSize: Dwarf_Half = 0
            var extSize: Dwarf_Half = 0
            var signature = Dwarf_Sig8()
            var typeOffset: Dwarf_Unsigned = 0
            var next: Dwarf_Unsigned = 0
            var unitType: Dwarf_Half = 0
            var err: Dwarf_Error?
            let rc = dwarf_next_cu_header_d(
                dbg, 1, &length, &version, &abbrev, &addressSize, &offsetSize, &extSize, &signature, &typeOffset,
                &next, &unitType, &err)
            guard try check(rc, err, "reading a unit header") else { return }
            let unitOffset = offset
            offset = next
            var die: Dwarf_Die?
            guard try check(dwarf_siblingof_b(dbg, nil, 1, &die, &err), err, "reading a unit DIE"), let die else {
                continue
            }
            let unit = DwarfUnit(
                offset: unitOffset,
                format: DwarfFormat(version: version, addressSize: Int(addressSize), offsetSize: Int(offsetSize)),
                die: DwarfDie(raw: die))
            defer { release(unit.die) }
            try body(unit)
        }
    }

    func release(_ die: DwarfDie) { dwarf_dealloc_die(die.raw) }

    func tag(_ die: DwarfDie) throws -> UInt16 {
        try value("reading a tag", Dwarf_Half(0)) { dwarf_tag(die.raw, $0, $1) } ?? 0
    }

    func child(_ die: DwarfDie) throws -> DwarfDie? {
        try pointer("reading a child DIE") { dwarf_child(die.raw, $0, $1) }.map(DwarfDie.init(raw:))
    }

    func sibling(_ die: DwarfDie) throws -> DwarfDie? {
        try pointer("reading a sibling DIE") { dwarf_siblingof_b(dbg, die.raw, 1, $0, $1) }.map(DwarfDie.init(raw:))
    }

    func die(at offset: UInt64) throws -> DwarfDie? {
        try pointer("reading the DIE at \(offset)") { dwarf_offdie_b(dbg, offset, 1, $0, $1) }.map(DwarfDie.init(raw:))
    }

    func offset(_ die: DwarfDie) throws -> UInt64 {
        try value("reading a DIE offset", Dwarf_Off(0)) { dwarf_dieoffset(die.raw, $0, $1) } ?? 0
    }

    /// Reads the attributes we use, in one pass over the DIE's attribute list.
    func attributes(_ die: DwarfDie) throws -> DieAttributes {
        var out = DieAttributes()
        var list: UnsafeMutablePointer<Dwarf_Attribute?>?
        var count: Dwarf_Signed = 0
        var err: Dwarf_Error?
        guard try check(dwarf_attrlist(die.raw, &list, &count, &err), err, "reading attributes"), let list else {
            return out
        }
        defer {
            for i in 0..<Int(count) { if let a = list[i] { dwarf_dealloc_attribute(a) } }
            dwarf_dealloc(dbg, UnsafeMutableRawPointer(list), Dwarf_Unsigned(DW_DLA_LIST))
        }
        for i in 0..<Int(count) {
            guard let attr = list[i] else { continue }
            var num: Dwarf_Half = 0
            var form: Dwarf_Half = 0
            guard dwarf_whatattr(attr, &num, &err) == DW_DLV_OK, dwarf_whatform(attr, &form, &err) == DW_DLV_OK else {
                continue
            }
            switch num {
            case DW_AT_low_pc: out.lowPC = try address(attr)
            case DW_AT_high_pc:
                // An address form gives the end; a constant form gives the size (DWARF 4+).
                if form == DW_FORM_addr || form == DW_FORM_addrx || (DW_FORM_addrx1...DW_FORM_addrx4).contains(form) {
                    out.highPC = try address(attr)
                } else {
                    out.highPC = try unsigned(attr)
                    out.highIsOffset = true
                }
            case DW_AT_ranges: if let v = try unsigned(attr) { out.ranges = (form, v) }
            case DW_AT_abstract_origin: out.abstractOrigin = try reference(attr)
            case DW_AT_specification: out.specification = try reference(attr)
            case DW_AT_linkage_name, DW_AT_MIPS_linkage_name: out.linkageName = try text(attr)
            case DW_AT_name: out.name = try text(attr)
            case DW_AT_call_file: out.callFile = try unsigned(attr)
            case DW_AT_call_line: out.callLine = try unsigned(attr)
            case DW_AT_stmt_list: out.stmtList = try unsigned(attr)
            case DW_AT_comp_dir: out.compDir = try text(attr)
            case DW_AT_addr_base: out.addrBase = try unsigned(attr)
            case DW_AT_rnglists_base: out.rnglistsBase = try unsigned(attr)
            default: break
            }
        }
        return out
    }

    private func address(_ attr: Dwarf_Attribute) throws -> UInt64? {
        try value("reading an address", Dwarf_Addr(0)) { dwarf_formaddr(attr, $0, $1) }
    }

    /// Constants and section offsets; signed forms (DW_FORM_implicit_const, sdata) through
    /// dwarf_formsdata, which dwarf_formudata rejects.
    private func unsigned(_ attr: Dwarf_Attribute) throws -> UInt64? {
        var v: Dwarf_Unsigned = 0
        var err: Dwarf_Error?
        if dwarf_formudata(attr, &v, &err) == DW_DLV_OK { return v }
        if let e = err { dwarf_dealloc_error(dbg, e) }
        err = nil
        var s: Dwarf_Signed = 0
        if dwarf_formsdata(attr, &s, &err) == DW_DLV_OK { return UInt64(bitPattern: s) }
        if let e = err { dwarf_dealloc_error(dbg, e) }
        return try value("reading a constant", Dwarf_Off(0)) { dwarf_global_formref(attr, $0, $1) }
    }

    private func reference(_ attr: Dwarf_Attribute) throws -> UInt64? {
        try value("reading a reference", Dwarf_Off(0)) { dwarf_global_formref(attr, $0, $1) }
    }

    private func string(_ attr: Dwarf_Attribute) throws -> String? {
        try pointer("reading a string") { dwarf_formstring(attr, $0, $1) }.map { String(cString: $0) }
    }

    /// The attribute's string, kept in `texts`.
    private func text(_ attr: Dwarf_Attribute) throws -> DieString? {
        guard let string = try string(attr) else { return nil }
        return .text(texts.intern(string, index: &textIndex))
    }
}
