// libarchive (Debian's libarchive13, headers from libarchive-dev) for .zip / .tar / cpio archives,
// loaded with dlopen on first use instead of linked: only commands that open or write an archive
// pay for loading it and the compression libraries it pulls in, and a machine without libarchive
// still runs every other command. archive.h and archive_entry.h are included for their types and
// constants only; every call goes through the carchive_* functions below, which call the loaded
// library.
#ifndef SYMBOLICATE_CARCHIVE_H
#define SYMBOLICATE_CARCHIVE_H
#include <archive.h>
#include <archive_entry.h>
#include <locale.h>
#include <stddef.h>

/// Loads libarchive.so.13 (or the file $SYMBOLICATE_LIBARCHIVE names) once per process
/// (thread-safe). Returns 1 when libarchive is usable; 0 otherwise, with the loader's reason in
/// carchive_load_error().
int carchive_load(void);
/// Why carchive_load failed (dlerror's text, or the missing symbol); "" when it did not.
const char *carchive_load_error(void);

// The three constructors load the library themselves and return NULL when it cannot be loaded
// (call carchive_load() first to say why). Every other function takes a handle that only a loaded
// library can have made.
struct archive *carchive_read_new(void);
struct archive *carchive_write_new(void);
struct archive_entry *carchive_entry_new(void);

int carchive_read_free(struct archive *a);
int carchive_read_support_filter_all(struct archive *a);
int carchive_read_support_format_cpio(struct archive *a);
int carchive_read_support_format_gnutar(struct archive *a);
int carchive_read_support_format_tar(struct archive *a);
int carchive_read_support_format_zip(struct archive *a);
int carchive_read_support_format_zip_streamable(struct archive *a);
int carchive_read_open_fd(struct archive *a, int fd, size_t block_size);
int carchive_read_open_filename(struct archive *a, const char *filename, size_t block_size);
/// Opens `a` on `fd`, from its current offset, as a stream without seeking, which goes on after
/// the file's last byte with `trailer` (at most 64 bytes). `*past_end` becomes 1 once libarchive
/// has asked for bytes past the file's end (and been given the trailer); it must outlive `a`. The
/// descriptor stays the caller's.
int carchive_read_open_fd_trailed(struct archive *a, int fd, size_t block_size, const void *trailer,
                                  size_t trailer_length, int *past_end);
int carchive_read_next_header(struct archive *a, struct archive_entry **entry);
la_ssize_t carchive_read_data(struct archive *a, void *buffer, size_t size);
int carchive_read_data_skip(struct archive *a);

int carchive_write_free(struct archive *a);
int carchive_write_add_filter_gzip(struct archive *a);
int carchive_write_set_format_pax_restricted(struct archive *a);
int carchive_write_set_format_zip(struct archive *a);
int carchive_write_open_fd(struct archive *a, int fd);
int carchive_write_header(struct archive *a, struct archive_entry *entry);
la_ssize_t carchive_write_data(struct archive *a, const void *buffer, size_t size);
int carchive_write_close(struct archive *a);

const char *carchive_error_string(struct archive *a);
la_int64_t carchive_filter_bytes(struct archive *a, int filter);
int carchive_format(struct archive *a);

void carchive_entry_free(struct archive_entry *entry);
const char *carchive_entry_pathname(struct archive_entry *entry);
const char *carchive_entry_pathname_utf8(struct archive_entry *entry);
void carchive_entry_set_pathname_utf8(struct archive_entry *entry, const char *name);
__LA_MODE_T carchive_entry_filetype(struct archive_entry *entry);
int carchive_entry_is_encrypted(struct archive_entry *entry);
la_int64_t carchive_entry_size(struct archive_entry *entry);
int carchive_entry_size_is_set(struct archive_entry *entry);
void carchive_entry_set_filetype(struct archive_entry *entry, unsigned int type);
void carchive_entry_set_mtime(struct archive_entry *entry, time_t seconds, long nanoseconds);
void carchive_entry_set_perm(struct archive_entry *entry, __LA_MODE_T permissions);
void carchive_entry_set_size(struct archive_entry *entry, la_int64_t size);

/// A locale whose LC_CTYPE is UTF-8 (C.UTF-8, else en_US.UTF-8), for libarchive's name
/// conversions; (locale_t)0 when the system has neither. The caller keeps it for the process.
static inline locale_t carchive_new_utf8_ctype_locale(void) {
    locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (locale == (locale_t)0) locale = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", (locale_t)0);
    return locale;
}

#endif
