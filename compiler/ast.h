/* ast.h — the abstract syntax tree of a Mini module.
 *
 * The parser (parser.y) builds it, check.c verifies it, codegen.c turns it into
 * bytecode. Every node lives in Boehm GC memory (ast_alloc), so nobody frees
 * anything: a module's tree is dropped by dropping the pointer to it.
 *
 * Positions: every node carries the 1-based line and column of its first token.
 * Names (atoms, variables) are interned C strings (ast_intern), so two equal
 * names are the same pointer and may be compared with ==.
 */
#ifndef MINI_AST_H
#define MINI_AST_H

#include <stddef.h>
#include <stdint.h>

typedef struct Expr Expr;
typedef struct Clause Clause;

typedef enum {
    /* literals and variables */
    E_VAR,        /* name; "_" is the anonymous variable                   */
    E_ATOM,       /* name                                                  */
    E_INT,        /* ival, or big (digits in base, sign) when |v| >= 2^63    */
    E_FLOAT,      /* fval                                                  */
    E_STRING,     /* str/len: character codes of a string literal; adjacent
                     literals are already joined by the parser              */
    E_NIL,        /* []                                                    */
    E_CONS,       /* a = head, b = tail: [H|T]; [1,2,3] is nested E_CONS   */
    E_TUPLE,      /* elems/n                                               */
    /* operators */
    E_MATCH,      /* a = b (pattern a, expression b)                        */
    E_BINOP,      /* op, a, b: arithmetic, comparison, bitwise, and/or/xor,
                     ++, --, ! (send)                                       */
    E_UNOP,       /* op, a: - + bnot not                                   */
    E_ANDALSO,    /* a andalso b                                           */
    E_ORELSE,     /* a orelse b                                            */
    /* calls */
    E_CALL,       /* local call name(args) when mod == NULL and fun == NULL;
                     remote call mod:name(args) when mod != NULL (mod and
                     name are then any expressions, usually E_ATOM);
                     fun call F(args) when fun != NULL                       */
    E_FUNREF,     /* fun name/arity (mod == NULL) or fun mod:name/arity     */
    E_FUN,        /* fun (Args) -> Body ; ... end: clauses/nclauses;
                     name != NULL for a named fun  fun Name(Args) -> ... end */
    /* control */
    E_BLOCK,      /* begin body end: body/nbody                            */
    E_CASE,       /* case a of clauses end                                 */
    E_IF,         /* if clauses end: each clause has no patterns, a guard  */
    E_RECEIVE,    /* receive clauses [after after_expr -> after_body] end  */
    E_TRY,        /* try body [of clauses] [catch catch_clauses] [after after_body] end */
    E_CATCH,      /* catch a                                               */
    E_LC,         /* [a || quals]: quals is a list of E_GENERATOR and plain
                     filter expressions                                    */
    E_GENERATOR,  /* a <- b (pattern a, list expression b), only in E_LC;
                     with bitgen set, a <= b (a binary pattern, b a
                     bitstring expression: a bit-string generator)         */
    /* records, maps, binaries */
    E_RECORD,     /* #name{field = V, ...}: name, fields; a = NULL          */
    E_RECORD_UPDATE, /* a#name{field = V, ...}                             */
    E_RECORD_FIELD,  /* a#name.field  (a == NULL: #name.field, the index)   */
    E_MAP,        /* #{K => V, ...}: fields (assoc or exact); a = NULL      */
    E_MAP_UPDATE, /* a#{K => V, K := V}                                     */
    E_BIN,        /* <<segments>>                                          */
    E_BIN_LC      /* <<a || quals>> (binary comprehension); b is NULL from
                     the parser, and set by code generation to the binary
                     accumulated so far (codegen_ctl.c)                     */
} ExprKind;

/* Operators, by their source spelling's meaning. */
typedef enum {
    OP_ADD, OP_SUB, OP_MUL, OP_FDIV /* / */, OP_IDIV /* div */, OP_REM,
    OP_BAND, OP_BOR, OP_BXOR, OP_BSL, OP_BSR, OP_BNOT,
    OP_NOT, OP_AND, OP_OR, OP_XOR,
    OP_EQ /* == */, OP_NE /* /= */, OP_EXACT_EQ /* =:= */, OP_EXACT_NE /* =/= */,
    OP_LT, OP_GT, OP_LE /* =< */, OP_GE,
    OP_APPEND /* ++ */, OP_SUBTRACT /* -- */, OP_SEND /* ! */,
    OP_NEG /* unary - */, OP_PLUS /* unary + */
} Op;

/* A guard: a disjunction (;) of conjunctions (,) of guard expressions. */
typedef struct Guard {
    int nalts;
    struct GuardAlt { Expr **tests; int ntests; } *alts;
} Guard;

