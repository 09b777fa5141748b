/* proc.h — processes as Erlang sees them: spawning and exit (proc.c), the
 * pid table (proc_table.c), messages and signals: links, monitors, exits
 * (proc_signal.c), and registered names (proc_names.c).
 *
 * Everything one process does to another travels through the target's
 * lock-free inbox (mailbox.h): messages, and signals that the target acts on
 * itself when it drains its inbox. So a process's links, monitors and queue
 * are only ever touched by the process itself, signals and messages from one
 * sender arrive in the order sent, and no lock sits in the send path.
 */
#ifndef MINI_PROC_H
#define MINI_PROC_H

#include "process.h"

/* The process limit (+P): Mini's default is 1,048,576 (Erlang's 262,144);
 * proc_table_init rounds a +P value up to a power of two, as OTP often does,
 * within 1024 .. 2^27 as OTP's range. Called once, before any spawn. */
#define PROCESS_LIMIT_DEFAULT (1 << 20)
void proc_table_init(size_t limit);
size_t proc_limit(void);
/* Tells Boehm not to scan the static table (after GC_INIT). */
void proc_table_unscanned(void);

/* A max_heap_size setting: words (0: none), kill, error_logger. */
typedef struct { size_t size; int kill, log; } MaxHeap;

/* How to spawn (spawn_opt's options; zeros mean plain spawn at normal
 * priority, which spawn_opt calls PRIO_NORMAL). A max_heap of all zeros
 * means the defaults of +hmax (mem_limit.h). */
typedef struct {
    int link, monitor;
    int prio;                  /* PRIO_* */
    size_t min_heap;           /* words (0: the default) */
    MaxHeap max_heap;
} SpawnOpts;

/* +hms: the min_heap_size (words) of a process spawned without one */
extern size_t proc_default_min_heap;

/* q's max_heap_size as process_info and process_flag give it: a map */
Term proc_max_heap_term(Process *p, const Process *q);

/* Spawns M:F(Args) (Args a proper list) or, when fun is a fun, Fun() with
 * module == NIL, as o says (NULL: plain spawn); *mon_ref gets the monitor's
 * number. Returns the new process (already runnable) or NULL when the
 * process table is full. */
Term proc_spawn(Process *parent, Term module, Term fun, Term args, const SpawnOpts *o,
                uint64_t *mon_ref);

/* The live process with this pid, with a reference the caller must drop
 * with proc_release; NULL if there is none. */
Process *proc_lookup(Term pid);
void proc_release(Process *p);
/* The same without a reference, for a thread that qsbr_protected() says is
 * online: the record stays the one looked up (though its process may exit)
 * until the thread's next quiescent point; nothing to release. */
Process *proc_peek(Term pid);
/* The table itself, for spawn and exit: proc_table_insert gives p a pid and
 * its slot (0 if the table is full); proc_table_remove empties p's slot, and
 * lookups no longer find it. p->refc counts the table's reference, which
 * the caller drops with proc_release after removing p. */
int proc_table_insert(Process *p);
void proc_table_remove(Process *p);
UWord proc_count(void);
/* Pids of all live processes, for processes/0 (built with heap_alloc). */
Term proc_all_pids(Process *p);
/* The live process with the most heap words (its published mem_words), with
 * a reference the caller drops with proc_release; NULL if none. */
Process *proc_table_largest(void);
/* Ports live in the same table (vm/io/port.c): their own insert (the id is
 * a port), lookup by port, count and list. proc_lookup finds no port, and
 * proc_lookup_port no process. */
int proc_table_insert_port(Process *p);
Process *proc_lookup_port(Term port);
UWord proc_port_count(void);
Term proc_all_ports(Process *p);

/* Copies msg and delivers it to pid (silently dropped if it is dead, as in
 * Erlang). Returns reductions spent. */
UWord proc_send(Process *from, Term pid, Term msg);

/* The same as a signal of `kind` with number ref (SIG_ALIAS: a message
 * sent to an alias, which the target delivers if the alias is active). */
UWord proc_send_kind(Process *from, Term pid, Term msg, int kind, uint64_t ref);

/* Messages built ahead of delivery (timers): a copy of t; {timeout, Ref, Msg}. */
Message *proc_message_copy(Term t);
/* The same, or NULL when the memory left cannot hold the copy. */
Message *proc_message_try_copy(Term t);
/* The same for a signal of `kind` (MessageKind), with its from and ref. */
Message *proc_signal_copy(Term t, int kind, Term from, uint64_t ref);
Message *proc_message_timeout(uint64_t ref, Term msg);
void proc_message_free(Message *m);
/* Pushes m to pid's inbox and wakes it if it waits. 0 if delivered; -1 if
 * there is no such process (m is freed). pid may be a port: links and exit
 * signals reach ports this way. */
int proc_deliver(Term pid, Message *m);

