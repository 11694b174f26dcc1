// The libarchive loader: dlopen("libarchive.so.13") once, dlsym the entry points the Archives
// target uses, and one forwarding function per entry point. Nothing here links against libarchive,
// so the symbolicate executable has no libarchive (nor its compression libraries) in its ldd list.
#include "CArchive.h"
#include "CLibraryLoader.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    struct archive *(*read_new)(void);
    struct archive *(*write_new)(void);
    struct archive_entry *(*entry_new)(void);
    int (*read_free)(struct archive *);
    int (*read_support_filter_all)(struct archive *);
    int (*read_support_format_cpio)(struct archive *);
    int (*read_support_format_gnutar)(struct archive *);
    int (*read_support_format_tar)(struct archive *);
    int (*read_support_format_zip)(struct archive *);
    int (*read_support_format_zip_streamable)(struct archive *);
    int (*read_open_fd)(struct archive *, int, size_t);
    int (*read_open_filename)(struct archive *, const char *, size_t);
    int (*read_open)(struct archive *, void *, archive_open_callback *, archive_read_callback *,
                     archive_close_callback *);
    void (*set_error)(struct archive *, int, const char *, ...);
    int (*read_next_header)(struct archive *, struct archive_entry **);
    la_ssize_t (*read_data)(struct archive *, void *, size_t);
    int (*read_data_skip)(struct archive *);
    int (*write_free)(struct archive *);
    int (*write_add_filter_gzip)(struct archive *);
    int (*write_set_format_pax_restricted)(struct archive *);
    int (*write_set_format_zip)(struct archive *);
    int (*write_open_fd)(struct archive *, int);
    int (*write_header)(struct archive *, struct archive_entry *);
    la_ssize_t (*write_data)(struct archive *, const void *, size_t);
    int (*write_close)(struct archive *);
    const char *(*error_string)(struct archive *);
    la_int64_t (*filter_bytes)(struct archive *, int);
    int (*format)(struct archive *);
    void (*entry_free)(struct archive_entry *);
    const char *(*entry_pathname)(struct archive_entry *);
    const char *(*entry_pathname_utf8)(struct archive_entry *);
    void (*entry_set_pathname_utf8)(struct archive_entry *, const char *);
    __LA_MODE_T (*entry_filetype)(struct archive_entry *);
    int (*entry_is_encrypted)(struct archive_entry *);
    la_int64_t (*entry_size)(struct archive_entry *);
    int (*entry_size_is_set)(struct archive_entry *);
    void (*entry_set_filetype)(struct archive_entry *, unsigned int);
    void (*entry_set_mtime)(struct archive_entry *, time_t, long);
    void (*entry_set_perm)(struct archive_entry *, __LA_MODE_T);
    void (*entry_set_size)(struct archive_entry *, la_int64_t);
} api;

#define CARCHIVE_ENTRY(field) {"archive_" #field, (void **)&api.field}

