/* dist.h — distribution as the rest of the VM sees it: this node's name,
 * creation and cookie (dist_node.c), and sending to another node's process
 * (dist_conn.c). docs/distribution.md tells the whole story.
 *
 * A node that is not alive is nonode@nohost with creation 0, as in Erlang;
 * its pids, ports and refs encode with that node and creation, so that
 * term_to_binary output is OTP's byte for byte either way.
 */
#ifndef MINI_DIST_H
#define MINI_DIST_H

#include <stdint.h>
#include "term.h"

struct Process;

/* A pid, port or ref with its node: what the external format carries.
 * Pid ids are [number][serial], a port's [number], a ref's 32-bit words
 * least significant first. A local pid number N is split into the 28-bit
 * number and the serial (N >> 28), as OTP bounds a pid number. */
typedef struct DistId {
    Term node;
    uint32_t creation;
    size_t n;
    UWord ids[EXT_MAX_IDS];
} DistId;
void dist_id_of(Term t, DistId *out);

Term dist_this_node(void);
uint32_t dist_this_creation(void);
/* node/creation are this node's (what a decoded local pid carries). */
int dist_is_this(Term node, uint32_t creation);
/* The number erl shows as the first field of another node's pid (<N.I.S>). */
unsigned long dist_node_number(Term node);

/* Start-up (vm/shell/main.c): name as given to -sname (longnames 0) or
 * -name, cookie from -setcookie or NULL. Registers with epmd (starting it
 * if needed) and opens the listen socket. 0, or -1 after printing why. */
int dist_start(const char *name, int longnames, const char *cookie, int hidden);
int dist_alive(void);
/* Spawns and registers net_kernel, rex and global_name_server. */
void dist_spawn_kernel(struct Process *parent);
/* -setcookie given without -sname/-name: the cookie net_kernel:start uses. */
void dist_preset_cookie(const char *cookie);
/* -kernel net_ticktime N (seconds, at least 1): what net_kernel ticks by
 * (erlang:dist_ticktime/0,1); 60 unless given. */
void dist_set_ticktime(long seconds);

/* Sends msg to `to`: another node's pid, or a {Name, Node} tuple (this
 * node's too). Returns the reductions spent, or -1 when `to` is no valid
 * destination (badarg). Never blocks: a node not connected yet is asked
 * for (net_kernel connects it) and the message waits in the connection. */
long dist_send(struct Process *p, Term to, Term msg);

/* monitor(process, T) for T another node's pid or {Name, Node} with Node
 * not this node: the reference; a 'DOWN' comes when the peer reports the
 * exit or the connection goes (noconnection). demonitor of such a
 * reference: 1 if it was one of p's. */
Term dist_monitor(struct Process *p, Term target);
int dist_demonitor(struct Process *p, uint64_t ref);
/* link (on 1) / unlink (0) between p and another node's pid: handed to
 * net_kernel, whose proxy holds the link (docs/distribution.md). */
void dist_link(struct Process *p, Term remote, int on);

#endif
