/* process.h — a Mini process: registers, heap, stack, and its bookkeeping.
 *
 * Heap and stack share one block, as in BEAM: the heap grows up from `heap`
 * to `htop`, the stack grows down from `hend` to `stop`; when they would meet
 * the process collects (gc.c), which may also give it a bigger block.
 *
 *   heap                 htop               stop                 hend
 *    | live terms ...     |   free words ...  | y slots, CPs ...    |
 *
 * A stack frame (made by `allocate N`) is N+1 words: stop[0] is the caller's
 * continuation pointer, stop[1..N] are the y registers y0..y(N-1). The stack
 * holds terms, CPs and catch markers (see term.h); the collector treats the
 * terms as roots and skips the other two.
 *
 * Survivors of one minor collection are promoted to the old heap at the next
 * one (BEAM's high-water mark); the old heap is collected only by a major
 * (full-sweep) collection.
 *
 * Heap fragments: code that cannot collect where it stands (a BIF, a sender
 * copying into another process) allocates with heap_alloc() (heap.h), which takes words from the
 * heap if there is room and otherwise from a fragment (pool.h) hung on
 * `mbuf`. A fragment's live data is copied into the heap by the next
 * collection, which then frees the fragment.
 */
#ifndef MINI_PROCESS_H
#define MINI_PROCESS_H

#include <stdatomic.h>
#include <stdint.h>
#include "term.h"
#include "opcodes.h"              /* MAX_REG */
#include "mailbox.h"
#include "sched_policy.h"

#define XSAVE_INLINE 8         /* x registers a descheduled process keeps in
                                  itself; calls with more arguments are rare */
#define MIN_HEAP_SIZE 55       /* words: an idle process (its Process record
                                  and heap) fits in under 1 KB; Erlang starts
                                  at 233. The heap grows by the same sequence. */

/* A heap fragment: words a process owns outside its young block. It is the
 * same struct as a message (mailbox.h), because a received message's block
 * joins the fragment list as it is; a fragment that never was a message
 * leaves the first two words unused. The fields a fragment uses: `next`
 * (the list), `size` (words in mem; the top bit is the collector's mark,
 * gc.h), `used` (words handed out) and `mem`. */
typedef struct Message HeapFrag;
#define FRAG_MAX_WORDS ((size_t)1 << 31)   /* the top bit of size is a mark (gc.h) */

typedef struct GcStats {
    UWord minor, major;        /* number of collections                      */
    UWord words_reclaimed;
} GcStats;

/* Exception classes, as Erlang's. */
enum { EXC_ERROR = 1, EXC_EXIT = 2, EXC_THROW = 3 };

struct Module;

