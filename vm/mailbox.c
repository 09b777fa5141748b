/* mailbox.c — see mailbox.h for the design: one CAS per push, one exchange per
 * drain, a private FIFO for selective receive, and a batch of plain messages
 * joining it in one splice. */
#include "mailbox.h"

void mailbox_init(Mailbox *mb) {
    atomic_init(&mb->inbox, NULL);
    mb->first = NULL;
    mb->last = &mb->first;
    mb->save = &mb->first;
    mb->mark = NULL;
    mb->len = 0;
}

int mailbox_push(Mailbox *mb, Message *m) {
    Message *old = atomic_load_explicit(&mb->inbox, memory_order_relaxed);
    do {
        if (old == MAILBOX_CLOSED) return -1;
        m->next = old == MAILBOX_WAITING ? NULL : old;
    /* acq_rel: a sender that finds MAILBOX_WAITING will make the owner
     * runnable, so it must see everything the owner did before it waited */
    } while (!atomic_compare_exchange_weak_explicit(&mb->inbox, &old, m, memory_order_acq_rel,
                                                    memory_order_acquire));
    return old == MAILBOX_WAITING;
}

int mailbox_take_batch(Mailbox *mb, InboxBatch *b) {
    Message *head = atomic_load_explicit(&mb->inbox, memory_order_relaxed);
    if (head == NULL || head == MAILBOX_WAITING || head == MAILBOX_CLOSED) return 0;
    head = atomic_exchange_explicit(&mb->inbox, NULL, memory_order_acquire);
    Message *reversed = NULL;
    size_t n = 0;
    int signals = 0;
    b->last = head;                         /* the newest: it ends the batch */
    while (head) {
        Message *next = head->next;
        signals |= head->kind != MSG_PLAIN;
        head->next = reversed;
        reversed = head;
        head = next;
        n++;
    }
    b->first = reversed;
    b->n = n;
    b->signals = signals;
    return 1;
}

Message *mailbox_take_inbox(Mailbox *mb) {
    InboxBatch b;
    return mailbox_take_batch(mb, &b) ? b.first : NULL;
}

void mailbox_append_batch(Mailbox *mb, const InboxBatch *b) {
    *mb->last = b->first;                   /* b->last->next is NULL already */
    mb->last = &b->last->next;
    mb->len += b->n;
}

void mailbox_append(Mailbox *mb, Message *m) {
    m->next = NULL;
    *mb->last = m;
    mb->last = &m->next;
    mb->len++;
}

size_t mailbox_drain(Mailbox *mb) {
    InboxBatch b;
    if (!mailbox_take_batch(mb, &b)) return 0;
    mailbox_append_batch(mb, &b);
    return b.n;
}

Message *mailbox_remove(Mailbox *mb) {
    Message *m = *mb->save;
    *mb->save = m->next;
    if (mb->last == &m->next) mb->last = mb->save;
    if (mb->mark == &m->next) mb->mark = mb->save;
    m->next = NULL;
    mb->len--;
    mb->save = &mb->first;
    return m;
}

void mailbox_rewind(Mailbox *mb) {
    mb->save = &mb->first;
}

int mailbox_try_wait(Mailbox *mb) {
    Message *expected = NULL;
    return atomic_compare_exchange_strong_explicit(&mb->inbox, &expected, MAILBOX_WAITING,
                                                   memory_order_acq_rel, memory_order_acquire);
}

Message *mailbox_close(Mailbox *mb) {
    Message *head = atomic_exchange_explicit(&mb->inbox, MAILBOX_CLOSED, memory_order_acq_rel);
    if (head == MAILBOX_WAITING || head == MAILBOX_CLOSED) head = NULL;
    *mb->last = message_list_reversed(head);
    Message *all = mb->first;
    mb->first = NULL;
    mb->last = &mb->first;
    mb->save = &mb->first;
    mb->mark = NULL;
    mb->len = 0;
    return all;
}
