#ifndef XCFLEET_CLIBSSH2_SHIM_H
#define XCFLEET_CLIBSSH2_SHIM_H
/* libssh2 1.10 through Swift: function-like macros do not import, so they are wrapped here
   as static inline functions; constants Swift cannot see are re-exported as functions. */
#include <libssh2.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <errno.h>
#include <string.h>
#include <stdlib.h>

/* Byte counter fed by the receive callback below: lets the owner notice ANY traffic from the
   server (keepalive replies included), which libssh2 itself never reports. Only touched from
   the connection's own thread. */
typedef struct {
    long long bytes_received;
} xcf_io_stats;

/* Same contract as libssh2's own _libssh2_recv: bytes, or -errno. */
static inline ssize_t xcf_recv_counting(libssh2_socket_t sock, void *buffer, size_t length,
                                        int flags, void **abstract) {
    ssize_t rc = recv(sock, buffer, length, flags);
    if (rc < 0) {
        if (errno == ENOENT) return -EAGAIN;
        return -errno;
    }
    if (abstract != NULL && *abstract != NULL) {
        ((xcf_io_stats *)*abstract)->bytes_received += rc;
    }
    return rc;
}

/* A session whose abstract pointer is `stats`, with the counting receive callback installed. */
static inline LIBSSH2_SESSION *xcf_session_init(xcf_io_stats *stats) {
    LIBSSH2_SESSION *session = libssh2_session_init_ex(NULL, NULL, NULL, stats);
    if (session != NULL) {
        libssh2_session_callback_set(session, LIBSSH2_CALLBACK_RECV, (void *)xcf_recv_counting);
    }
    return session;
}

static inline LIBSSH2_CHANNEL *xcf_channel_open_session(LIBSSH2_SESSION *session) {
    return libssh2_channel_open_ex(session, "session", sizeof("session") - 1,
                                   LIBSSH2_CHANNEL_WINDOW_DEFAULT, LIBSSH2_CHANNEL_PACKET_DEFAULT, NULL, 0);
}

static inline int xcf_channel_exec(LIBSSH2_CHANNEL *channel, const char *command) {
    return libssh2_channel_process_startup(channel, "exec", sizeof("exec") - 1,
                                           command, (unsigned int)strlen(command));
}

static inline ssize_t xcf_channel_read(LIBSSH2_CHANNEL *channel, char *buf, size_t len) {
    return libssh2_channel_read_ex(channel, 0, buf, len);
}

static inline ssize_t xcf_channel_read_stderr(LIBSSH2_CHANNEL *channel, char *buf, size_t len) {
    return libssh2_channel_read_ex(channel, SSH_EXTENDED_DATA_STDERR, buf, len);
}

static inline ssize_t xcf_channel_write(LIBSSH2_CHANNEL *channel, const char *buf, size_t len) {
    return libssh2_channel_write_ex(channel, 0, buf, len);
}

static inline int xcf_userauth_publickey_fromfile(LIBSSH2_SESSION *session, const char *user,
                                                  const char *publickey, const char *privatekey,
                                                  const char *passphrase) {
    return libssh2_userauth_publickey_fromfile_ex(session, user, (unsigned int)strlen(user),
                                                  publickey, privatekey, passphrase);
}

static inline int xcf_session_disconnect(LIBSSH2_SESSION *session, const char *why) {
    return libssh2_session_disconnect_ex(session, SSH_DISCONNECT_BY_APPLICATION, why, "");
}

static inline int xcf_error_eagain(void) { return LIBSSH2_ERROR_EAGAIN; }
static inline int xcf_block_inbound(void) { return LIBSSH2_SESSION_BLOCK_INBOUND; }
static inline int xcf_block_outbound(void) { return LIBSSH2_SESSION_BLOCK_OUTBOUND; }
static inline int xcf_method_hostkey(void) { return LIBSSH2_METHOD_HOSTKEY; }

/* The last libssh2 error as a C string (owned by the session; copy it at once). */
static inline const char *xcf_last_error(LIBSSH2_SESSION *session, int *code) {
    char *msg = NULL;
    int len = 0;
    int rc = libssh2_session_last_error(session, &msg, &len, 0);
    if (code != NULL) *code = rc;
    return msg != NULL ? msg : "";
}

#endif
