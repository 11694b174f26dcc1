// libelf (Debian's libelf1; headers from libelf-dev), loaded with dlopen on first use instead of
// linked: only a command that opens an ELF file pays for loading it. The headers are included for
// their types and prototypes; the functions Sources/ObjectFiles/LibElf.swift calls are defined in
// elf.c, each forwarding to the loaded library.
#ifndef SYMBOLICATE_CELF_H
#define SYMBOLICATE_CELF_H
#include <gelf.h>
#include <libelf.h>
#endif
