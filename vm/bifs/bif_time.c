/* bif_time.c — BIFs about time: timers (send_after, start_timer,
 * cancel_timer, read_timer), clocks (now, timestamp, monotonic_time,
 * system_time, convert_time_unit) and unique_integer. The machinery is in
 * timer.c and unique.c; these check arguments and shape results as Erlang
 * does.
 *
 * What each clock shares between schedulers, and why:
 *  - monotonic_time, system_time, timestamp: a vDSO clock read, nothing.
 *  - unique_integer(), unique_integer([positive]), make_ref: a per-thread
 *    sequence tagged with the scheduler (unique.h), nothing.
 *  - unique_integer([monotonic]) and now/0 promise a total order over the
 *    whole VM (strictly increasing, each value once): one shared atomic,
 *    touched once per call. No scheme without one can keep the promise:
 *    two schedulers reading the same microsecond, or one handing out values
 *    ahead of the clock (calls more often than once a microsecond), must
 *    learn of each other's last value. now/0 reads the clock before the
 *    atomic and then does one fetch-and-add (ahead of the clock) or one
 *    compare-and-swap (behind it).
 */
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>

#include "bif.h"
#include "smp.h"
#include "term_build.h"
#include "atom.h"
#include "proc.h"
#include "timer.h"
#include "unique.h"
#include "arith.h"

static Term new_ref(Process *p, uint64_t n) { return make_ref_at(heap_alloc(p, REF_WORDS), n); }

/* ---- timers ---- */

static int timer_args(Term time, Term dest) {
    return is_small(time) && small_val(time) >= 0 && small_val(time) <= 4294967295LL &&
           (is_pid(dest) || is_atom(dest));
}

Term bif_send_after_3(Process *p, Term *args) {
    if (!timer_args(args[0], args[1])) BIF_ERROR(p, AM_badarg);
    uint64_t ref = proc_new_ref();
    timer_add_message((uint64_t)small_val(args[0]), args[1], proc_message_copy(args[2]), ref);
    return new_ref(p, ref);
}

Term bif_start_timer_3(Process *p, Term *args) {
    if (!timer_args(args[0], args[1])) BIF_ERROR(p, AM_badarg);
    uint64_t ref = proc_new_ref();
    timer_add_message((uint64_t)small_val(args[0]), args[1], proc_message_timeout(ref, args[2]), ref);
    return new_ref(p, ref);
}

static Term left_term(int64_t left) { return left < 0 ? AM_false : make_small(left); }

Term bif_cancel_timer_1(Process *p, Term *args) {
    if (!is_ref(args[0])) BIF_ERROR(p, AM_badarg);
    return left_term(timer_cancel(ref_number(args[0])));
}

Term bif_read_timer_1(Process *p, Term *args) {
    if (!is_ref(args[0])) BIF_ERROR(p, AM_badarg);
    return left_term(timer_read(ref_number(args[0])));
}

/* Options of cancel_timer/2 and read_timer/2: {async, Bool}, and for
 * cancel_timer {info, Bool}; the last of each counts, as in Erlang. */
static int timer_opts(Term l, int allow_info, int *async, int *info) {
    for (; is_list(l); l = list_tail(l)) {
        Term o = list_head(l);
        if (!is_tuple(o) || tuple_arity(o) != 2) return 0;
        Term k = tuple_elems(o)[0], v = tuple_elems(o)[1];
        if (v != AM_true && v != AM_false) return 0;
        if (k == ATOM_TERM(async)) *async = v == AM_true;
        else if (k == ATOM_TERM(info) && allow_info) *info = v == AM_true;
        else return 0;
    }
    return is_nil(l);
}

/* {Tag, Ref, Result} to the caller, as the async forms answer */
static void timer_answer(Process *p, Term tag, Term ref, Term result) {
    proc_send(p, p->pid, tuple3(p, tag, ref, result));
}

Term bif_cancel_timer_2(Process *p, Term *args) {
    int async = 0, info = 1;
    if (!is_ref(args[0]) || !timer_opts(args[1], 1, &async, &info)) BIF_ERROR(p, AM_badarg);
    Term r = left_term(timer_cancel(ref_number(args[0])));
    if (async) {
        if (info) timer_answer(p, ATOM_TERM(cancel_timer), args[0], r);
        return AM_ok;
    }
    return info ? r : AM_ok;
}

Term bif_read_timer_2(Process *p, Term *args) {
    int async = 0, info = 1;
    if (!is_ref(args[0]) || !timer_opts(args[1], 0, &async, &info)) BIF_ERROR(p, AM_badarg);
    Term r = left_term(timer_read(ref_number(args[0])));
    if (async) {
        timer_answer(p, ATOM_TERM(read_timer), args[0], r);
        return AM_ok;
    }
    return r;
}

/* ---- clocks ---- */

