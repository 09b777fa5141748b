/* bif_code.c — BIFs about funs, modules and exports: fun_info/1,2,
 * fun_info_mfa/1, fun_to_list/1, make_fun/3, function_exported/3,
 * is_builtin/3, module_loaded/1, code:ensure_loaded/1, and the text forms
 * of references (ref_to_list/1, list_to_ref/1); also bump_reductions/1. */
#include <stdlib.h>
#include <string.h>

#include "bif.h"
#include "atom.h"
#include "binary.h"
#include "loader.h"
#include "module.h"
#include "num_text.h"
#include "outbuf.h"
#include "print.h"
#include "proc.h"
#include "term_build.h"

/* The items fun_info/1 lists, in OTP's order for each kind of fun. */
static const char *const local_items[] = { "pid", "module", "new_index", "new_uniq", "index",
                                           "uniq", "name", "arity", "env", "type", NULL };
static const char *const external_items[] = { "module", "name", "arity", "env", "type", NULL };

/* {Item, Value} for fun f, or THE_NON_VALUE for an unknown item. */
static Term fun_item(Process *p, Term f, Term item) {
    Term *b = boxed_ptr(f);
    Term v;
    if (boxed_kind(f) == BOXED_EXPORT) {
        const Export *e = (const Export *)b[1];
        if (item == atom_intern_cstr("pid")) v = AM_undefined;
        else if (item == atom_intern_cstr("module")) v = e->module;
        else if (item == atom_intern_cstr("name")) v = e->name;
        else if (item == atom_intern_cstr("arity")) v = make_small(e->arity);
        else if (item == atom_intern_cstr("env")) v = NIL;
        else if (item == atom_intern_cstr("type")) v = atom_intern_cstr("external");
        else return THE_NON_VALUE;
        return tuple2(p, item, v);
    }
    const FunEntry *fe = (const FunEntry *)b[1];
    if (item == atom_intern_cstr("pid")) v = p->pid;   /* the fun's creator is not kept: the caller */
    else if (item == atom_intern_cstr("module")) v = fe->module;
    else if (item == atom_intern_cstr("new_index") || item == atom_intern_cstr("index")) v = make_small(fe->index);
    else if (item == atom_intern_cstr("new_uniq")) {
        unsigned char u[16] = { 0 };
        for (int i = 0; i < 8; i++) u[i] = (unsigned char)(fe->uniq >> (8 * i));
        v = bin_from_bytes(p, u, 16);
    } else if (item == atom_intern_cstr("uniq")) v = make_small((SWord)(fe->uniq & 0x7FFFFFF));
    else if (item == atom_intern_cstr("name")) v = fe->name;
    else if (item == atom_intern_cstr("arity")) v = make_small(fe->arity);
    else if (item == atom_intern_cstr("env")) {
        v = NIL;
        for (int i = fe->nfree - 1; i >= 0; i--) v = cons(p, b[2 + i], v);
    } else if (item == atom_intern_cstr("type")) v = atom_intern_cstr("local");
    else return THE_NON_VALUE;
    return tuple2(p, item, v);
}

Term bif_fun_info_2(Process *p, Term *args) {
    if (!is_fun(args[0]) || !is_atom(args[1])) BIF_ERROR(p, AM_badarg);
    Term r = fun_item(p, args[0], args[1]);
    if (r == THE_NON_VALUE) BIF_ERROR(p, AM_badarg);
    return r;
}

Term bif_fun_info_1(Process *p, Term *args) {
    if (!is_fun(args[0])) BIF_ERROR(p, AM_badarg);
    const char *const *items = boxed_kind(args[0]) == BOXED_EXPORT ? external_items : local_items;
    int n = 0;
    while (items[n]) n++;
    Term l = NIL;
    for (int i = n - 1; i >= 0; i--) l = cons(p, fun_item(p, args[0], atom_intern_cstr(items[i])), l);
    return l;
}

Term bif_fun_info_mfa_1(Process *p, Term *args) {
    Term f = args[0];
    if (!is_fun(f)) BIF_ERROR(p, AM_badarg);
    if (boxed_kind(f) == BOXED_EXPORT) {
        const Export *e = (const Export *)boxed_ptr(f)[1];
        return tuple3(p, e->module, e->name, make_small(e->arity));
    }
    const FunEntry *fe = (const FunEntry *)boxed_ptr(f)[1];
    return tuple3(p, fe->module, fe->name, make_small(fe->arity));
}

