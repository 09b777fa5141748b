/* gc.c — the per-process collector: precise, copying (Cheney), generational.
 *
 * Each process is collected alone, by the thread running it, at a point the
 * code chose (gc_ensure: "I need N words, x0..x(live-1) are live"); gc.h lists
 * the roots and the invariant the rest of the VM keeps. Only this file walks
 * objects.
 *
 * Generations, as BEAM. The young block holds the heap (heap..htop) and the
 * stack (stop..hend). p->high_water marks where the survivors of the previous
 * collection end: an object below it has survived once, and a minor collection
 * promotes it into the old heap; objects above it (and everything in heap
 * fragments) are copied into a fresh young block. A minor collection never
 * looks inside the old heap: terms are immutable, so old objects cannot point
 * to younger ones. A major collection (the old heap has no room for the
 * promotions, or max_gen_gcs minors have passed, or gc_full) copies everything
 * live — young, fragments and old — into a fresh young block and frees the old
 * heap, as BEAM's full sweep does; the next minor makes a new old heap.
 *
 * Copying. Objects are moved breadth-first: the roots are evacuated, then a
 * scan pointer walks the to-space (and, in a minor, the promoted part of the
 * old heap) evacuating every pointer it meets, until the scan catches up with
 * allocation. No C recursion, so a list of a million cells or a deep chain of
 * tuples costs no C stack. A moved cons cell gets THE_NON_VALUE in its head
 * and its new (tagged) address in its tail (a live cons head is never
 * THE_NON_VALUE); a moved boxed object gets its new boxed pointer in place of
 * its header (a header has tag 00, so tag 10 there means "moved"). That keeps
 * sharing: a subterm reachable twice is copied once.
 *
 * Where does a pointer point? Young block and old heap are two ranges. What
 * is in neither is either in a heap fragment (copy it) or a literal (module
 * constants in Boehm memory: leave it). There may be thousands of fragments
 * (one per received message), so we do not walk the fragment list per
 * pointer. Most are message blocks in the pool's message arena (pool.h), one
 * more range: the collection marks the process's own blocks there (the
 * FRAG_IN_GC bit of their size) and finds a block from an address with one
 * division (pool_arena_frag), so that a long mailbox costs no sorting. The
 * other fragments are put in an array sorted by address, and a pointer
 * outside young, old and arena is looked up by binary search (after a cheap
 * check against the lowest and highest fragment address). We chose this
 * over asking Boehm (GC_is_heap_ptr) because it depends on nothing outside
 * this file and is deterministic; its cost is paid only by pointers that
 * leave the young and old heaps.
 *
 * Sizing. The new young block is sized from the words that could survive
 * (heap in use + fragments in use + stack, and the old heap in a major), on
 * the sequence of gc_next_heap_size(). After copying, if live data + stack +
 * need exceeds 75% of the block, or falls under 25% of a block larger than
 * min_heap_size and SHRINK_ABOVE_WORDS, the block is resized by a second, young-only copying pass
 * (the live data is small when shrinking; growing happens geometrically, so
 * the extra copies add up to a constant factor). A shrink stops at half the
 * old heap in use: the young block is the nursery, and one sized to a few
 * young survivors of a process whose data lives in the old heap made it
 * collect, promote and then copy everything again far more often. Nor does
 * it go under the words of the process dictionary's table: every collection
 * scans all of them as roots, and a 4,000-word nursery beside a dictionary
 * of 200,000 keys collected (and scanned 400,000 words) every 4,000 words
 * allocated: a loop of setelement/3 ran 300 times slower than without the
 * dictionary. A loop that only makes
 * garbage therefore stays at one block size, and a deep recursion grows the
 * block (and so its stack) through collections. The stack moves to the end of
 * the new block with memcpy: CPs and catch markers point into code, not into
 * the heap, so only its terms need updating, and they are roots.
 *
 * Binaries (binary.h): HEAP_BIN and REFC_BIN are copied as raw words; a
 * SUB_BIN's last word is a term. After each copying pass, sweep_mso walks the
 * process's list of ProcBins: a moved one stays on the list at its new
 * place, one left in place (old heap, minor collection) stays as it is, and
 * one that was not reached is dead and drops its reference on the shared
 * bytes. MAP stops the VM with a message until maps arrive.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc.h"
#include "proc_dict.h"
#include "fatal.h"
#include "smp.h"
#include "binary.h"

/* A young block of this many words or fewer is never made smaller (OTP's
 * rule, erl_gc.c: no shrink at 3,000 words or under): a process whose live
 * data is a few hundred words but which allocates thousands between
 * collections (a float loop: n-body boxes every result) otherwise shrinks
 * to twice its live data after each collection and collects every few
 * hundred words, paying each collection's fixed costs (the new block, the
 * roots, the binaries' list) thousands of times more. */