typedef struct Process {
    /* young heap + stack block */
    Term *heap, *htop, *stop, *hend;
    Term *high_water;          /* young objects below it survived a collection */
    /* old generation */
    Term *old_heap, *old_htop, *old_hend;
    HeapFrag *mbuf;            /* heap fragments, newest first               */
    size_t mbuf_words;         /* words in all fragments                     */
    UWord gen_gcs;             /* minor collections since the last major      */
    GcStats gc;

    /* execution state, saved when the process is not running */
    const Instr *pc;           /* next instruction                           */
    const Instr *cp;           /* continuation: where `return` goes          */
    Term *x;                   /* argument / temporary registers: while it runs,
                                  the scheduler's register file; between time
                                  slices, xsave (only the live ones are kept)  */
    Term *xsave;               /* xsave_inline, or malloc'ed for more         */
    Term xsave_inline[XSAVE_INLINE];
    int xsave_cap;
    int arity;                 /* live x registers when descheduled          */
    SWord reds;                /* reductions left in this time slice         */
    UWord total_reds;

    /* the exception being raised (THE_NON_VALUE when none) */
    int exc_class;             /* EXC_*                                      */
    int live;                  /* live x registers at a BIF call (for GC)    */
    Term exc_reason;
    Term exc_trace;            /* stack trace list, built when raised          */
    const Instr *exc_pc;       /* where it was raised, for the trace           */

    struct ProcDict *dict;     /* process dictionary (proc_dict.h), or NULL  */
    Term pid;
    Term initial_call;         /* {M,F,A} literal or NIL                     */
    Term group_leader;
    struct FileHandle *files;  /* open files, closed when it dies (bif_file.h) */
    atomic_int ets_owned;      /* ETS tables it owns: its exit hands them on (vm/ets) */
    _Atomic int save_calls;    /* process_flag(save_calls, N): kept, not acted on */

    /* added by the collector (gc.c) */
    size_t min_heap_size;      /* words: the young block never shrinks below  */
    UWord gc_last_copied;      /* words copied by the latest collection       */
    /* memory limits (gc.c, "Limits"): max_heap_size in words (0: none) and
     * what a collection does when the process is larger; out_of_memory (an
     * OOM_* of gc.h) once it could not have memory or broke a limit: it then
     * allocates nothing more and dies at the next check (emulator, sched) */
    size_t max_heap_size;
    unsigned char max_heap_kill, max_heap_log;
    unsigned char out_of_memory;
    uint32_t max_gen_gcs;      /* minors before a forced major (default 65535) */
    /* words of young block + old heap, published by the owner for readers
     * on other threads (erlang:memory/0, the VM's memory ceiling) */
    _Atomic size_t mem_words;

    /* messages, signals and scheduling (proc.c, sched.c). Only the owner
     * touches these, except mbox.inbox (any sender) and refc (atomics). */
    Mailbox mbox;
    atomic_int refc;           /* the table's reference + one per sender busy
                                  with it; the memory is freed at zero        */
    atomic_int runnable;       /* 1 while in a run queue or running           */
    struct Process *next_run;  /* run queue link                              */
    struct Scheduler *sched;   /* the scheduler it last ran on                */
    int prio;                  /* PRIO_* (process_flag(priority, P))          */
    int trap_exit;
    int exiting;               /* a signal killed it: die at the next chance  */
    int timed_out;             /* the timer of its receive (below) fired      */
    Term exit_reason;          /* when exiting (a root)                       */
    Term reg_name;             /* registered name (atom) or NIL               */
    Term *links; int nlinks, caplinks;           /* linked pids               */
    struct Monitor *monitors; int nmonitors, capmonitors;
    uint64_t wait_ref;         /* the timer of the receive now waiting        */
    struct Timer *wait_timer;  /* and its record, to cancel it (timer.h)      */
    UWord context_switches;
    int gc_requested;          /* collect before running: GC_REQUEST_FULL
                                  (garbage_collect(Pid)) or GC_REQUEST_MINOR
                                  (a BIF left binaries over their allowance) */
    int waiting;               /* its last time slice ended in receive        */
    /* binaries (binary.h): the MSO list of this process's ProcBins, and the
     * bytes they refer to, which make a collection due when they grow */
    Term *mso;                 /* first ProcBin's header, NULL at the end     */
    size_t bin_vheap;          /* bytes referred to by the list               */
    size_t bin_vheap_limit;    /* collect when bin_vheap exceeds it (0: 1 MB) */
    /* A port is scheduled as a process is (vm/io/port.c): this record with
     * `port` set holds its table slot, inbox and links; its heap is the
     * driver's scratch heap. NULL for a process. */
    struct Port *port;
} Process;

#define GC_REQUEST_FULL 1
#define GC_REQUEST_MINOR 2

/* A monitor this process holds on another (out) or another holds on it
 * (in), or an alias of this process that is not a monitor (alias/0,1). The
 * holder's side of an out monitor also says what its reference is as an
 * alias (proc_alias.c), what tag its 'DOWN' message carries and, for a
 * monitor by registered name, the name the 'DOWN' reports. */
enum { MON_IN = 0, MON_OUT = 1, MON_ALIAS = 2 };
enum { ALIAS_NONE = 0, ALIAS_EXPLICIT, ALIAS_DEMONITOR, ALIAS_REPLY_DEMONITOR, ALIAS_REPLY };
typedef struct Monitor {
    uint64_t ref;
    Term pid;                  /* the other end (NIL: MON_ALIAS, or by name
                                  and the name was not registered)            */
    int out;                   /* MON_*                                       */
    int alias;                 /* ALIAS_*: the ref is an active alias         */
    Term name;                 /* MON_OUT by registered name: the atom; or NIL */
    struct Message *tag;       /* {tag, T}: a block holding T; NULL: 'DOWN'  */
} Monitor;

/* priorities: PRIO_* in sched_policy.h */

#endif
