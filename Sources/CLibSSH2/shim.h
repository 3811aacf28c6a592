#ifndef XCFLEET_CLIBSSH2_SHIM_H
#define XCFLEET_CLIBSSH2_SHIM_H
#include <libssh2.h>
#endif
