/* compare.h — Erlang's term order and equality.
 *
 * number < atom < reference < fun < port < pid < tuple < map < [] < list
 * < binary. Numbers compare by value across integers and floats (exactly,
 * also for big integers against floats); atoms by their text; tuples by size,
 * then element by element; lists element by element; pids and ports by
 * number; maps by size, then their keys (exactly), then their values in key
 * order. Nothing here recurses in C on the data: an explicit stack is used.
 */
#ifndef MINI_COMPARE_H
#define MINI_COMPARE_H

#include "term.h"

/* <0, 0 or >0 in the standard term order (== semantics: 1 equals 1.0). */
int term_compare(Term a, Term b);
/* The same order, except that an integer and a float are never equal: all
 * integers sort before all floats (Erlang's map key order, and =:=). */
int term_compare_exact(Term a, Term b);
int term_eq(Term a, Term b);            /* ==  */
int term_eq_exact(Term a, Term b);      /* =:= */
/* =:= with the common case inline: two immediates are equal only if they
 * are the same word, so only two compound terms need the call. */
static inline int terms_exactly_equal(Term a, Term b) {
    return a == b || (!is_immed(a) && !is_immed(b) && term_eq_exact(a, b));
}
/* Two numbers (small, big or float): <0, 0, >0 by value. */
int number_compare(Term a, Term b);

/* Binaries have a layout owned by binary.c, which defines this (until
 * then binaries compare by address). Maps are compared here, on the same
 * work stack as tuples: by size, then keys exactly, then values. */
int term_compare_binaries(Term a, Term b) __attribute__((weak));

#endif
