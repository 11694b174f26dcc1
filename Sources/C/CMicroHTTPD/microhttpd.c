// The libmicrohttpd loader: dlopen("libmicrohttpd.so.12") once, dlsym the entry points the
// server's HTTPDaemon uses, and one forwarding function per entry point. Nothing here links
// against libmicrohttpd, so the symbolicate executable has no libmicrohttpd (nor GnuTLS) in its
// ldd list.
#include "CMicroHTTPD.h"
#include "CLibraryLoader.h"

static struct {
    struct MHD_Daemon *(*start_daemon_va)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                          MHD_AccessHandlerCallback, void *, va_list);
    void (*stop_daemon)(struct MHD_Daemon *);
    MHD_socket (*quiesce_daemon)(struct MHD_Daemon *);
    void (*suspend_connection)(struct MHD_Connection *);
    void (*resume_connection)(struct MHD_Connection *);
    int (*get_connection_values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    struct MHD_PostProcessor *(*create_post_processor)(struct MHD_Connection *, size_t, MHD_PostDataIterator, void *);
    enum MHD_Result (*post_process)(struct MHD_PostProcessor *, const char *, size_t);
    enum MHD_Result (*destroy_post_processor)(struct MHD_PostProcessor *);
    struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy_response)(struct MHD_Response *);
    struct MHD_Response *(*create_response_from_fd64)(uint64_t, int);
} api;

#define CMHD_ENTRY(field) {"MHD_" #field, (void **)&api.field}

static const symbolicate_entry_point points[] = {
    CMHD_ENTRY(start_daemon_va),
    CMHD_ENTRY(stop_daemon),
    CMHD_ENTRY(quiesce_daemon),
    CMHD_ENTRY(suspend_connection),
    CMHD_ENTRY(resume_connection),
    CMHD_ENTRY(get_connection_values),
    CMHD_ENTRY(get_connection_info),
    CMHD_ENTRY(create_post_processor),
    CMHD_ENTRY(post_process),
    CMHD_ENTRY(destroy_post_processor),
    CMHD_ENTRY(create_response_from_buffer),
    CMHD_ENTRY(add_response_header),
    CMHD_ENTRY(queue_response),
    CMHD_ENTRY(destroy_response),
    CMHD_ENTRY(create_response_from_fd64),
};

// SYMBOLICATE_LIBMICROHTTPD names another file to load instead (a system that names it differently).
static symbolicate_library library =
    SYMBOLICATE_LIBRARY("SYMBOLICATE_LIBMICROHTTPD", "libmicrohttpd.so.12", points, NULL);

int cmhd_load(void) { return symbolicate_library_ensure(&library); }
const char *cmhd_load_error(void) { return library.error; }

struct MHD_Daemon *cmhd_start_daemon_va(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback accept_policy,
                                        void *accept_policy_context, MHD_AccessHandlerCallback handler,
                                        void *handler_context, va_list options) {
    if (!cmhd_load()) return NULL;
    return api.start_daemon_va(flags, port, accept_policy, accept_policy_context, handler, handler_context, options);
}
void cmhd_stop_daemon(struct MHD_Daemon *daemon) { api.stop_daemon(daemon); }
MHD_socket cmhd_quiesce_daemon(struct MHD_Daemon *daemon) { return api.quiesce_daemon(daemon); }

void cmhd_suspend_connection(struct MHD_Connection *connection) { api.suspend_connection(connection); }
void cmhd_resume_connection(struct MHD_Connection *connection) { api.resume_connection(connection); }
int cmhd_get_connection_values(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                               MHD_KeyValueIterator iterator, void *iterator_context) {
    return api.get_connection_values(connection, kind, iterator, iterator_context);
}
int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info != NULL ? info->connect_fd : -1;
}

struct MHD_PostProcessor *cmhd_create_post_processor(struct MHD_Connection *connection, size_t buffer_size,
                                                     MHD_PostDataIterator iterator, void *iterator_context) {
    return api.create_post_processor(connection, buffer_size, iterator, iterator_context);
}
enum MHD_Result cmhd_post_process(struct MHD_PostProcessor *processor, const char *data, size_t size) {
    return api.post_process(processor, data, size);
}
enum MHD_Result cmhd_destroy_post_processor(struct MHD_PostProcessor *processor) {
    return api.destroy_post_processor(processor);
}

struct MHD_Response *cmhd_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    return api.create_response_from_buffer(size, buffer, mode);
}
struct MHD_Response *cmhd_create_response_from_fd64(uint64_t size, int fd) {
    return api.create_response_from_fd64(size, fd);
}
enum MHD_Result cmhd_add_response_header(struct MHD_Response *response, const char *header, const char *content) {
    return api.add_response_header(response, header, content);
}
enum MHD_Result cmhd_queue_response(struct MHD_Connection *connection, unsigned int status_code,
                                    struct MHD_Response *response) {
    return api.queue_response(connection, status_code, response);
}
void cmhd_destroy_response(struct MHD_Response *response) { api.destroy_response(response); }