#define SHRINK_ABOVE_WORDS 3000
#include "mem_limit.h"
#include "heap_block.h"

#ifndef GC_STRESS
#define GC_STRESS 0
#endif
/* Stress builds force a major every 64 collections while the old heap
 * holds fewer words than this (see gc_collect). */
#define GC_STRESS_MAJOR_WORDS (64 * 1024)

/* Fragments larger than this share of the young block make gc_ensure collect
 * even when there is room: their memory is only given back by a collection. */
#define FRAG_PRESSURE_DIVISOR 1

/* words: the smallest young block once a process has collected (above) */
#define GC_GROWN_MIN_HEAP 233

typedef struct FragRange {
    uintptr_t lo, hi, end;         /* mem, mem + used, mem + size */
} FragRange;

enum { LEAVE = 0, TO_YOUNG = 1, TO_OLD = 2 };

typedef struct Gc {
    int major;
    /* from-space */
    uintptr_t ylo, yhi, yend;      /* young block: heap, htop, hend            */
    uintptr_t hw;                  /* minor: [ylo, hw) is promoted to old      */
    uintptr_t olo, ohi, oend;      /* old heap: copied in a major, else left   */
    uintptr_t alo, ahi;            /* the message arena (pool.h)               */
    const FragRange *frags;        /* the fragments outside the arena          */
    size_t nfrags;
    uintptr_t flo, fhi;            /* lowest and highest fragment addresses    */
    uintptr_t clo, chi;            /* the used part of the last fragment found */
    int cdest;                     /* and where what is in it goes             */
    /* to-space */
    Term *htop, *hlimit;           /* the new young block                      */
    Term *ohtop, *olimit;          /* promotion into the old heap (minor)      */
    size_t copied;                 /* words */
} Gc;

static void gc_fatal(const char *what, Term word)
{
    FATAL("garbage collector: %s (word 0x%llx)", what, (unsigned long long)word);
}

size_t gc_next_heap_size(size_t words)
{
    size_t a = 55, b = 89;         /* Erlang's heap sizes, Fibonacci-like (but
                                      starting lower, so an idle process stays
                                      under 1 KB) ... */
    if (words <= a)
        return a;
    while (b < words) {
        size_t c;
        if (b < 1346269) {
            c = a + b;
        } else {                   /* ... then steps of 20% */
            if (b > SIZE_MAX / 4)
                return words;
            c = b + b / 5;
        }
        a = b;
        b = c;
    }
    return b;
}

static int frag_cmp(const void *a, const void *b)
{
    uintptr_t x = ((const FragRange *)a)->lo, y = ((const FragRange *)b)->lo;
    return x < y ? -1 : x > y;
}

/* Remembers the fragment [lo, hi) the last lookup found: pointers come in
 * runs into one fragment (a received list's every cell points into the
 * message it came in), and the lookup (a division in the pool, a binary
 * search here) cost a tenth of a collection of such lists. */
static int fragment_found(Gc *g, uintptr_t lo, uintptr_t hi, int dest)
{
    g->clo = lo;
    g->chi = hi;
    g->cdest = dest;
    return dest;
}

static int in_fragment(Gc *g, uintptr_t a)
{
    if (a < g->flo || a >= g->fhi)
        return 0;
    size_t lo = 0, hi = g->nfrags;         /* find the last range with lo <= a */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->frags[mid].lo <= a)
            lo = mid;
        else
            hi = mid;
    }
    const FragRange *r = &g->frags[lo];
    if (a < r->lo || a >= r->end)
        return 0;
    if (a >= r->hi)
        gc_fatal("pointer into the unused part of a heap fragment", (Term)a);
    fragment_found(g, r->lo, r->hi, TO_YOUNG);
    return 1;
}

