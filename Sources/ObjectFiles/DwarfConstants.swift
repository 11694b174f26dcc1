// The DWARF constants our own decoders and the libdwarf wrapper use, under the names the DWARF 5
// specification gives them (section 7), so that Dwarf.swift, DieDecoder.swift, DwarfUnits.swift,
// DebugInfoReader.swift, LineProgram.swift and RangeLists.swift read side by side with the spec. Each group has the width
// of the field it is read from: tags, attributes and forms are ULEB128 values that libdwarf hands
// over as Dwarf_Half; line-program opcodes and range-list entry kinds are single bytes.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

// MARK: Unit types (7.5.1, table 7.2)
let DW_UT_compile: UInt8 = 0x01
let DW_UT_type: UInt8 = 0x02
let DW_UT_partial: UInt8 = 0x03
let DW_UT_skeleton: UInt8 = 0x04
let DW_UT_split_compile: UInt8 = 0x05
let DW_UT_split_type: UInt8 = 0x06

// MARK: Children determination (7.5.3, table 7.4)
let DW_CHILDREN_no: UInt8 = 0x00
let DW_CHILDREN_yes: UInt8 = 0x01

// MARK: Tags (7.5.3, table 7.3)
let DW_TAG_compile_unit: UInt16 = 0x11
let DW_TAG_lexical_block: UInt16 = 0x0b
let DW_TAG_inlined_subroutine: UInt16 = 0x1d
let DW_TAG_subprogram: UInt16 = 0x2e
let DW_TAG_partial_unit: UInt16 = 0x3c

// MARK: Attributes (7.5.4, table 7.5)
let DW_AT_location: UInt16 = 0x02
let DW_AT_name: UInt16 = 0x03
let DW_AT_stmt_list: UInt16 = 0x10
let DW_AT_low_pc: UInt16 = 0x11
let DW_AT_high_pc: UInt16 = 0x12
let DW_AT_comp_dir: UInt16 = 0x1b
let DW_AT_abstract_origin: UInt16 = 0x31
let DW_AT_specification: UInt16 = 0x47
let DW_AT_ranges: UInt16 = 0x55
let DW_AT_call_file: UInt16 = 0x58
let DW_AT_call_line: UInt16 = 0x59
let DW_AT_linkage_name: UInt16 = 0x6e
let DW_AT_str_offsets_base: UInt16 = 0x72
let DW_AT_addr_base: UInt16 = 0x73
let DW_AT_rnglists_base: UInt16 = 0x74
/// The GNU/LLVM spelling of DW_AT_linkage_name that DWARF 2-3 producers use.
let DW_AT_MIPS_linkage_name: UInt16 = 0x2007

