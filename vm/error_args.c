/* error_args.c — the `*** argument N:` notes for a failed BIF (see
 * error_args.h). Each rule is OTP's erl_erts_errors rule for that BIF: the
 * notes are only printed for a call that did fail, so a rule may take the
 * failure for granted (abs/1 failed: its argument was not a number). */
#include <string.h>

#include "error_args.h"
#include "atom.h"
#include "binary.h"
#include "map.h"

static const char NOT_ATOM[] = "not an atom", NOT_BINARY[] = "not a binary",
                  NOT_BITSTRING[] = "not a bitstring", NOT_CONS[] = "not a nonempty list",
                  NOT_FLOAT[] = "not a float", NOT_FUN[] = "not a fun",
                  NOT_INTEGER[] = "not an integer", NOT_LIST[] = "not a list",
                  NOT_PROPER_LIST[] = "not a proper list", NOT_MAP[] = "not a map",
                  NOT_NUMBER[] = "not a number", NOT_PID[] = "not a pid",
                  NOT_TUPLE[] = "not a tuple", NOT_REF[] = "not a reference",
                  NOT_IODATA[] = "not an iodata term", NOT_IOLIST[] = "not an iolist term",
                  RANGE[] = "out of range", BAD_BASE[] = "not an integer in the range 2 through 36",
                  DEAD[] = "the pid does not refer to an existing process";

static int name_is(Term f, const char *s) {
    size_t n;
    const char *t = atom_name(f, &n);
    return n == strlen(s) && memcmp(t, s, n) == 0;
}

static int proper_list_length(Term l) {
    int n = 0;
    for (; is_list(l); l = list_tail(l)) n++;
    return is_nil(l) ? n : -1;
}

static const char *must_be_list(Term l, const char *otherwise) {
    if (!is_list(l) && !is_nil(l)) return NOT_LIST;
    if (proper_list_length(l) < 0) return NOT_PROPER_LIST;
    return otherwise;
}

static const char *must_be_int_range(Term i, long lo, long hi) {
    if (!is_integer(i)) return NOT_INTEGER;
    if (!is_small(i) || small_val(i) < lo || small_val(i) > hi) return RANGE;
    return NULL;
}

static const char *must_be_atom(Term a) { return is_atom(a) ? NULL : NOT_ATOM; }

/* element/2, setelement/3, insert_element/3 and delete_element/2 */
static void index_tuple(Term i, Term t, const char **why) {
    /* OTP's range test reads tuple_size(T): with no tuple it says nothing */
    if (!is_integer(i)) why[0] = NOT_INTEGER;
    else if (is_tuple(t) && (!is_small(i) || small_val(i) <= 0 || small_val(i) > (long)tuple_arity(t)))
        why[0] = RANGE;
    why[1] = is_tuple(t) ? NULL : NOT_TUPLE;
}

static void mf_args(Term m, Term f, Term a, const char **why) {
    why[0] = must_be_atom(m);
    why[1] = must_be_atom(f);
    why[2] = must_be_list(a, NULL);
}