/* Where a pointer that is not into the young block's used part goes: the
 * rare kinds, kept out of line so that the common test stays small. */
static __attribute__((noinline)) int where_else(Gc *g, uintptr_t a)
{
    if (a - g->clo < g->chi - g->clo)
        return g->cdest;
    if (a >= g->ylo && a < g->yend)
        gc_fatal("pointer into the free space or the stack", (Term)a);
    if (a >= g->olo && a < g->oend) {
        if (!g->major)
            return LEAVE;
        if (a >= g->ohi)
            gc_fatal("pointer above the old heap's top", (Term)a);
        return TO_YOUNG;
    }
    if (a - g->alo < g->ahi - g->alo) {  /* a pooled block: is it ours? */
        const HeapFrag *f = pool_arena_frag(a);
        uintptr_t lo = (uintptr_t)f->mem, hi = (uintptr_t)(f->mem + f->used);
        if (!(f->size & FRAG_IN_GC))
            return a < hi ? fragment_found(g, lo, hi, LEAVE) : LEAVE;
        if (a >= hi)
            gc_fatal("pointer into the unused part of a heap fragment", (Term)a);
        return fragment_found(g, lo, hi, TO_YOUNG);
    }
    return in_fragment(g, a) ? TO_YOUNG : LEAVE;
}

/* Most pointers a collection meets are into the young block (one unsigned
 * comparison tells), and the high-water mark says whether the object has
 * survived before. */
static inline int where(Gc *g, const Term *ptr)
{
    uintptr_t a = (uintptr_t)ptr;
    if (__builtin_expect(a - g->ylo < g->yhi - g->ylo, 1))
        return a < g->hw ? TO_OLD : TO_YOUNG;
    return where_else(g, a);
}

/* The words copied are counted once, from the pointers, by copy_pass. */
static inline Term *to_alloc(Gc *g, int dest, size_t n)
{
    Term **top = dest == TO_OLD ? &g->ohtop : &g->htop;
    Term *limit = dest == TO_OLD ? g->olimit : g->hlimit;
    Term *d = *top;
    if (__builtin_expect((size_t)(limit - d) < n, 0))
        gc_fatal(dest == TO_OLD ? "old heap overflow while promoting"
                                : "young heap overflow while copying", (Term)n);
    *top = d + n;
    return d;
}

/* t is a list or boxed term; returns where it lives after the collection.
 * Inline: it runs once for every pointer the collection meets, and a call
 * per pointer was a fifth of its cost. */
static inline __attribute__((always_inline)) Term evacuate(Gc *g, Term t)
{
    if (is_list(t)) {
        Term *cell = list_ptr(t);
        int dest = where(g, cell);
        if (dest == LEAVE)
            return t;
        if (cell[0] == THE_NON_VALUE)          /* already moved */
            return cell[1];
        Term *d = to_alloc(g, dest, 2);
        d[0] = cell[0];
        d[1] = cell[1];
        Term moved = make_list(d);
        cell[0] = THE_NON_VALUE;
        cell[1] = moved;
        return moved;
    }
    Term *obj = boxed_ptr(t);
    int dest = where(g, obj);
    if (dest == LEAVE)
        return t;
    Term h = obj[0];
    if (is_boxed(h))                           /* already moved */
        return h;
    size_t n = header_arity(h) + 1;
    Term *d = to_alloc(g, dest, n);
    object_words_copy(d, obj, n);
    Term moved = make_boxed(d);
    obj[0] = moved;
    return moved;
}

static inline int is_pointer(Term t)
{
    return is_list(t) || is_boxed(t);
}

static inline void update(Gc *g, Term *slot)
{
    if (is_pointer(*slot))
        *slot = evacuate(g, *slot);
}

/* Evacuates what the words s .. *top point to, as *top moves on; returns
 * where it stopped (== *top). */
