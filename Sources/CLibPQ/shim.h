#ifndef XCFLEET_CLIBPQ_SHIM_H
#define XCFLEET_CLIBPQ_SHIM_H
/* libpq (Debian libpq-dev puts the header under /usr/include/postgresql; pkg-config libpq
   gives that include path, and the fallback below covers a plain include path). */
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif

#endif