static const symbolicate_entry_point points[] = {
    CARCHIVE_ENTRY(read_new),
    CARCHIVE_ENTRY(write_new),
    CARCHIVE_ENTRY(entry_new),
    CARCHIVE_ENTRY(read_free),
    CARCHIVE_ENTRY(read_support_filter_all),
    CARCHIVE_ENTRY(read_support_format_cpio),
    CARCHIVE_ENTRY(read_support_format_gnutar),
    CARCHIVE_ENTRY(read_support_format_tar),
    CARCHIVE_ENTRY(read_support_format_zip),
    CARCHIVE_ENTRY(read_support_format_zip_streamable),
    CARCHIVE_ENTRY(read_open_fd),
    CARCHIVE_ENTRY(read_open_filename),
    CARCHIVE_ENTRY(read_open),
    CARCHIVE_ENTRY(set_error),
    CARCHIVE_ENTRY(read_next_header),
    CARCHIVE_ENTRY(read_data),
    CARCHIVE_ENTRY(read_data_skip),
    CARCHIVE_ENTRY(write_free),
    CARCHIVE_ENTRY(write_add_filter_gzip),
    CARCHIVE_ENTRY(write_set_format_pax_restricted),
    CARCHIVE_ENTRY(write_set_format_zip),
    CARCHIVE_ENTRY(write_open_fd),
    CARCHIVE_ENTRY(write_header),
    CARCHIVE_ENTRY(write_data),
    CARCHIVE_ENTRY(write_close),
    CARCHIVE_ENTRY(error_string),
    CARCHIVE_ENTRY(filter_bytes),
    CARCHIVE_ENTRY(format),
    CARCHIVE_ENTRY(entry_free),
    CARCHIVE_ENTRY(entry_pathname),
    CARCHIVE_ENTRY(entry_pathname_utf8),
    CARCHIVE_ENTRY(entry_set_pathname_utf8),
    CARCHIVE_ENTRY(entry_filetype),
    CARCHIVE_ENTRY(entry_is_encrypted),
    CARCHIVE_ENTRY(entry_size),
    CARCHIVE_ENTRY(entry_size_is_set),
    CARCHIVE_ENTRY(entry_set_filetype),
    CARCHIVE_ENTRY(entry_set_mtime),
    CARCHIVE_ENTRY(entry_set_perm),
    CARCHIVE_ENTRY(entry_set_size),
};

// SYMBOLICATE_LIBARCHIVE names another file to load instead (a system that names it differently).
static symbolicate_library library = SYMBOLICATE_LIBRARY("SYMBOLICATE_LIBARCHIVE", "libarchive.so.13", points, NULL);

int carchive_load(void) { return symbolicate_library_ensure(&library); }
const char *carchive_load_error(void) { return library.error; }

struct archive *carchive_read_new(void) { return carchive_load() ? api.read_new() : NULL; }
struct archive *carchive_write_new(void) { return carchive_load() ? api.write_new() : NULL; }
struct archive_entry *carchive_entry_new(void) { return carchive_load() ? api.entry_new() : NULL; }

int carchive_read_free(struct archive *a) { return api.read_free(a); }
int carchive_read_support_filter_all(struct archive *a) { return api.read_support_filter_all(a); }
int carchive_read_support_format_cpio(struct archive *a) { return api.read_support_format_cpio(a); }
int carchive_read_support_format_gnutar(struct archive *a) { return api.read_support_format_gnutar(a); }
int carchive_read_support_format_tar(struct archive *a) { return api.read_support_format_tar(a); }
int carchive_read_support_format_zip(struct archive *a) { return api.read_support_format_zip(a); }
int carchive_read_support_format_zip_streamable(struct archive *a) {
    return api.read_support_format_zip_streamable(a);
}
int carchive_read_open_fd(struct archive *a, int fd, size_t block_size) { return api.read_open_fd(a, fd, block_size); }
int carchive_read_open_filename(struct archive *a, const char *filename, size_t block_size) {
    return api.read_open_filename(a, filename, block_size);
}

// A stream over a file descriptor, from its current offset, that goes on after the file's last
// byte with `trailer` (at most 64 bytes), once, and then says so in `*past_end`.
struct carchive_trailed_stream {
    int fd;
    size_t block_size;
    int *past_end;
    size_t trailer_length;
    unsigned char trailer[64];
    unsigned char block[];
};

static la_ssize_t carchive_trailed_read(struct archive *a, void *client, const void **buffer) {
    struct carchive_trailed_stream *stream = client;
    ssize_t n;
    do {
        n = read(stream->fd, stream->block, stream->block_size);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        api.set_error(a, errno, "cannot read the archive: %s", strerror(errno));
        return -1;
    }
    if (n > 0) {
        *buffer = stream->block;
        return n;
    }
    if (*stream->past_end || stream->trailer_length == 0) return 0;
    *stream->past_end = 1;
    *buffer = stream->trailer;
    return (la_ssize_t)stream->trailer_length;
}