static Term *scan(Gc *g, Term *s, Term *const *top)
{
    while (s < *top) {
        Term w = *s;
        switch (primary_tag(w)) {
        case TAG_LIST:
        case TAG_BOXED:
            *s++ = evacuate(g, w);
            break;
        case TAG_IMMED:
            s++;
            break;
        default:                               /* a header */
            switch (header_subtag(w)) {
            case BOXED_TUPLE:                  /* elements are terms */
            case BOXED_MAP:                    /* [keys tuple][values...] (map.h) */
                s++;
                break;
            case BOXED_FUN:                    /* [FunEntry *][free vars...] */
                s += 2;
                break;
            case BOXED_POS_BIG:
            case BOXED_NEG_BIG:
            case BOXED_FLOAT:
            case BOXED_EXPORT:
            case BOXED_REF:
            case BOXED_EXTERNAL:               /* node atom and raw ids */
            case BOXED_HEAP_BIN:               /* raw payload */
            case BOXED_REFC_BIN:               /* binaries: raw, see sweep_mso */
                s += 1 + header_arity(w);
                break;
            case BOXED_SUB_BIN:                /* [bits][offset][orig term] */
                s += 3;
                break;
            default:
                gc_fatal("a header of no known kind", w);
            }
        }
    }
    return s;
}

/* The smallest young block for p (the sizing rule at the top): half its
 * old heap in use, and the words of its dictionary's table, which every
 * collection scans whatever it finds there, so that a collection comes at
 * most once per as many words allocated as it scans in roots. */
/* The young block p's dictionary asks for (0: none), beside an old heap
 * of old_in_use words. Not where it would pass a limit (max_heap_size, or
 * the VM's memory ceiling): the limits are about live data, which this
 * room is not. */
static size_t dict_room(Process *p, size_t old_in_use)
{
    size_t dict_words = p->dict ? 2 * ((size_t)p->dict->mask + 1) : 0;
    if (dict_words <= GC_GROWN_MIN_HEAP)
        return 0;
    size_t want = gc_next_heap_size(dict_words), have = gc_heap_size(p);
    size_t ceiling = mem_ceiling_words();
    size_t total = atomic_load_explicit(&mem_process_words, memory_order_relaxed);
    int over_max = p->max_heap_size && want + old_in_use > p->max_heap_size;
    int over_ceiling = ceiling && want > have && total + (want - have) > ceiling;
    return over_max || over_ceiling ? 0 : want;
}

static size_t nursery_floor(Process *p)
{
    size_t old_in_use = p->old_heap ? (size_t)(p->old_htop - p->old_heap) : 0;
    size_t floor = old_in_use ? gc_next_heap_size(old_in_use / 2) : 0;
    size_t room = dict_room(p, old_in_use);
    return room > floor ? room : floor;
}

/* Every root, as listed in gc.h. The stack has already been copied to
 * [stack, stack_end) of the new block. */
static void for_each_root(Gc *g, Process *p, int live, Term *stack, Term *stack_end)
{
    for (int i = 0; i < live; i++)
        update(g, &p->x[i]);
    for (Term *s = stack; s < stack_end; s++)
        update(g, s);                          /* CPs and catches have tag 00 */
    for (uint32_t i = 0; proc_dict_next(p->dict, &i); i++) {
        update(g, &p->dict->kv[2 * i]);
        update(g, &p->dict->kv[2 * i + 1]);
    }
    update(g, &p->exc_reason);
    update(g, &p->exc_trace);
    update(g, &p->initial_call);
    update(g, &p->group_leader);
    update(g, &p->pid);
    update(g, &p->exit_reason);
}

/* Binaries: after a copying pass (before from-space is freed), keeps the
 * ProcBins that survived on p's MSO list and releases the others. */
static void sweep_mso(Gc *g, Process *p)
{
    Term head = 0, *link = &head;
    size_t bytes = 0;
    for (Term *pb = p->mso; pb;) {
        Term *next = (Term *)pb[PB_NEXT];
        Term *keep = NULL;
        if (where(g, pb) == LEAVE)
            keep = pb;
        else if (is_boxed(pb[0]))              /* moved: the forwarding pointer */
            keep = boxed_ptr(pb[0]);
        else
            binary_release((Binary *)pb[PB_VAL]);
        if (keep) {
            *link = (Term)keep;
            link = &keep[PB_NEXT];
            bytes += keep[PB_SIZE];
        }
        pb = next;
    }
    *link = 0;
    p->mso = (Term *)head;
    p->bin_vheap = bytes;
    p->bin_vheap_limit = bytes < ((size_t)1 << 19) ? ((size_t)1 << 20) : 2 * bytes;
}

