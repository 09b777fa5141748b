/* proc_names.c — registered names (register/2, whereis/1, ...).
 *
 * One table under one lock: registering and unregistering are rare, and a
 * lookup (a send to a name) holds the lock for a scan of a few entries. A
 * process knows its own name (reg_name), so that its exit unregisters it.
 */
#include <pthread.h>

#include "proc.h"
#include "heap.h"

/* At most this many names at once: register/2 fails (badarg) past it.
 * OTP has no fixed limit; programs register a few dozen. */
#define NAME_SLOTS 4096
static struct { Term name, pid; } names[NAME_SLOTS];
static int nnames;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

int proc_register(Term name, Process *p) {
    int r = -1;
    pthread_mutex_lock(&names_lock);
    int taken = p->reg_name != NIL;
    for (int i = 0; i < nnames && !taken; i++) if (names[i].name == name) taken = 1;
    if (!taken && nnames < NAME_SLOTS) {
        names[nnames].name = name;
        names[nnames].pid = p->pid;
        nnames++;
        p->reg_name = name;
        r = 0;
    }
    pthread_mutex_unlock(&names_lock);
    return r;
}

int proc_unregister(Term name) {
    int r = -1;
    Term pid = THE_NON_VALUE;
    pthread_mutex_lock(&names_lock);
    for (int i = 0; i < nnames; i++) {
        if (names[i].name != name) continue;
        pid = names[i].pid;
        names[i] = names[--nnames];
        r = 0;
        break;
    }
    pthread_mutex_unlock(&names_lock);
    if (r == 0) {
        Process *q = proc_lookup(pid);
        if (q) { if (q->reg_name == name) q->reg_name = NIL; proc_release(q); }
    }
    return r;
}

Term proc_whereis(Term name) {
    Term pid = THE_NON_VALUE;
    pthread_mutex_lock(&names_lock);
    for (int i = 0; i < nnames; i++)
        if (names[i].name == name) { pid = names[i].pid; break; }
    pthread_mutex_unlock(&names_lock);
    return pid;
}

Term proc_registered(Process *p) {
    pthread_mutex_lock(&names_lock);
    Term list = NIL;
    Term *hp = heap_alloc(p, 2 * (size_t)nnames);
    for (int i = 0; i < nnames; i++, hp += 2) {
        hp[0] = names[i].name; hp[1] = list;
        list = make_list(hp);
    }
    pthread_mutex_unlock(&names_lock);
    return list;
}
