// libmicrohttpd from Debian's libmicrohttpd-dev, and wrappers for its variadic calls (Swift cannot
// call C variadic functions).
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// The connection's socket, or -1 (MHD_get_connection_info is variadic).
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info != NULL ? info->connect_fd : -1;
}