/* Copies the live data the Gc describes into the new block `to` of `size`
 * words, moves the stack to its end, and installs the block in p (the old
 * young block is the caller's to free). */
static void copy_pass(Gc *g, Process *p, int live, Term *to, size_t size)
{
    size_t stack = (size_t)(p->hend - p->stop);
    Term *nstop = to + size - stack;
    memcpy(nstop, p->stop, stack * sizeof(Term));
    g->htop = to;
    g->hlimit = nstop;
    Term *old_scan = g->ohtop, *promoted = g->ohtop;

    for_each_root(g, p, live, nstop, to + size);
    Term *young_scan = to;
    while (young_scan < g->htop || old_scan < g->ohtop) {
        young_scan = scan(g, young_scan, &g->htop);
        old_scan = scan(g, old_scan, &g->ohtop);
    }
    g->copied = (size_t)(g->htop - to) + (size_t)(g->ohtop - promoted);

    p->heap = to;
    p->htop = g->htop;
    p->stop = nstop;
    p->hend = to + size;
    p->high_water = p->htop;           /* everything here has survived once */
}

_Atomic UWord gc_total_collections, gc_total_reclaimed;

/* Limits (mem_limit.h). A process that cannot have the memory it needs is
 * marked to die (gc.h); the report goes out now, while its heap still shows
 * what it was doing. */
void gc_out_of_memory(Process *p, int why)
{
    if (p->out_of_memory)
        return;
    p->out_of_memory = (unsigned char)why;
    mem_report(p, why);
}

/* Would `more` words for p take all process heaps over the VM's ceiling,
 * with p the one to die for it? */
static int over_ceiling_by(Process *p, size_t more)
{
    size_t ceiling = mem_ceiling_words();
    if (!ceiling || !more)
        return 0;
    size_t total = atomic_load_explicit(&mem_process_words, memory_order_relaxed);
    if (total + more <= ceiling)
        return 0;
    return !mem_ceiling_reached(p, more);
}

/* The same for a young block of `words` in place of the one p has. */
static int over_ceiling(Process *p, size_t words)
{
    size_t have = gc_heap_size(p);
    return words > have && over_ceiling_by(p, words - have);
}

/* A collection that cannot get memory leaves the process as it found it. */
static void unmark_frags(Process *p)
{
    p->mbuf = message_list_reversed(p->mbuf);  /* newest first again */
    for (HeapFrag *f = p->mbuf; f; f = f->next)
        f->size &= ~FRAG_IN_GC;
}

