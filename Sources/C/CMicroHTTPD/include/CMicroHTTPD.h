// libmicrohttpd (Debian's libmicrohttpd12, headers from libmicrohttpd-dev) for the HTTP server,
// loaded with dlopen when a server starts instead of linked: only `serve` pays for loading it and
// the TLS libraries it pulls in, and a machine without it still runs every other command.
// microhttpd.h is included for its types, enums and callback types only; every call goes through
// the cmhd_* functions below, which call the loaded library. The variadic MHD_get_connection_info
// gets a non-variadic wrapper for the one value we read, which Swift can call.
#ifndef SYMBOLICATE_CMICROHTTPD_H
#define SYMBOLICATE_CMICROHTTPD_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Loads libmicrohttpd.so.12 (or the file $SYMBOLICATE_LIBMICROHTTPD names) once per process
/// (thread-safe). Returns 1 when it is usable; 0 otherwise, with the loader's reason in
/// cmhd_load_error().
int cmhd_load(void);
/// Why cmhd_load failed (dlerror's text, or the missing symbol); "" when it did not.
const char *cmhd_load_error(void);

/// MHD_start_daemon_va; loads the library itself and returns NULL when it cannot be loaded (call
/// cmhd_load() first to say why). Every other function is only reached through a running daemon.
struct MHD_Daemon *cmhd_start_daemon_va(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback accept_policy,
                                        void *accept_policy_context, MHD_AccessHandlerCallback handler,
                                        void *handler_context, va_list options);
void cmhd_stop_daemon(struct MHD_Daemon *daemon);
MHD_socket cmhd_quiesce_daemon(struct MHD_Daemon *daemon);

void cmhd_suspend_connection(struct MHD_Connection *connection);
void cmhd_resume_connection(struct MHD_Connection *connection);
int cmhd_get_connection_values(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                               MHD_KeyValueIterator iterator, void *iterator_context);
/// The connection's socket, or -1 (MHD_get_connection_info is variadic).
int cmhd_connection_fd(struct MHD_Connection *connection);

struct MHD_PostProcessor *cmhd_create_post_processor(struct MHD_Connection *connection, size_t buffer_size,
                                                     MHD_PostDataIterator iterator, void *iterator_context);
enum MHD_Result cmhd_post_process(struct MHD_PostProcessor *processor, const char *data, size_t size);
enum MHD_Result cmhd_destroy_post_processor(struct MHD_PostProcessor *processor);

struct MHD_Response *cmhd_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
// Sends `size` bytes of the open file `fd` (which the response closes when it is destroyed).
struct MHD_Response *cmhd_create_response_from_fd64(uint64_t size, int fd);
enum MHD_Result cmhd_add_response_header(struct MHD_Response *response, const char *header, const char *content);
enum MHD_Result cmhd_queue_response(struct MHD_Connection *connection, unsigned int status_code,
                                    struct MHD_Response *response);
void cmhd_destroy_response(struct MHD_Response *response);

#endif