static int carchive_trailed_close(struct archive *a, void *client) {
    (void)a;
    free(client);
    return ARCHIVE_OK;
}

int carchive_read_open_fd_trailed(struct archive *a, int fd, size_t block_size, const void *trailer,
                                  size_t trailer_length, int *past_end) {
    if (trailer_length > 64) return ARCHIVE_FATAL;
    struct carchive_trailed_stream *stream = calloc(1, sizeof *stream + block_size);
    if (stream == NULL) return ARCHIVE_FATAL;
    stream->fd = fd;
    stream->block_size = block_size;
    stream->past_end = past_end;
    *past_end = 0;
    stream->trailer_length = trailer_length;
    memcpy(stream->trailer, trailer, trailer_length);
    // libarchive calls the close callback, which frees the stream, once: when the archive is
    // freed, or when opening fails.
    return api.read_open(a, stream, NULL, carchive_trailed_read, carchive_trailed_close);
}

int carchive_read_next_header(struct archive *a, struct archive_entry **entry) {
    return api.read_next_header(a, entry);
}
la_ssize_t carchive_read_data(struct archive *a, void *buffer, size_t size) { return api.read_data(a, buffer, size); }
int carchive_read_data_skip(struct archive *a) { return api.read_data_skip(a); }

int carchive_write_free(struct archive *a) { return api.write_free(a); }
int carchive_write_add_filter_gzip(struct archive *a) { return api.write_add_filter_gzip(a); }
int carchive_write_set_format_pax_restricted(struct archive *a) { return api.write_set_format_pax_restricted(a); }
int carchive_write_set_format_zip(struct archive *a) { return api.write_set_format_zip(a); }
int carchive_write_open_fd(struct archive *a, int fd) { return api.write_open_fd(a, fd); }
int carchive_write_header(struct archive *a, struct archive_entry *entry) { return api.write_header(a, entry); }
la_ssize_t carchive_write_data(struct archive *a, const void *buffer, size_t size) {
    return api.write_data(a, buffer, size);
}
int carchive_write_close(struct archive *a) { return api.write_close(a); }

const char *carchive_error_string(struct archive *a) { return api.error_string(a); }
la_int64_t carchive_filter_bytes(struct archive *a, int filter) { return api.filter_bytes(a, filter); }
int carchive_format(struct archive *a) { return api.format(a); }

void carchive_entry_free(struct archive_entry *entry) { api.entry_free(entry); }
const char *carchive_entry_pathname(struct archive_entry *entry) { return api.entry_pathname(entry); }
const char *carchive_entry_pathname_utf8(struct archive_entry *entry) { return api.entry_pathname_utf8(entry); }
void carchive_entry_set_pathname_utf8(struct archive_entry *entry, const char *name) {
    api.entry_set_pathname_utf8(entry, name);
}
__LA_MODE_T carchive_entry_filetype(struct archive_entry *entry) { return api.entry_filetype(entry); }
int carchive_entry_is_encrypted(struct archive_entry *entry) { return api.entry_is_encrypted(entry); }
la_int64_t carchive_entry_size(struct archive_entry *entry) { return api.entry_size(entry); }
int carchive_entry_size_is_set(struct archive_entry *entry) { return api.entry_size_is_set(entry); }
void carchive_entry_set_filetype(struct archive_entry *entry, unsigned int type) {
    api.entry_set_filetype(entry, type);
}
void carchive_entry_set_mtime(struct archive_entry *entry, time_t seconds, long nanoseconds) {
    api.entry_set_mtime(entry, seconds, nanoseconds);
}
void carchive_entry_set_perm(struct archive_entry *entry, __LA_MODE_T permissions) {
    api.entry_set_perm(entry, permissions);
}
void carchive_entry_set_size(struct archive_entry *entry, la_int64_t size) { api.entry_set_size(entry, size); }