UWord gc_collect(Process *p, size_t need, int live, int major)
{
    if (live < 0 || live > MAX_REG)
        gc_fatal("bad number of live registers", (Term)live);
    if (p->out_of_memory)                      /* dying: nothing more for it */
        return 1;
    size_t stack = (size_t)(p->hend - p->stop);
    size_t young_used = (size_t)(p->htop - p->heap);
    size_t mature = (size_t)(p->high_water - p->heap);
    size_t old_used = p->old_heap ? (size_t)(p->old_htop - p->old_heap) : 0;
    /* Fragments in the message arena are marked; the others are listed. On
     * the way the list is turned oldest first, the order they are freed in at
     * the end (heap_free_frags says why; done here, it costs no second walk). */
    /* pool.c publishes hi (and the chunk table pool_arena_frag reads) by
     * storing lo with release: lo is read with acquire, or they may be stale */
    uintptr_t alo = smp_load_acquire(&pool_arena_lo);
    uintptr_t ahi = alo ? smp_load_relaxed(&pool_arena_hi) : 0;
    size_t frag_used = 0, nfrags = 0;
    HeapFrag *oldest_first = NULL;
    for (HeapFrag *f = p->mbuf, *next; f; f = next) {
        next = f->next;
        frag_used += f->used;
        if ((uintptr_t)f - alo < ahi - alo)
            f->size |= FRAG_IN_GC;
        else
            nfrags++;
        f->next = oldest_first;
        oldest_first = f;
    }
    p->mbuf = oldest_first;

    if (p->gen_gcs >= p->max_gen_gcs)
        major = 1;
#if GC_STRESS
    /* Exercise both kinds, but force majors only while the old heap is
     * small: a forced major copies everything, and one every 64 collections
     * of a heap that keeps growing makes a long loop quadratic. Large heaps
     * still have majors, from the normal rule (the old heap is full). */
    if ((p->gc.minor + p->gc.major) % 64 == 63 && old_used < GC_STRESS_MAJOR_WORDS)
        major = 1;
#endif
    if (!major && mature > 0) {
        if (!p->old_heap) {
            size_t sz = gc_next_heap_size(young_used);
            Term *old = over_ceiling_by(p, sz) ? NULL : heap_block_alloc(sz);
            if (old) {
                p->old_heap = p->old_htop = old;
                p->old_hend = old + sz;
            } else {
                major = 1;
            }
        } else if ((size_t)(p->old_hend - p->old_htop) < mature) {
            major = 1;
        }
    }

    FragRange *frags = NULL;
    if (nfrags) {
        frags = malloc(nfrags * sizeof *frags);
        if (!frags) {
            unmark_frags(p);
            gc_out_of_memory(p, OOM_NOMEM);
            return 1;                          /* failed: nothing changed */
        }
        size_t i = 0;
        for (HeapFrag *f = p->mbuf; f; f = f->next) {
            if (f->size & FRAG_IN_GC)
                continue;
            frags[i].lo = (uintptr_t)f->mem;
            frags[i].hi = (uintptr_t)(f->mem + f->used);
            frags[i].end = (uintptr_t)(f->mem + f->size);
            i++;
        }
        qsort(frags, nfrags, sizeof *frags, frag_cmp);
    }

    /* A minor's block stays the same size in the steady state (young data
     * + stack fill the block when it is full). A major is sized so that
     * all-live data needs no second pass to grow; if most of it is garbage,
     * the second pass that shrinks the block copies little. */
    size_t upper = young_used + frag_used + stack;
    if (major) {
        upper += old_used;
        upper += upper / 3;
    }
    /* A process that collects at all gets Erlang's smallest heap (233
     * words) from its first collection on: a 55-word heap that fills again
     * within a few dozen allocations makes the fixed cost of a collection
     * the main cost of a loop. One that never collects (most idle
     * processes) keeps its 55 words. */
    if (p->min_heap_size < GC_GROWN_MIN_HEAP)
        p->min_heap_size = GC_GROWN_MIN_HEAP;
    size_t size = gc_next_heap_size(upper);
    if (size < p->min_heap_size)
        size = p->min_heap_size;
    /* a collection that comes before the block is full (off-heap binaries,
     * message fragments, garbage_collect/0) keeps a small block too */
    size_t current = (size_t)(p->hend - p->heap);
    if (size < current && current <= SHRINK_ABOVE_WORDS)
        size = current;
    size_t room = dict_room(p, major ? 0 : old_used);
    if (size < room)
        size = room;
    int refused = over_ceiling(p, size);
    Term *to = refused ? NULL : heap_block_alloc(size);
    if (!to) {
        free(frags);
        unmark_frags(p);
        gc_out_of_memory(p, refused ? OOM_CEILING : OOM_NOMEM);
        return 1;                              /* failed: nothing changed */
    }

    Gc g = {0};
    g.major = major;
    g.alo = alo;
    g.ahi = ahi;
    g.ylo = (uintptr_t)p->heap;
    g.yhi = (uintptr_t)p->htop;
    g.yend = (uintptr_t)p->hend;
    g.hw = major ? g.ylo : (uintptr_t)p->high_water;
    if (p->old_heap) {
        g.olo = (uintptr_t)p->old_heap;
        g.ohi = (uintptr_t)p->old_htop;
        g.oend = (uintptr_t)p->old_hend;
    }
    if (!major) {
        g.ohtop = p->old_htop;
        g.olimit = p->old_hend;
    }
    g.frags = frags;
    g.nfrags = nfrags;
    if (nfrags) {
        g.flo = frags[0].lo;
        g.fhi = 0;
        for (size_t i = 0; i < nfrags; i++)
            if (frags[i].end > g.fhi)
                g.fhi = frags[i].end;
    }

    Term *from = p->heap;
    size_t from_size = (size_t)(p->hend - p->heap);
    copy_pass(&g, p, live, to, size);
    sweep_mso(&g, p);
    heap_block_free(from, from_size);
    free(frags);
    heap_frag_free(p->mbuf);                   /* oldest first, see above */
    p->mbuf = NULL;
    p->mbuf_words = 0;
    if (major) {
        if (p->old_heap)
            heap_block_free(p->old_heap, (size_t)(p->old_hend - p->old_heap));
        p->old_heap = p->old_htop = p->old_hend = NULL;
    } else if (p->old_heap) {
        p->old_htop = g.ohtop;
    }

    /* Resize: keep live + stack + need between 25% and 75% of the block. */
    size_t copied = g.copied;
    size_t live_words = (size_t)(p->htop - p->heap);
    size_t need_after = live_words + stack;
    need_after = need > SIZE_MAX / 2 - need_after ? SIZE_MAX / 2 : need_after + need;
    size_t target = size;
    if (need_after > size / 4 * 3) {
        target = gc_next_heap_size(need_after + need_after / 3);
    } else if (size > p->min_heap_size && size > SHRINK_ABOVE_WORDS && need_after < size / 4) {
        target = gc_next_heap_size(2 * need_after);
        if (target < p->min_heap_size)
            target = p->min_heap_size;
        size_t floor = nursery_floor(p);
        if (target < floor)
            target = floor < size ? floor : size;
    }
    if (target != size) {
        refused = target > size && over_ceiling(p, target);
        Term *block = refused ? NULL : heap_block_alloc(target);
        if (block && target >= stack + live_words) {
            Gc g2 = {0};                       /* young only, nothing promoted */
            g2.ylo = g2.hw = (uintptr_t)p->heap;
            g2.yhi = (uintptr_t)p->htop;
            g2.yend = (uintptr_t)p->hend;
            if (p->old_heap) {
                g2.olo = (uintptr_t)p->old_heap;
                g2.ohi = (uintptr_t)p->old_htop;
                g2.oend = (uintptr_t)p->old_hend;
            }
            from = p->heap;
            copy_pass(&g2, p, live, block, target);
            sweep_mso(&g2, p);
            heap_block_free(from, size);
            copied += g2.copied;
        } else {
            heap_block_free(block, target);         /* keep the block we have */
        }
    }

    size_t before = young_used + frag_used + (major ? old_used : 0);
    p->gc.words_reclaimed += before - g.copied;
    atomic_fetch_add_explicit(&gc_total_collections, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&gc_total_reclaimed, before - g.copied, memory_order_relaxed);
    if (major) {
        p->gc.major++;
        p->gen_gcs = 0;
    } else {
        p->gc.minor++;
        p->gen_gcs++;
    }
    p->gc_last_copied = copied;
    mem_publish(p);
    if (!gc_has_room(p, need))                 /* the bigger block was refused */
        gc_out_of_memory(p, refused ? OOM_CEILING : OOM_NOMEM);
    else if (p->max_heap_size && gc_total_heap_size(p) > p->max_heap_size) {
        if (p->max_heap_log)
            mem_report(p, OOM_MAX_HEAP);
        if (p->max_heap_kill)
            p->out_of_memory = OOM_MAX_HEAP;
    }
    return (copied + stack) / 10 + 1;
}

UWord gc_ensure(Process *p, size_t need, int live)
{
#if !GC_STRESS
    if (gc_has_room(p, need) &&
        p->mbuf_words <= gc_heap_size(p) / FRAG_PRESSURE_DIVISOR &&
        !binary_gc_due(p))                     /* off-heap binaries count too */
        return 0;
#endif
    return gc_collect(p, need, live, 0);
}

void gc_full(Process *p, int live)
{
    gc_collect(p, 0, live, 1);
}
