// The libdwarf loader: dlopen("libdwarf.so.1") (which brings libelf and zlib with it) on the
// first call of any function below, dlsym the entry points Sources/ObjectFiles/Dwarf.swift uses,
// and one definition per entry point under libdwarf's own name that forwards to the library. The
// definitions are hidden, not exported from the executable. Without libdwarf, every command that
// does not cross-check DWARF with it runs; one that does ends with the loader's message.
#pragma GCC visibility push(hidden)
#include "CDwarf.h"
#pragma GCC visibility pop
#include "CLibraryLoader.h"

// F(return type, name, parameters, arguments) for the entry points that return a value, V(name,
// parameters, arguments) for those that return nothing: every entry point, once.
#define CDWARF_FUNCTIONS(F, V)                                                                                 \
    F(int, dwarf_attrlist, (Dwarf_Die die, Dwarf_Attribute * *attributes, Dwarf_Signed * count, Dwarf_Error * error), \
      (die, attributes, count, error))                                                                         \
    F(int, dwarf_child, (Dwarf_Die die, Dwarf_Die * child, Dwarf_Error * error), (die, child, error))          \
    V(dwarf_dealloc, (Dwarf_Debug dbg, void *space, Dwarf_Unsigned type), (dbg, space, type))                  \
    V(dwarf_dealloc_attribute, (Dwarf_Attribute attribute), (attribute))                                       \
    V(dwarf_dealloc_die, (Dwarf_Die die), (die))                                                               \
    V(dwarf_dealloc_error, (Dwarf_Debug dbg, Dwarf_Error error), (dbg, error))                                 \
    F(int, dwarf_dieoffset, (Dwarf_Die die, Dwarf_Off * offset, Dwarf_Error * error), (die, offset, error))    \
    F(char *, dwarf_errmsg, (Dwarf_Error error), (error))                                                      \
    F(int, dwarf_formaddr, (Dwarf_Attribute attribute, Dwarf_Addr * address, Dwarf_Error * error),             \
      (attribute, address, error))                                                                             \
    F(int, dwarf_formsdata, (Dwarf_Attribute attribute, Dwarf_Signed * value, Dwarf_Error * error),            \
      (attribute, value, error))                                                                               \
    F(int, dwarf_formstring, (Dwarf_Attribute attribute, char **string, Dwarf_Error *error),                   \
      (attribute, string, error))                                                                              \
    F(int, dwarf_formudata, (Dwarf_Attribute attribute, Dwarf_Unsigned * value, Dwarf_Error * error),          \
      (attribute, value, error))                                                                               \
    F(int, dwarf_global_formref, (Dwarf_Attribute attribute, Dwarf_Off * offset, Dwarf_Error * error),        \
      (attribute, offset, error))                                                                              \
    F(int, dwarf_next_cu_header_d,                                                                             \
      (Dwarf_Debug dbg, Dwarf_Bool is_info, Dwarf_Unsigned * length, Dwarf_Half * version,                     \
       Dwarf_Off * abbrev_offset, Dwarf_Half * address_size, Dwarf_Half * length_size,                         \
       Dwarf_Half * extension_size, Dwarf_Sig8 * signature, Dwarf_Unsigned * type_offset,                      \
       Dwarf_Unsigned * next_offset, Dwarf_Half * cu_type, Dwarf_Error * error),                               \
      (dbg, is_info, length, version, abbrev_offset, address_size, length_size, extension_size, signature,     \
       type_offset, next_offset, cu_type, error))                                                              \
    F(int, dwarf_object_finish, (Dwarf_Debug dbg, Dwarf_Error * error), (dbg, error))                          \
    F(int, dwarf_object_init_b,                                                                                \
      (Dwarf_Obj_Access_Interface * object, Dwarf_Handler handler, Dwarf_Ptr argument, unsigned int group,     \
       Dwarf_Debug * dbg, Dwarf_Error * error),                                                                \
      (object, handler, argument, group, dbg, error))                                                          \
    F(int, dwarf_offdie_b, (Dwarf_Debug dbg, Dwarf_Off offset, Dwarf_Bool is_info, Dwarf_Die * die, Dwarf_Error * error), \
      (dbg, offset, is_info, die, error))                                                                      \
    F(int, dwarf_siblingof_b,                                                                                  \
      (Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Bool is_info, Dwarf_Die * sibling, Dwarf_Error * error),          \
      (dbg, die, is_info, sibling, error))                                                                     \
    F(int, dwarf_tag, (Dwarf_Die die, Dwarf_Half * tag, Dwarf_Error * error), (die, tag, error))               \
    F(int, dwarf_whatattr, (Dwarf_Attribute attribute, Dwarf_Half * number, Dwarf_Error * error),              \
      (attribute, number, error))                                                                              \
    F(int, dwarf_whatform, (Dwarf_Attribute attribute, Dwarf_Half * form, Dwarf_Error * error),                \
      (attribute, form, error))

#define CDWARF_POINTER(type, name, parameters, arguments) type(*name) parameters;
#define CDWARF_VOID_POINTER(name, parameters, arguments) void(*name) parameters;
static struct {
    CDWARF_FUNCTIONS(CDWARF_POINTER, CDWARF_VOID_POINTER)
} api;

#define CDWARF_ENTRY(type, name, parameters, arguments) {#name, (void **)&api.name},
#define CDWARF_VOID_ENTRY(name, parameters, arguments) {#name, (void **)&api.name},
static const symbolicate_entry_point points[] = {CDWARF_FUNCTIONS(CDWARF_ENTRY, CDWARF_VOID_ENTRY)};

static symbolicate_library library = SYMBOLICATE_LIBRARY("SYMBOLICATE_LIBDWARF", "libdwarf.so.1", points, NULL);

static void ensure(void) { symbolicate_library_require(&library, "libdwarf", "libdwarf1"); }

#define CDWARF_FORWARD(type, name, parameters, arguments)                                                      \
    type name parameters {                                                                                     \
        ensure();                                                                                              \
        return api.name arguments;                                                                             \
    }
#define CDWARF_VOID_FORWARD(name, parameters, arguments)                                                       \
    void name parameters {                                                                                     \
        ensure();                                                                                              \
        api.name arguments;                                                                                    \
    }
CDWARF_FUNCTIONS(CDWARF_FORWARD, CDWARF_VOID_FORWARD)