static int64_t wall_us(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

static Term mega_secs_micro(Process *p, int64_t us) {
    return tuple3(p, make_small(us / 1000000000000LL), make_small((us / 1000000) % 1000000),
                  make_small(us % 1000000));
}

/* erlang:now/0 is unique and strictly increasing across the VM, as Erlang
 * promises: the clock, or one more than the last value handed out. Every
 * value returned is one that `last` was set to by this call, and `last`
 * only grows, so values are unique and increase in real time. When calls
 * come faster than once a microsecond, `last` is ahead of the clock and a
 * call is one fetch-and-add (no compare-and-swap to lose to another
 * scheduler and retry); otherwise one compare-and-swap moves it up to the
 * clock. */
Term bif_now_0(Process *p, Term *args) {
    (void)args;
    static _Alignas(CACHE_LINE) _Atomic int64_t last;
    int64_t us = wall_us();
    for (;;) {
        int64_t prev = atomic_load_explicit(&last, memory_order_relaxed);
        if (prev >= us) {
            us = atomic_fetch_add_explicit(&last, 1, memory_order_relaxed) + 1;
            break;
        }
        if (atomic_compare_exchange_weak_explicit(&last, &prev, us, memory_order_relaxed,
                                                  memory_order_relaxed))
            break;
    }
    return mega_secs_micro(p, us);
}

Term bif_timestamp_0(Process *p, Term *args) { (void)args; return mega_secs_micro(p, wall_us()); }

/* Native time unit: nanoseconds. */
static int unit_per_second(Term unit, int64_t *per) {
    if (is_small(unit) && small_val(unit) > 0) { *per = small_val(unit); return 1; }
    if (unit == ATOM_TERM(second) || unit == ATOM_TERM(seconds)) *per = 1;
    else if (unit == ATOM_TERM(millisecond) || unit == ATOM_TERM(milli_seconds)) *per = 1000;
    else if (unit == ATOM_TERM(microsecond) || unit == ATOM_TERM(micro_seconds)) *per = 1000000;
    else if (unit == ATOM_TERM(nanosecond) || unit == ATOM_TERM(nano_seconds) ||
             unit == ATOM_TERM(native) || unit == ATOM_TERM(perf_counter)) *per = 1000000000;
    else return 0;
    return 1;
}

static Term in_unit(Process *p, int64_t ns, Term unit) {
    int64_t per;
    if (is_big(unit) && !big_is_neg(unit) && ns >= 0)    /* parts per second past 2^60, as OTP */
        return arith_idiv(p, arith_mul(p, make_integer(p, ns), unit), make_integer(p, 1000000000));
    if (!unit_per_second(unit, &per)) BIF_ERROR(p, AM_badarg);
    /* floor division, as erlang:convert_time_unit */
    __int128 v = (__int128)ns * per;
    int64_t q = (int64_t)(v / 1000000000);
    if (v % 1000000000 < 0) q--;
    return make_integer(p, q);
}

static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t system_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

Term bif_monotonic_time_0(Process *p, Term *args) { (void)args; return make_integer(p, monotonic_ns()); }
Term bif_monotonic_time_1(Process *p, Term *args) { return in_unit(p, monotonic_ns(), args[0]); }
Term bif_system_time_0(Process *p, Term *args) { (void)args; return make_integer(p, system_ns()); }
Term bif_system_time_1(Process *p, Term *args) { return in_unit(p, system_ns(), args[0]); }
Term bif_os_system_time_1(Process *p, Term *args) { return in_unit(p, system_ns(), args[0]); }
Term bif_convert_time_unit_3(Process *p, Term *args) {
    int64_t from, to, v;
    if (!term_to_int64(args[0], &v) || !unit_per_second(args[1], &from) || !unit_per_second(args[2], &to))
        BIF_ERROR(p, AM_badarg);
    __int128 r = (__int128)v * to;
    int64_t q = (int64_t)(r / from);
    if (r % from < 0) q--;
    return make_integer(p, q);
}

/* ---- unique integers ---- */

/* unique_integer/0,1: [monotonic] is strictly increasing across the VM
 * (one shared counter); otherwise unique only, from this scheduler's own
 * sequence. Every value is positive, so [positive] changes nothing. */
static Term unique_integer(Process *p, Term mods) {
    int monotonic = 0;
    for (; is_list(mods); mods = list_tail(mods)) {
        Term m = list_head(mods);
        if (m == ATOM_TERM(monotonic)) monotonic = 1;
        else if (m != ATOM_TERM(positive)) BIF_ERROR(p, AM_badarg);
    }
    if (!is_nil(mods)) BIF_ERROR(p, AM_badarg);
    uint64_t n = monotonic ? unique_monotonic() : unique_next();
    return make_integer(p, (int64_t)n);
}

Term bif_unique_integer_0(Process *p, Term *args) { (void)args; return unique_integer(p, NIL); }
Term bif_unique_integer_1(Process *p, Term *args) { return unique_integer(p, args[0]); }

/* ---- calendar time: date/0, time/0, localtime/0, universaltime/0 and
 * the conversions between local time and UTC (the C library's, with the
 * machine's time zone, as OTP's) ---- */

/* {{Y,M,D},{H,Mi,S}} of a struct tm */
static Term datetime_term(Process *p, const struct tm *t) {
    Term d = tuple3(p, make_small(t->tm_year + 1900), make_small(t->tm_mon + 1), make_small(t->tm_mday));
    Term h = tuple3(p, make_small(t->tm_hour), make_small(t->tm_min), make_small(t->tm_sec));
    return tuple2(p, d, h);
}

static int small_in(Term t, long lo, long hi, int *v) {
    if (!is_small(t) || small_val(t) < lo || small_val(t) > hi) return 0;
    *v = (int)small_val(t);
    return 1;
}

/* {{Y,M,D},{H,Mi,S}} into a struct tm, checked as OTP checks it. */
static int datetime_parse(Term dt, struct tm *t) {
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (!is_tuple(dt) || tuple_arity(dt) != 2) return 0;
    Term d = tuple_elems(dt)[0], h = tuple_elems(dt)[1];
    if (!is_tuple(d) || tuple_arity(d) != 3 || !is_tuple(h) || tuple_arity(h) != 3) return 0;
    int y, mo, da, hh, mi, ss;
    if (!small_in(tuple_elems(d)[0], 0, 1L << 30, &y) ||
        !small_in(tuple_elems(d)[1], 1, 12, &mo) || !small_in(tuple_elems(d)[2], 1, 31, &da) ||
        !small_in(tuple_elems(h)[0], 0, 23, &hh) || !small_in(tuple_elems(h)[1], 0, 59, &mi) ||
        !small_in(tuple_elems(h)[2], 0, 59, &ss))
        return 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (da > mdays[mo - 1] + (mo == 2 && leap)) return 0;
    memset(t, 0, sizeof *t);
    t->tm_year = y - 1900; t->tm_mon = mo - 1; t->tm_mday = da;
    t->tm_hour = hh; t->tm_min = mi; t->tm_sec = ss;
    t->tm_isdst = -1;
    return 1;
}

static time_t now_seconds(void) { return (time_t)(system_ns() / 1000000000); }

Term bif_localtime_0(Process *p, Term *args) {
    (void)args;
    time_t s = now_seconds();
    struct tm t;
    localtime_r(&s, &t);
    return datetime_term(p, &t);
}

Term bif_universaltime_0(Process *p, Term *args) {
    (void)args;
    time_t s = now_seconds();
    struct tm t;
    gmtime_r(&s, &t);
    return datetime_term(p, &t);
}

Term bif_date_0(Process *p, Term *args) {
    Term dt = bif_localtime_0(p, args);
    return tuple_elems(dt)[0];
}

Term bif_time_0(Process *p, Term *args) {
    Term dt = bif_localtime_0(p, args);
    return tuple_elems(dt)[1];
}

Term bif_universaltime_to_localtime_1(Process *p, Term *args) {
    struct tm t;
    if (!datetime_parse(args[0], &t)) BIF_ERROR(p, AM_badarg);
    time_t s = timegm(&t);
    localtime_r(&s, &t);
    return datetime_term(p, &t);
}

/* localtime_to_universaltime/1,2: IsDst true/false/undefined as mktime's
 * tm_isdst 1/0/-1 */
static Term local_to_universal(Process *p, Term dt, int isdst) {
    struct tm t;
    if (!datetime_parse(dt, &t)) BIF_ERROR(p, AM_badarg);
    t.tm_isdst = isdst;
    time_t s = mktime(&t);
    gmtime_r(&s, &t);
    return datetime_term(p, &t);
}

Term bif_localtime_to_universaltime_1(Process *p, Term *args) {
    return local_to_universal(p, args[0], -1);
}

Term bif_localtime_to_universaltime_2(Process *p, Term *args) {
    Term d = args[1];
    if (d != AM_true && d != AM_false && d != AM_undefined) BIF_ERROR(p, AM_badarg);
    return local_to_universal(p, args[0], d == AM_true ? 1 : d == AM_false ? 0 : -1);
}

Term bif_universaltime_to_posixtime_1(Process *p, Term *args) {
    struct tm t;
    if (!datetime_parse(args[0], &t)) BIF_ERROR(p, AM_badarg);
    return make_integer(p, (int64_t)timegm(&t));
}

Term bif_posixtime_to_universaltime_1(Process *p, Term *args) {
    int64_t v;
    if (!term_to_int64(args[0], &v)) BIF_ERROR(p, AM_badarg);
    time_t s = (time_t)v;
    struct tm t;
    if (!gmtime_r(&s, &t)) BIF_ERROR(p, AM_badarg);
    return datetime_term(p, &t);
}

/* time_offset/0,1: erlang:system_time() - erlang:monotonic_time(), which
 * is what the two clocks above differ by (both in nanoseconds here). */
static int64_t time_offset_ns(void) { return system_ns() - monotonic_ns(); }
Term bif_time_offset_0(Process *p, Term *args) { (void)args; return make_integer(p, time_offset_ns()); }
Term bif_time_offset_1(Process *p, Term *args) { return in_unit(p, time_offset_ns(), args[0]); }
