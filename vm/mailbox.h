/* mailbox.h — a process's message queue: a lock-free inbox that any thread may
 * push to, and a private queue that only the owner reads.
 *
 * The inbox is a LIFO list with one atomic word at its head. A sender pushes
 * with one compare-and-swap, which also tells it the state it replaced: an
 * empty inbox, a non-empty one, or the MAILBOX_WAITING mark that the owner
 * leaves when it goes to sleep in `receive`. Only that last case obliges the
 * sender to make the owner runnable, so the expensive wake-up happens once per
 * sleep, not once per message. The owner takes the whole inbox with one
 * exchange, reverses it (so messages from one sender stay in the order sent)
 * and appends it to its private FIFO queue, where selective receive walks
 * without any atomics.
 *
 * A message owns the fragment its term was copied into until the receiver
 * removes it from the queue; then the fragment is handed to the receiver's
 * heap (heap_attach_frag) and the next collection merges it. Queued messages
 * are therefore not GC roots: a long queue costs a collection nothing.
 */
#ifndef MINI_MAILBOX_H
#define MINI_MAILBOX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "term.h"


/* What travels through an inbox: a message, or a signal that the owner acts
 * on when it drains its inbox (links, monitors, exits, timeouts), so that
 * signals and messages from one sender keep their order, as Erlang's do. */
typedef enum {
    MSG_PLAIN = 0,     /* term: the message                                  */
    SIG_EXIT,          /* from, term: exit reason; link: 1 if from a link    */
    SIG_LINK,          /* from                                               */
    SIG_UNLINK,        /* from                                               */
    SIG_MONITOR,       /* from, ref                                          */
    SIG_DEMONITOR,     /* from, ref                                          */
    SIG_TIMEOUT,       /* ref: the wait it ends                              */
    SIG_GC,            /* garbage_collect(Pid): collect before running again */
    SIG_INFO,          /* from, ref, term: items; link: 1 for process_info/1 */
    SIG_DOWN,          /* from, ref, term: the 'DOWN' of monitor ref         */
    SIG_ALIAS,         /* ref, term: a message sent to alias ref             */
    SIG_GROUP_LEADER,  /* from: the new group leader                         */
    /* to ports only (vm/io/port.c) */
    SIG_PORT_ASYNC,    /* an async job came back: the block is the job       */
    SIG_PORT_IO,       /* an fd is ready: the block says which (driver.h)    */
    SIG_PORT_TASK      /* look at your state (a BIF closed the port)         */
} MessageKind;

/* A message and the words its term was copied into are one block: the
 * record's four words, then the term's. The record's last two words are a
 * heap fragment's header, so the block is a HeapFrag (process.h) as it is:
 * once received it hangs on the receiver's fragment list, `next` linking it
 * there, and the next collection copies what is live out of it. A queued
 * string "x" is 48 bytes (the record, a cons); a message whose term is an
 * immediate is the record alone, a bare 32-byte block with size 0. A
 * signal's sender and number (sig_from, sig_ref in proc_signal.c) sit just past
 * its term's words, so messages do not pay for them. `bins` says whether
 * the words may hold ProcBins (binary.h), which must join the receiver's
 * list when it takes the message: the copier, which visits every word
 * anyway, counts them, so a message without binaries is never walked. */
typedef struct Message {
    Term term;                   /* the message: an immediate or in mem */
    uint16_t kind;               /* MessageKind */
    uint16_t bins;               /* 0: mem holds no ProcBin (the copier saw
                                    none), so receiving it walks nothing */
    uint32_t link;               /* SIG_EXIT, SIG_INFO: see MessageKind */
    struct Message *next;        /* the queue; received: the fragment list */
    uint32_t size;               /* words in mem; 0: a bare record */
    uint32_t used;               /* words of mem the term takes */
    Term mem[];
} Message;

/* A list linked by `next`, turned round: the inbox (pushed newest first)
 * into queue order, a process's fragment list (newest first) into the order
 * it is freed in (heap.c). */
