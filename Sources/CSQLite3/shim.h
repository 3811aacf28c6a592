#ifndef XCFLEET_CSQLITE3_SHIM_H
#define XCFLEET_CSQLITE3_SHIM_H
/* SQLite 3 (Debian libsqlite3-dev). SQLITE_TRANSIENT is a cast macro Swift cannot import:
   it is re-exported as a function. */
#include <sqlite3.h>

static inline sqlite3_destructor_type xcf_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
