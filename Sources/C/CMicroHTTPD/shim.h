// libmicrohttpd from Debian's libmicrohttpd-dev.
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
