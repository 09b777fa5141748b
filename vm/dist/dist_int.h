/* dist_int.h — what the files of vm/dist share: the protocol's numbers and
 * the helpers of dist_node.c that dist_conn.c uses. Not for the core. */
#ifndef MINI_DIST_INT_H
#define MINI_DIST_INT_H

#include <stddef.h>
#include <stdint.h>
#include "dist.h"

#define EPMD_PORT 4369
#define DIST_VERSION 6          /* the handshake this node speaks (OTP 23+) */

/* Handshake flags (erts dist.h). */
#define DFLAG_PUBLISHED           0x1ULL
#define DFLAG_EXTENDED_REFERENCES 0x4ULL
#define DFLAG_DIST_MONITOR        0x8ULL
#define DFLAG_FUN_TAGS            0x10ULL
#define DFLAG_DIST_MONITOR_NAME   0x20ULL
#define DFLAG_NEW_FUN_TAGS        0x80ULL
#define DFLAG_EXTENDED_PIDS_PORTS 0x100ULL
#define DFLAG_EXPORT_PTR_TAG      0x200ULL
#define DFLAG_BIT_BINARIES        0x400ULL
#define DFLAG_NEW_FLOATS          0x800ULL
#define DFLAG_UNICODE_IO          0x1000ULL
#define DFLAG_SMALL_ATOM_TAGS     0x4000ULL
#define DFLAG_UTF8_ATOMS          0x10000ULL
#define DFLAG_MAP_TAG             0x20000ULL
#define DFLAG_BIG_CREATION        0x40000ULL
#define DFLAG_SEND_SENDER         0x80000ULL
#define DFLAG_BIG_SEQTRACE_LABELS 0x100000ULL
#define DFLAG_EXIT_PAYLOAD        0x400000ULL
#define DFLAG_HANDSHAKE_23        0x1000000ULL
#define DFLAG_UNLINK_ID           0x2000000ULL
#define DFLAG_MANDATORY_25_DIGEST 0x4000000ULL
#define DFLAG_SPAWN               (1ULL << 32)
#define DFLAG_V4_NC               (1ULL << 34)
/* What OTP 25 insists on (0x1070F94 less what it implies); we ask for
 * these and the ones we handle. */
#define DFLAG_MANDATORY (DFLAG_EXTENDED_REFERENCES | DFLAG_FUN_TAGS | DFLAG_EXTENDED_PIDS_PORTS | \
    DFLAG_UTF8_ATOMS | DFLAG_NEW_FUN_TAGS | DFLAG_BIG_CREATION | DFLAG_NEW_FLOATS | \
    DFLAG_MAP_TAG | DFLAG_EXPORT_PTR_TAG | DFLAG_BIT_BINARIES | DFLAG_HANDSHAKE_23)
#define DFLAG_OURS (DFLAG_MANDATORY | DFLAG_DIST_MONITOR | DFLAG_DIST_MONITOR_NAME | \
    DFLAG_SMALL_ATOM_TAGS | DFLAG_UNICODE_IO | DFLAG_SEND_SENDER | DFLAG_BIG_SEQTRACE_LABELS | \
    DFLAG_EXIT_PAYLOAD | DFLAG_UNLINK_ID | DFLAG_MANDATORY_25_DIGEST | DFLAG_V4_NC | DFLAG_SPAWN)

/* Control message numbers. */
enum {
    DOP_LINK = 1, DOP_SEND = 2, DOP_EXIT = 3, DOP_UNLINK = 4, DOP_REG_SEND = 6,
    DOP_EXIT2 = 8, DOP_MONITOR_P = 19, DOP_DEMONITOR_P = 20, DOP_MONITOR_P_EXIT = 21,
    DOP_SEND_SENDER = 22, DOP_PAYLOAD_EXIT = 24, DOP_PAYLOAD_EXIT2 = 26,
    DOP_PAYLOAD_MONITOR_P_EXIT = 28, DOP_SPAWN_REQUEST = 29, DOP_SPAWN_REPLY = 31,
    DOP_UNLINK_ID = 35, DOP_UNLINK_ID_ACK = 36
};

int dist_hidden(void);
int dist_listen_fd(void);
Term dist_cookie(void);
int dist_read_full(int fd, void *buf, size_t n);
int dist_write_full(int fd, const void *buf, size_t n);
/* The address of port on host, for a connect: a host that does not resolve
 * is taken to be this machine, loopback (names may carry a host short name
 * that is in no hosts file, a container's own); 0, or -1 with *res unset.
 * The caller frees *res (freeaddrinfo). */
struct addrinfo;
int dist_host_addr(const char *host, unsigned port, struct addrinfo **res);
/* The port name registered on this host's epmd; 0 or -1. */
int dist_epmd_port_please(const char *host, const char *name, unsigned *port);
/* set_cookie(Node, Cookie) for another node; -1 when the table is full. */
int dist_node_cookie_set(Term node, Term cookie);
Term dist_node_cookie(Term node);

#endif