static inline Message *message_list_reversed(Message *m)
{
    Message *reversed = NULL;
    while (m) {
        Message *next = m->next;
        m->next = reversed;
        reversed = m;
        m = next;
    }
    return reversed;
}

#define MAILBOX_WAITING ((Message *)1)
#define MAILBOX_CLOSED ((Message *)2)

typedef struct Mailbox {
    _Atomic(Message *) inbox;    /* pushed, unseen by the owner so far (LIFO) */
    Message *first;              /* the private queue (FIFO), owner only */
    Message **last;              /* link to fill by the next append */
    Message **save;              /* receive position: link to the current message */
    Message **mark;              /* position remembered by recv_mark, or NULL */
    const void *mark_for;        /* the receive it was remembered for */
    size_t len;                  /* messages in the private queue */
} Mailbox;

void mailbox_init(Mailbox *mb);
/* Any thread. Returns 1 if the owner was waiting (the caller must wake it),
 * 0 if not, -1 if the mailbox is closed (the owner is dead; the message
 * stays the caller's). */
int mailbox_push(Mailbox *mb, Message *m);
/* Owner. Takes what the inbox holds, oldest first (NULL if nothing). */
Message *mailbox_take_inbox(Mailbox *mb);
/* What the inbox held, taken at once: oldest first, the newest, how many,
 * and whether any is a signal (MessageKind other than MSG_PLAIN). */
typedef struct {
    Message *first, *last;
    size_t n;
    int signals;
} InboxBatch;
/* Owner. Takes the inbox as a batch (0 if it held nothing). The reversal
 * that puts it in order visits every record anyway, so it notes the kinds
 * on the way: a batch of plain messages then joins the private queue in
 * one splice (mailbox_append_batch) instead of a second walk, which with
 * tens of thousands queued (senders far ahead of their receiver) missed
 * the cache on every record a second time. */
int mailbox_take_batch(Mailbox *mb, InboxBatch *b);
/* Owner. Appends a whole batch to the private queue, in its order. */
void mailbox_append_batch(Mailbox *mb, const InboxBatch *b);
/* Owner. Appends one message to the private queue. */
void mailbox_append(Mailbox *mb, Message *m);
/* Owner. Moves the inbox into the private queue; returns how many came
 * (used where there are no signals to act on, e.g. unit tests). */
size_t mailbox_drain(Mailbox *mb);
/* Owner. The current message of a receive; NULL at the end of the private
 * queue (the caller drains the inbox and looks again). */
static inline Message *mailbox_current(Mailbox *mb) { return *mb->save; }
static inline void mailbox_advance(Mailbox *mb) {   /* current -> next (no match) */
    mb->save = &(*mb->save)->next;
}
Message *mailbox_remove(Mailbox *mb);       /* unlink current; rewind       */
void mailbox_rewind(Mailbox *mb);           /* receive starts over at first */
/* Owner. Marks the inbox as waiting unless a message is there: 1 if the owner
 * may now sleep (a sender will wake it), 0 if it must look again. */
int mailbox_try_wait(Mailbox *mb);
/* Owner. Has anything arrived in the inbox? (A hint: it may change at once.) */
static inline int mailbox_has_new(Mailbox *mb) {
    Message *m = atomic_load_explicit(&mb->inbox, memory_order_relaxed);
    return m != NULL && m != MAILBOX_WAITING && m != MAILBOX_CLOSED;
}
/* Owner. Is the inbox empty? (Other threads may push at any moment.) */
static inline int mailbox_inbox_empty(Mailbox *mb) {
    return atomic_load_explicit(&mb->inbox, memory_order_relaxed) == NULL;
}
/* Owner, when it dies: closes the inbox for good (later pushes fail) and
 * returns everything it held, queue first, then the inbox, oldest first. */
Message *mailbox_close(Mailbox *mb);


#endif
