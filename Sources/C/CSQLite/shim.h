// SQLite 3 from Debian's libsqlite3-dev.
#include <sqlite3.h>