/* A term's ~w text as a character list (fun_to_list, ref_to_list). */
static Term written(Process *p, Term t) {
    OutBuf b;
    ob_init(&b);
    print_term(&b, t, PRINT_WRITE);
    Term r = chars_to_term_list(p, b.buf ? b.buf : "", b.len);
    ob_free(&b);
    return r;
}

Term bif_fun_to_list_1(Process *p, Term *args) {
    if (!is_fun(args[0])) BIF_ERROR(p, AM_badarg);
    return written(p, args[0]);
}

Term bif_ref_to_list_1(Process *p, Term *args) {
    if (!is_ref(args[0])) BIF_ERROR(p, AM_badarg);
    return written(p, args[0]);
}

/* list_to_ref("#Ref<0.0.0.N>"): the references this VM prints */
Term bif_list_to_ref_1(Process *p, Term *args) {
    char buf[96];
    size_t n = 0;
    Term l = args[0];
    for (; is_list(l) && n + 1 < sizeof buf; l = list_tail(l)) {
        Term c = list_head(l);
        if (!is_small(c) || small_val(c) < 0 || small_val(c) > 127) BIF_ERROR(p, AM_badarg);
        buf[n++] = (char)small_val(c);
    }
    buf[n] = 0;
    unsigned long long w[4];
    int used = 0;
    if (!is_nil(l) || sscanf(buf, "#Ref<%llu.%llu.%llu.%llu>%n", &w[0], &w[1], &w[2], &w[3], &used) != 4 ||
        (size_t)used != n || w[0] != 0 || w[1] != 0 || w[2] != 0)
        BIF_ERROR(p, AM_badarg);
    return make_ref_at(heap_alloc(p, REF_WORDS), (uint64_t)w[3]);
}

Term bif_make_fun_3(Process *p, Term *args) {
    if (!is_atom(args[0]) || !is_atom(args[1]) || !is_small(args[2]) || small_val(args[2]) < 0 ||
        small_val(args[2]) > 255)
        BIF_ERROR(p, AM_badarg);
    Export *e = export_get(args[0], args[1], (int)small_val(args[2]));
    Term *hp = heap_alloc(p, 2);
    hp[0] = make_header(1, BOXED_EXPORT);
    hp[1] = (Term)e;
    return make_boxed(hp);
}

/* function_exported(M, F, A): M is loaded and exports F/A, or F/A is a BIF
 * (OTP says true for those too); loads nothing. */
Term bif_function_exported_3(Process *p, Term *args) {
    if (!is_atom(args[0]) || !is_atom(args[1]) || !is_small(args[2]) || small_val(args[2]) < 0)
        BIF_ERROR(p, AM_badarg);
    if (small_val(args[2]) > 255) return AM_false;
    Export *e = export_get(args[0], args[1], (int)small_val(args[2]));
    return e->bif || e->special || (export_code(e) && module_find(args[0])) ? AM_true : AM_false;
}

Term bif_is_builtin_3(Process *p, Term *args) {
    if (!is_atom(args[0]) || !is_atom(args[1]) || !is_small(args[2]) || small_val(args[2]) < 0)
        BIF_ERROR(p, AM_badarg);
    if (small_val(args[2]) > 255) return AM_false;
    Export *e = export_get(args[0], args[1], (int)small_val(args[2]));
    return e->bif || e->special ? AM_true : AM_false;
}

Term bif_module_loaded_1(Process *p, Term *args) {
    if (!is_atom(args[0])) BIF_ERROR(p, AM_badarg);
    return module_find(args[0]) ? AM_true : AM_false;
}

/* code:ensure_loaded(M): {module, M}, or {error, nofile} when no file of
 * that name is on the code path (or it does not compile) */
Term bif_code_ensure_loaded_1(Process *p, Term *args) {
    if (!is_atom(args[0])) BIF_ERROR(p, AM_badarg);
    if (module_find(args[0]) || module_ensure_loaded(args[0]))
        return tuple2(p, atom_intern_cstr("module"), args[0]);
    return tuple2(p, AM_error, atom_intern_cstr("nofile"));
}

