// The libelf loader: dlopen("libelf.so.1") on the first call of any function below, dlsym the
// entry points Sources/ObjectFiles uses, and one definition per entry point under libelf's own
// name that forwards to the library. The definitions are hidden: not exported from the
// executable, so libdwarf (which links libelf) binds to the real libelf, never to these. Without
// libelf, every command that opens no ELF file runs; one that does ends with the loader's message.
#pragma GCC visibility push(hidden)
#include "CElf.h"
#pragma GCC visibility pop
#include "CLibraryLoader.h"

// F(return type, name, parameters, arguments): every entry point, once.
#define CELF_FUNCTIONS(F)                                                                                      \
    F(int, elf_compress, (Elf_Scn * scn, int type, unsigned int flags), (scn, type, flags))                    \
    F(int, elf_end, (Elf * elf), (elf))                                                                        \
    F(const char *, elf_errmsg, (int error), (error))                                                          \
    F(int, elf_errno, (void), ())                                                                              \
    F(Elf_Data *, elf_getdata, (Elf_Scn * scn, Elf_Data * data), (scn, data))                                  \
    F(Elf_Data *, elf_getdata_rawchunk, (Elf * elf, int64_t offset, size_t size, Elf_Type type),               \
      (elf, offset, size, type))                                                                               \
    F(int, elf_getphdrnum, (Elf * elf, size_t * dst), (elf, dst))                                              \
    F(Elf_Scn *, elf_getscn, (Elf * elf, size_t index), (elf, index))                                          \
    F(int, elf_getshdrnum, (Elf * elf, size_t * dst), (elf, dst))                                              \
    F(int, elf_getshdrstrndx, (Elf * elf, size_t * dst), (elf, dst))                                          \
    F(Elf_Kind, elf_kind, (Elf * elf), (elf))                                                                  \
    F(Elf *, elf_memory, (char *image, size_t size), (image, size))                                            \
    F(size_t, elf_ndxscn, (Elf_Scn * scn), (scn))                                                              \
    F(Elf_Scn *, elf_nextscn, (Elf * elf, Elf_Scn * scn), (elf, scn))                                          \
    F(Elf_Data *, elf_rawdata, (Elf_Scn * scn, Elf_Data * data), (scn, data))                                  \
    F(char *, elf_strptr, (Elf * elf, size_t index, size_t offset), (elf, index, offset))                      \
    F(unsigned int, elf_version, (unsigned int version), (version))                                            \
    F(size_t, gelf_fsize, (Elf * elf, Elf_Type type, size_t count, unsigned int version),                      \
      (elf, type, count, version))                                                                             \
    F(GElf_Chdr *, gelf_getchdr, (Elf_Scn * scn, GElf_Chdr * dst), (scn, dst))                                 \
    F(int, gelf_getclass, (Elf * elf), (elf))                                                                  \
    F(GElf_Ehdr *, gelf_getehdr, (Elf * elf, GElf_Ehdr * dst), (elf, dst))                                     \
    F(size_t, gelf_getnote,                                                                                    \
      (Elf_Data * data, size_t offset, GElf_Nhdr * result, size_t * name_offset, size_t * desc_offset),        \
      (data, offset, result, name_offset, desc_offset))                                                        \
    F(GElf_Phdr *, gelf_getphdr, (Elf * elf, int ndx, GElf_Phdr * dst), (elf, ndx, dst))                       \
    F(GElf_Shdr *, gelf_getshdr, (Elf_Scn * scn, GElf_Shdr * dst), (scn, dst))                                 \
    F(GElf_Sym *, gelf_getsym, (Elf_Data * data, int ndx, GElf_Sym * dst), (data, ndx, dst))

#define CELF_POINTER(type, name, parameters, arguments) type(*name) parameters;
static struct {
    CELF_FUNCTIONS(CELF_POINTER)
} api;

#define CELF_ENTRY(type, name, parameters, arguments) {#name, (void **)&api.name},
static const symbolicate_entry_point points[] = {CELF_FUNCTIONS(CELF_ENTRY)};

static symbolicate_library library = SYMBOLICATE_LIBRARY("SYMBOLICATE_LIBELF", "libelf.so.1", points, NULL);

static void ensure(void) { symbolicate_library_require(&library, "libelf", "libelf1"); }

#define CELF_FORWARD(type, name, parameters, arguments)                                                        \
    type name parameters {                                                                                     \
        ensure();                                                                                              \
        return api.name arguments;                                                                             \
    }
CELF_FUNCTIONS(CELF_FORWARD)