/* Signals. Return 0 if delivered, -1 if the target is dead. */
int proc_link(Process *p, Term pid);        /* both directions; -1: noproc   */
void proc_unlink(Process *p, Term pid);
int proc_monitor(Process *p, Term pid, uint64_t ref);
int proc_demonitor(Process *p, uint64_t ref);   /* 1 if it was active        */
/* exit(Pid, Reason) */
void proc_exit_signal(Process *p, Term pid, Term reason);

/* Moves p's inbox into its queue, acting on signals on the way. Afterwards
 * p->exiting says whether a signal killed it. */
void proc_drain(Process *p);
/* Takes the current message out of the queue: its fragment joins p's heap. */
void proc_remove_message(Process *p);

/* Ends p with reason: tells links and monitors, unregisters, frees (once no
 * sender holds it). `report` prints Erlang's error report for crashes. */
void proc_exit(Process *p, Term reason, int report);
/* The owner's side of links and monitors, for spawn_link/spawn_monitor,
 * which set up both ends before the child runs. */
void proc_link_add(Process *p, Term pid);
/* Ports act on their own signals (vm/io/port.c): the link list, and a
 * signal's sender. */
int proc_link_has(Process *p, Term pid);
void proc_link_remove(Process *p, Term pid);
Term proc_signal_from(const Message *m);
void proc_monitor_add(Process *p, uint64_t ref, Term pid, int out);
/* p's entry for ref of kind out (MON_*; -1: any), or NULL; dropping one
 * frees its tag (its alias is the caller's business). */
Monitor *proc_monitor_find(Process *p, uint64_t ref, int out);
void proc_monitor_drop(Process *p, Monitor *mo);
/* monitor(process, Name) when Name is not registered: a 'DOWN' with
 * noproc at once, for an entry that names Name. */
void proc_monitor_noproc(Process *p, uint64_t ref, Term name);
/* group_leader(Leader, Pid) for another process; -1 if it is dead. */
int proc_group_leader_signal(Term leader, Term pid);

/* Aliases (proc_alias.c). proc_alias_new makes a reference that is an
 * alias of p only (alias/1, mode ALIAS_EXPLICIT or ALIAS_REPLY);
 * proc_alias_activate makes monitor mo's reference an alias too;
 * proc_unalias ends one (1 if it was active); proc_alias_forget takes a
 * reference out of the VM's table (the owner, ending one itself). A send to
 * an alias costs reductions as proc_send, and is dropped if it is not
 * active. */
uint64_t proc_alias_new(Process *p, int mode);
Monitor *proc_alias_find(Process *p, uint64_t ref);   /* the active alias entry, or NULL */
void proc_alias_activate(Process *p, Monitor *mo, int mode);
int proc_unalias(Process *p, uint64_t ref);
void proc_alias_forget(uint64_t ref);
UWord proc_send_alias(Process *from, Term alias, Term msg);
/* For proc_exit, once p is out of the table: answers the signals that came
 * too late and sends exit signals and 'DOWN's to its links and monitors. */
void proc_signal_exit(Process *p, Term reason);
/* Its second half: exit signals to p's links and 'DOWN's to its monitors,
 * which it then forgets (a port closing while async jobs are out). */
void proc_signal_links_exit(Process *p, Term reason);
/* An exit signal {'EXIT', From, Reason} from `from` (a pid or a port) to
 * `to`; link: as the death of a linked process. */
void proc_send_exit(Term from, Term to, Term reason, int link);
/* An exit signal from another node's process (vm/dist: a link across nodes
 * ends), with exit/2's semantics. */
void proc_send_exit_external(Term from, Term to, Term reason);
/* The exit reason for an uncaught exception in p. */
Term proc_exception_reason(Process *p);

/* Registered names. register returns 0, or -1 if taken or the pid is dead. */
int proc_register(Term name, Process *p);
int proc_unregister(Term name);
Term proc_whereis(Term name);               /* pid or THE_NON_VALUE */
Term proc_registered(Process *p);           /* list of names */

/* References. */
uint64_t proc_new_ref(void);
#define REF_WORDS 2
Term make_ref_at(Term *hp, uint64_t n);
static inline uint64_t ref_number(Term ref) { return (uint64_t)boxed_ptr(ref)[1]; }

/* process_info on another process: asks pid (SIG_INFO) to send p its
 * answer as {Ref, Info}; -1 if pid is not alive. info_answer (bif_introspection.c)
 * computes a process's own info when it handles the request. */
int proc_info_request(Process *p, Term pid, Term items, int all, uint64_t ref);
Term info_answer(Process *p, Term items, int all);

/* Delivers a SIG_TIMEOUT for wait `ref` to pid (the timer wheel calls it);
 * `in_order` when it is one of several found due at one look at the wheel
 * (sched_wake_timeout says why). */
void proc_timeout(Term pid, uint64_t ref, int in_order);

#endif
