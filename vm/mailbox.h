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
#include "term.h"

struct HeapFrag;

typedef struct Message {
    struct Message *next;
    Term term;                   /* the message: an immediate or in frag */
    struct HeapFrag *frag;       /* NULL when term is an immediate */
} Message;

#define MAILBOX_WAITING ((Message *)1)

typedef struct Mailbox {
    _Atomic(Message *) inbox;    /* pushed, not yet seen by the owner (LIFO) */
    Message *first;              /* the private queue (FIFO), owner only */
    Message **last;              /* link to fill by the next append */
    Message **save;              /* receive position: link to the current message */
    Message **mark;              /* position remembered by recv_mark, or NULL */
    size_t len;                  /* messages in the private queue */
} Mailbox;

void mailbox_init(Mailbox *mb);
/* Any thread. Returns 1 if the owner was waiting: the caller must wake it. */
int mailbox_push(Mailbox *mb, Message *m);
/* Owner. Moves the inbox into the private queue; returns how many came. */
size_t mailbox_drain(Mailbox *mb);
/* Owner. The current message of a receive, draining the inbox if the
 * private queue is used up; NULL when there is none. */
Message *mailbox_current(Mailbox *mb);
void mailbox_advance(Mailbox *mb);          /* current -> next (no match)   */
Message *mailbox_remove(Mailbox *mb);       /* unlink current; rewind       */
void mailbox_rewind(Mailbox *mb);           /* receive starts over at first */
/* Owner. Marks the inbox as waiting unless a message is there: 1 if the owner
 * may now sleep (a sender will wake it), 0 if it must look again. */
int mailbox_try_wait(Mailbox *mb);
/* Owner, after waking: clears the waiting mark if still set. */
void mailbox_stop_waiting(Mailbox *mb);
/* Owner. Detaches every message (inbox and queue), for a dying process. */
Message *mailbox_take_all(Mailbox *mb);

#endif