Term bif_bump_reductions_1(Process *p, Term *args) {
    if (!is_small(args[0]) || small_val(args[0]) < 0) BIF_ERROR(p, AM_badarg);
    SWord n = small_val(args[0]);
    p->reds -= n > 1000000 ? 1000000 : n;
    return AM_true;
}

/* get_module_info(M, Item), what module_info/1 of every module returns
 * (compile.c adds module_info/0,1): module, exports ({F, A} of the
 * exported functions), functions (all, with the compiler's own), and
 * attributes, compile and md5, which Mini does not keep ([], [], 16 zero
 * bytes). badarg for a module not loaded or another item. */
static Term module_item(Process *p, LoadedModule *m, Term item) {
    if (item == atom_intern_cstr("module")) return m->name;
    int exports = item == atom_intern_cstr("exports");
    if (exports || item == atom_intern_cstr("functions")) {
        Term l = NIL;
        for (int i = m->nfunctions - 1; i >= 0; i--) {
            const FunctionInfo *fi = &m->functions[i];
            if (exports) {
                const Instr *c = export_code(export_get(m->name, fi->name, fi->arity));
                if (!c || c < m->code || c >= m->code + m->ncode) continue;
            }
            l = cons(p, tuple2(p, fi->name, make_small(fi->arity)), l);
        }
        /* the module's BIFs (math's are all BIFs), as OTP lists them,
         * unless the module's code exports that function itself;
         * names starting with '$' are the runtime's own */
        size_t mlen;
        const char *mname = atom_name(m->name, &mlen);
        for (int i = bif_count - 1; i >= 0; i--) {
            const BifEntry *b = &bif_table[i];
            if (strlen(b->module) != mlen || memcmp(b->module, mname, mlen) != 0 || b->name[0] == '$') continue;
            Term name = atom_intern_cstr(b->name);
            const Instr *c = export_code(export_get(m->name, name, b->arity));
            if (c && c >= m->code && c < m->code + m->ncode) continue;
            l = cons(p, tuple2(p, name, make_small(b->arity)), l);
        }
        return l;
    }
    if (item == atom_intern_cstr("attributes") || item == atom_intern_cstr("compile")) return NIL;
    if (item == atom_intern_cstr("md5")) {
        unsigned char z[16] = { 0 };
        return bin_from_bytes(p, z, 16);
    }
    return THE_NON_VALUE;
}

Term bif_get_module_info_2(Process *p, Term *args) {
    LoadedModule *m = is_atom(args[0]) ? module_find(args[0]) : NULL;
    Term r = m && is_atom(args[1]) ? module_item(p, m, args[1]) : THE_NON_VALUE;
    if (r == THE_NON_VALUE) BIF_ERROR(p, AM_badarg);
    return r;
}

Term bif_get_module_info_1(Process *p, Term *args) {
    LoadedModule *m = is_atom(args[0]) ? module_find(args[0]) : NULL;
    if (!m) BIF_ERROR(p, AM_badarg);
    static const char *const items[] = { "module", "exports", "attributes", "compile", "md5" };
    Term l = NIL;
    for (int i = 4; i >= 0; i--) {
        Term k = atom_intern_cstr(items[i]);
        l = cons(p, tuple2(p, k, module_item(p, m, k)), l);
    }
    return l;
}

/* loaded(): every loaded module */
Term bif_loaded_0(Process *p, Term *args) {
    (void)args;
    Term l = NIL;
    LoadedModule *m;
    for (int i = 0; (m = module_nth(i)) != NULL; i++) l = cons(p, m->name, l);
    return l;
}

/* code:get_path(): the folders modules are looked for in, in search order
 * (the current directory, each -pa folder, then stdlib/ and examples/);
 * application reads NAME.app files from them. */
Term bif_code_get_path_0(Process *p, Term *args) {
    (void)args;
    int n = 0;
    while (module_path_nth(n)) n++;
    Term l = NIL;
    for (int i = n - 1; i >= 0; i--) {
        const char *dir = module_path_nth(i);
        l = cons(p, chars_to_term_list(p, dir, strlen(dir)), l);
    }
    return l;
}