/* A clause of a function, fun, case, receive, if, or try...catch.
 * For catch clauses, the pattern Class:Reason:Stack is stored as patterns[0] =
 * class (E_ATOM or E_VAR; the parser fills in the atom `throw` when the
 * class is omitted), patterns[1] = reason, patterns[2] = stack variable or
 * NULL. npat is 3 for catch clauses. */
struct Clause {
    int line, col;
    Expr **patterns; int npat;
    Guard *guard;            /* NULL when there is no `when` */
    Expr **body; int nbody;  /* at least one expression */
};

/* A field of a record or map expression, or a binary segment. */
typedef struct Field {
    int line, col;
    const char *name;        /* record field name (interned); "_" for `_ = V` */
    Expr *key;               /* map key                                       */
    Expr *value;             /* record/map value, binary segment value        */
    int exact;               /* map: 1 for :=, 0 for =>                        */
    Expr *size;              /* binary segment size or NULL                   */
    const char **types; int ntypes; /* binary segment type specifiers, e.g.
                                       "integer","big","signed","unit:8" */
} Field;

struct Expr {
    ExprKind kind;
    int line, col;
    const char *name;        /* E_VAR, E_ATOM, E_CALL (local), E_FUNREF, E_FUN
                                (named fun), E_RECORD* (record name)          */
    Op op;                   /* E_BINOP, E_UNOP                               */
    Expr *a, *b;             /* operands, see ExprKind                        */
    Expr *mod;               /* E_CALL / E_FUNREF remote module (E_ATOM) or NULL */
    Expr *fun;               /* E_CALL: the fun expression of F(args), else NULL;
                                for a remote call mod:name(), fun holds the
                                function-name expression (usually E_ATOM)     */
    Expr **elems; int n;     /* E_TUPLE elements, E_CALL args, E_LC quals,
                                E_BLOCK body (also in body/nbody)            */
    Expr **body; int nbody;  /* E_BLOCK, E_TRY body, E_RECEIVE after body    */
    Clause **clauses; int nclauses;   /* E_CASE, E_IF, E_RECEIVE, E_FUN,
                                         E_TRY `of` clauses                  */
    Clause **catches; int ncatches;   /* E_TRY catch clauses                 */
    Expr **after; int nafter;         /* E_TRY after body                    */
    Expr *timeout;                    /* E_RECEIVE after expression or NULL  */
    int arity;               /* E_FUNREF                                      */
    int bitgen;              /* E_GENERATOR: a bit-string generator (<=)      */
    int64_t ival;            /* E_INT when it fits                           */
    const char *big;         /* E_INT that does not fit: digits (no sign,
                                no base prefix, no underscores), else NULL */
    int big_base;            /* base of those digits (2..36)                 */
    int big_neg;             /* always 0 from the parser (unary minus is an
                                E_UNOP); codegen may fold                     */
    double fval;             /* E_FLOAT                                      */
    const int *str; int len; /* E_STRING character codes                     */
    Field *fields; int nfields; /* E_RECORD*, E_MAP*, E_BIN                  */
    /* set by the type pass (types.c) just before code generation */
    unsigned char ty;        /* TY_FLOAT: the value is always a float          */
    unsigned char fvar;      /* E_VAR: a float variable whose every binding is
                                `Var = Expr`, so it may live unboxed          */
};

typedef struct Function {
    int line, col;
    const char *name; int arity;
    Clause **clauses; int nclauses;
} Function;

typedef struct NameArity { const char *name; int arity; int line, col; } NameArity;

typedef struct Import {
    const char *module; NameArity fn;
} Import;

typedef struct RecordDef {
    int line, col;
    const char *name;
    Field *fields; int nfields;   /* name and default value (value may be NULL) */
    const char *text;             /* the form as rl() prints it (parse.c)   */
} RecordDef;

typedef struct Module {
    const char *file;             /* path as given, for messages            */
    const char *src; size_t srclen; /* the source text, for error carets    */
    const char *name;             /* from -module; NULL if missing          */
    int line, col;                /* of the -module attribute               */
    NameArity *exports; int nexports;
    int export_all;               /* -compile(export_all)                   */
    Import *imports; int nimports;
    RecordDef *records; int nrecords;
    Function **functions; int nfunctions;  /* in source order; clauses of one
                                              function are grouped by the parser */
} Module;

/* Memory: everything here is Boehm-allocated and zero-filled. */
void *ast_alloc(size_t size);
/* An operator's source name ("+", "band", "=:=", "++", "!"). */
const char *ast_op_name(Op op);
const char *ast_intern(const char *s, size_t len);
Expr *ast_expr(ExprKind kind, int line, int col);

#endif