// MARK: Attribute forms (7.5.6, table 7.6)
let DW_FORM_addr: UInt16 = 0x01
let DW_FORM_block2: UInt16 = 0x03
let DW_FORM_block4: UInt16 = 0x04
let DW_FORM_data2: UInt16 = 0x05
let DW_FORM_data4: UInt16 = 0x06
let DW_FORM_data8: UInt16 = 0x07
let DW_FORM_string: UInt16 = 0x08
let DW_FORM_block: UInt16 = 0x09
let DW_FORM_block1: UInt16 = 0x0a
let DW_FORM_data1: UInt16 = 0x0b
let DW_FORM_flag: UInt16 = 0x0c
let DW_FORM_sdata: UInt16 = 0x0d
let DW_FORM_strp: UInt16 = 0x0e
let DW_FORM_udata: UInt16 = 0x0f
let DW_FORM_ref_addr: UInt16 = 0x10
let DW_FORM_ref1: UInt16 = 0x11
let DW_FORM_ref2: UInt16 = 0x12
let DW_FORM_ref4: UInt16 = 0x13
let DW_FORM_ref8: UInt16 = 0x14
let DW_FORM_ref_udata: UInt16 = 0x15
let DW_FORM_indirect: UInt16 = 0x16
let DW_FORM_sec_offset: UInt16 = 0x17
let DW_FORM_exprloc: UInt16 = 0x18
let DW_FORM_flag_present: UInt16 = 0x19
let DW_FORM_strx: UInt16 = 0x1a
let DW_FORM_addrx: UInt16 = 0x1b
let DW_FORM_ref_sup4: UInt16 = 0x1c
let DW_FORM_strp_sup: UInt16 = 0x1d
let DW_FORM_data16: UInt16 = 0x1e
let DW_FORM_line_strp: UInt16 = 0x1f
let DW_FORM_ref_sig8: UInt16 = 0x20
let DW_FORM_implicit_const: UInt16 = 0x21
let DW_FORM_loclistx: UInt16 = 0x22
let DW_FORM_rnglistx: UInt16 = 0x23
let DW_FORM_ref_sup8: UInt16 = 0x24
let DW_FORM_strx1: UInt16 = 0x25
let DW_FORM_strx2: UInt16 = 0x26
let DW_FORM_strx3: UInt16 = 0x27
let DW_FORM_strx4: UInt16 = 0x28
let DW_FORM_addrx1: UInt16 = 0x29
let DW_FORM_addrx2: UInt16 = 0x2a
let DW_FORM_addrx3: UInt16 = 0x2b
let DW_FORM_addrx4: UInt16 = 0x2c
/// GNU extensions for split DWARF and supplementary files (the forms DWARF 5 later standardized).
let DW_FORM_GNU_addr_index: UInt16 = 0x1f01
let DW_FORM_GNU_str_index: UInt16 = 0x1f02
let DW_FORM_GNU_ref_alt: UInt16 = 0x1f20
let DW_FORM_GNU_strp_alt: UInt16 = 0x1f21

// MARK: Line number program (6.2.5.2-6.2.5.3, tables 7.25-7.27)
let DW_LNS_copy: UInt8 = 0x01
let DW_LNS_advance_pc: UInt8 = 0x02
let DW_LNS_advance_line: UInt8 = 0x03
let DW_LNS_set_file: UInt8 = 0x04
let DW_LNS_set_column: UInt8 = 0x05
let DW_LNS_negate_stmt: UInt8 = 0x06
let DW_LNS_set_basic_block: UInt8 = 0x07
let DW_LNS_const_add_pc: UInt8 = 0x08
let DW_LNS_fixed_advance_pc: UInt8 = 0x09
let DW_LNS_set_prologue_end: UInt8 = 0x0a
let DW_LNS_set_epilogue_begin: UInt8 = 0x0b
let DW_LNS_set_isa: UInt8 = 0x0c
/// Opcode 0 introduces an extended opcode (DW_LNE_*).
let DW_LNS_extended_op: UInt8 = 0x00
let DW_LNE_end_sequence: UInt8 = 0x01
let DW_LNE_set_address: UInt8 = 0x02
let DW_LNE_define_file: UInt8 = 0x03

// MARK: Line table entry formats (6.2.4.1, table 7.27)
let DW_LNCT_path: UInt64 = 0x1
let DW_LNCT_directory_index: UInt64 = 0x2

// MARK: Range list entries (7.25, table 7.30)
let DW_RLE_end_of_list: UInt8 = 0x00
let DW_RLE_base_addressx: UInt8 = 0x01
let DW_RLE_startx_endx: UInt8 = 0x02
let DW_RLE_startx_length: UInt8 = 0x03
let DW_RLE_offset_pair: UInt8 = 0x04
let DW_RLE_base_address: UInt8 = 0x05
let DW_RLE_start_end: UInt8 = 0x06
let DW_RLE_start_length: UInt8 = 0x07

// MARK: Initial length (7.4)
/// An initial length of 0xffffffff announces the 64-bit DWARF format.
let DWARF64_escape: UInt32 = 0xffff_ffff