int error_args_explain(Term f, Term args, const char *why[ERROR_ARGS_MAX]) {
    int n = proper_list_length(args);
    if (n < 0 || n > ERROR_ARGS_MAX || !is_atom(f)) return 0;
    Term a[ERROR_ARGS_MAX];
    int k = 0;
    for (Term l = args; is_list(l); l = list_tail(l)) a[k++] = list_head(l);
    for (int i = 0; i < n; i++) why[i] = NULL;

    static const char *const number1[] = { "abs", "float", "round", "trunc", "ceil", "floor", NULL };
    static const char *const atom1[] = { "atom_to_list", "atom_to_binary", "whereis",
                                         "module_loaded", "delete_module", NULL };
    static const char *const tuple1[] = { "tuple_size", "tuple_to_list", NULL };
    static const char *const list1[] = { "length", "list_to_tuple", NULL };
    static const char *const cons1[] = { "hd", "tl", NULL };
    static const char *const bitstring1[] = { "bit_size", "byte_size", "bitstring_to_list", NULL };
    static const char *const pid1[] = { "pid_to_list", "unlink", "is_process_alive", NULL };
    static const char *const ref1[] = { "ref_to_list", "demonitor", "cancel_timer", "read_timer", NULL };
    static const char *const fun1[] = { "spawn", "spawn_link", "spawn_monitor", "fun_to_list", NULL };
    static const char *const iodata1[] = { "iolist_size", "iolist_to_binary", "md5", NULL };
    static const struct { const char *const *names; const char *why; } simple[] = {
        { number1, NOT_NUMBER }, { atom1, NOT_ATOM }, { tuple1, NOT_TUPLE }, { list1, NOT_LIST },
        { cons1, NOT_CONS }, { bitstring1, NOT_BITSTRING }, { pid1, NOT_PID }, { ref1, NOT_REF },
        { fun1, NOT_FUN }, { iodata1, NOT_IODATA },
    };
    if (n == 1)
        for (size_t s = 0; s < sizeof simple / sizeof simple[0]; s++)
            for (const char *const *nm = simple[s].names; *nm; nm++)
                if (name_is(f, *nm)) { why[0] = simple[s].why; return n; }

    if (n == 2 && name_is(f, "element")) index_tuple(a[0], a[1], why);
    else if (n == 3 && (name_is(f, "setelement") || name_is(f, "insert_element"))) index_tuple(a[0], a[1], why);
    else if (n == 2 && name_is(f, "delete_element")) index_tuple(a[0], a[1], why);
    else if (n == 1 && name_is(f, "binary_to_list")) why[0] = NOT_BINARY;
    else if (n == 1 && (name_is(f, "integer_to_list") || name_is(f, "integer_to_binary"))) why[0] = NOT_INTEGER;
    else if (n == 2 && (name_is(f, "integer_to_list") || name_is(f, "integer_to_binary"))) {
        why[0] = is_integer(a[0]) ? NULL : NOT_INTEGER;
        why[1] = must_be_int_range(a[1], 2, 36) ? BAD_BASE : NULL;
    } else if (n == 1 && (name_is(f, "float_to_list") || name_is(f, "float_to_binary"))) why[0] = NOT_FLOAT;
    else if (n == 1 && (name_is(f, "list_to_atom") || name_is(f, "list_to_existing_atom")))
        why[0] = must_be_list(a[0], name_is(f, "list_to_atom") || proper_list_length(a[0]) < 0
                                        ? "not a list of characters" : "not an already existing atom");
    else if (n == 1 && name_is(f, "list_to_integer"))
        why[0] = proper_list_length(a[0]) < 0 ? NOT_LIST : "not a textual representation of an integer";
    else if (n == 1 && name_is(f, "list_to_float"))
        why[0] = proper_list_length(a[0]) < 0 ? NOT_LIST : "not a textual representation of a float";
    else if (n == 1 && name_is(f, "binary_to_integer"))
        why[0] = is_binary(a[0]) ? "not a textual representation of an integer" : NOT_BINARY;
    else if (n == 1 && name_is(f, "binary_to_float"))
        why[0] = is_binary(a[0]) ? "not a textual representation of a float" : NOT_BINARY;
    else if (n == 1 && name_is(f, "binary_to_term"))
        why[0] = is_binary(a[0]) ? "invalid external representation of a term" : NOT_BINARY;
    else if (n == 1 && name_is(f, "list_to_binary")) why[0] = NOT_IOLIST;
    else if (n == 1 && name_is(f, "map_size")) why[0] = NOT_MAP;
    else if (n == 2 && name_is(f, "map_get")) {
        if (is_map_term(a[1])) why[0] = "not present in map";
        else why[1] = NOT_MAP;
    } else if (n == 2 && name_is(f, "is_map_key")) why[1] = NOT_MAP;
    else if (n == 2 && name_is(f, "exit")) why[0] = NOT_PID;
    else if (n == 1 && name_is(f, "link")) why[0] = is_pid(a[0]) ? DEAD : NOT_PID;
    else if (n == 2 && name_is(f, "make_tuple")) why[0] = RANGE;
    else if (n == 2 && (name_is(f, "++") || name_is(f, "append"))) why[0] = NOT_LIST;
    else if (n == 2 && (name_is(f, "--") || name_is(f, "subtract"))) {
        why[0] = must_be_list(a[0], NULL);
        why[1] = must_be_list(a[1], NULL);
    } else if (n == 3 && (name_is(f, "apply") || name_is(f, "spawn") || name_is(f, "spawn_link") ||
                          name_is(f, "spawn_monitor")))
        mf_args(a[0], a[1], a[2], why);
    else if ((n == 3 || n == 4) && (name_is(f, "send_after") || name_is(f, "start_timer"))) {
        why[0] = must_be_int_range(a[0], 0, 0x7fffffffffffffffL) ? (is_integer(a[0]) ? RANGE : NOT_INTEGER) : NULL;
        why[1] = is_pid(a[1]) || is_atom(a[1]) ? NULL : "not a pid or an atom";
    } else if (n == 2 && name_is(f, "register")) {
        why[0] = a[0] == AM_undefined ? "'undefined' is not a valid name" : must_be_atom(a[0]);
        why[1] = is_pid(a[1]) || is_port(a[1]) ? NULL : "not a pid or port";
        if (!why[0] && !why[1]) why[0] = "name is in use";
    } else if (n == 1 && name_is(f, "unregister")) why[0] = NOT_PID;
    else if (n == 1 && name_is(f, "halt")) why[0] = "invalid status";
    else if (n == 2 && name_is(f, "split_binary")) {
        if (!is_binary(a[0])) why[0] = NOT_BINARY;
        else why[1] = must_be_int_range(a[1], 0, 0x7fffffffffffffffL) ? NOT_INTEGER : RANGE;
    } else if (n == 2 && (name_is(f, "group_leader"))) {
        why[0] = is_pid(a[0]) ? NULL : NOT_PID;
        why[1] = is_pid(a[1]) ? NULL : NOT_PID;
    } else if (n == 1 && name_is(f, "process_info")) why[0] = is_pid(a[0]) ? NULL : NOT_PID;
    else if (n == 2 && name_is(f, "process_info")) why[is_pid(a[0]) ? 1 : 0] = is_pid(a[0]) ? "invalid item or item list" : NOT_PID;
    else if (n == 2 && name_is(f, "send")) why[0] = "invalid destination";
    else return 0;
    return n;
}
