// zstd from Debian's libzstd-dev.
#include <zstd.h>
#include <zstd_errors.h>
