/* parser.y — the grammar of Mini (Erlang's), one form at a time.
 *
 * parse.c cuts the macro-expanded token array into forms and calls
 * parse_form() for each one; the first token it hands out is a START_*
 * token saying what kind of form to expect (function, attribute, record
 * definition, or the shell's expression sequence). The expression grammar
 * follows erl_parse.yrl level by level, so precedence and associativity are
 * Erlang's: catch < = ! < orelse < andalso < comparison < ++ -- < + - ... <
 * * / ... < unary < # < :. Patterns are parsed as expressions, as Erlang does;
 * check.c later rejects what cannot be a pattern.
 *
 * Pure parser (api.pure full): all state is in the ParseState argument.
 */
%define api.pure full
%define api.token.prefix {T_}
%locations
%parse-param {ParseState *ps}
%lex-param {ParseState *ps}
%expect 0

%code requires {
#include "lex.h"
}

%union {
    const Token *tok;
    Expr *e;
    Vec *v;
    Clause *cl;
    Guard *g;
    int op;
    Field *f;
    FunClause *fc;
}

%code {
#include <gc.h>
#include <string.h>
#include "frontend.h"

#define YYMAXDEPTH 1000000
/* our semantic values are GC memory; let bison keep its stack on the heap */
#define YYSTACK_USE_ALLOCA 0

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, ParseState *ps);
static void yyerror(YYLTYPE *loc, ParseState *ps, const char *msg);
static void parse_fail(ParseState *ps, int line, int col, const char *msg);

static Expr *mk(ExprKind k, const Token *t) { return ast_expr(k, t->line, t->col); }

static Expr *mk_binop(Op op, Expr *a, Expr *b)
{
    Expr *e = ast_expr(E_BINOP, a->line, a->col);
    e->op = op; e->a = a; e->b = b;
    return e;
}

static Expr *mk_unop(const Token *t, Op op, Expr *a)
{
    Expr *e = mk(E_UNOP, t);
    e->op = op; e->a = a;
    return e;
}

static Expr *mk_pair(ExprKind k, Expr *a, Expr *b)
{
    Expr *e = ast_expr(k, a->line, a->col);
    e->a = a; e->b = b;
    return e;
}

static Expr **exprs_of(Vec *v, int *n)
{
    *n = v ? v->n : 0;
    return v ? (Expr **)v->items : NULL;
}

/* [E1, E2 | Tail] as nested conses, built from the end without recursion. */
static Expr *mk_list(const Token *open, Vec *elems, Expr *tail)
{
    Expr *l = tail;
    if (!l) l = mk(E_NIL, open);
    for (int i = elems->n - 1; i >= 0; i--) {
        Expr *h = elems->items[i];
        Expr *c = ast_expr(E_CONS, h->line, h->col);
        c->a = h; c->b = l;
        l = c;
    }
    if (elems->n > 0) { l->line = open->line; l->col = open->col; }
    return l;
}

static Guard *mk_guard(Vec *alts)
{
    if (!alts) return NULL;
    Guard *g = ast_alloc(sizeof *g);
    g->nalts = alts->n;
    g->alts = ast_alloc(sizeof *g->alts * (size_t)alts->n);
    for (int i = 0; i < alts->n; i++)
        g->alts[i].tests = exprs_of(alts->items[i], &g->alts[i].ntests);
    return g;
}

static Clause *mk_clause(int line, int col, Vec *pats, Vec *guard, Vec *body)
{
    Clause *c = ast_alloc(sizeof *c);
    c->line = line; c->col = col;
    c->patterns = exprs_of(pats, &c->npat);
    c->guard = mk_guard(guard);
    c->body = exprs_of(body, &c->nbody);
    return c;
}

static Clause **clauses_of(Vec *v, int *n)
{
    *n = v->n;
    return (Clause **)v->items;
}

static Field *fields_of(Vec *v, int *n)
{
    *n = v ? v->n : 0;
    if (!v) return NULL;
    Field *f = ast_alloc(sizeof *f * (size_t)(v->n ? v->n : 1));
    for (int i = 0; i < v->n; i++) f[i] = *(Field *)v->items[i];
    return f;
}

static Field *mk_field(int line, int col)
{
    Field *f = ast_alloc(sizeof *f);
    f->line = line; f->col = col;
    return f;
}

static Expr *mk_string(const Token *t)
{
    Expr *e = mk(E_STRING, t);
    e->str = t->str; e->len = t->len;
    return e;
}

static Expr *string_append(Expr *e, const Token *t)
{
    int *s = GC_MALLOC_ATOMIC(sizeof(int) * (size_t)(e->len + t->len + 1));
    if (e->len) memcpy(s, e->str, sizeof(int) * (size_t)e->len);
    if (t->len) memcpy(s + e->len, t->str, sizeof(int) * (size_t)t->len);
    e->str = s; e->len += t->len;
    return e;
}

static Expr *mk_integer(const Token *t)
{
    Expr *e = mk(E_INT, t);
    e->ival = t->ival; e->big = t->big; e->big_base = t->big_base;
    return e;
}

/* A call: name(Args) locally, M:F(Args) remotely, else a fun call. */
static Expr *mk_call(Expr *f, Vec *args)
{
    Expr *e = ast_expr(E_CALL, f->line, f->col);
    e->elems = exprs_of(args, &e->n);
    e->arity = e->n;
    if (f->kind == E_ATOM) e->name = f->name;
    else if (f->kind == E_CALL && f->arity < 0) { e->mod = f->mod; e->fun = f->fun; }
    else e->fun = f;
    return e;
}

/* Record field name as both fields[0].name and an atom in b. */
static Expr *mk_record_field(Expr *rec, const Token *hash, const Token *name, const Token *field)
{
    Expr *e = rec ? ast_expr(E_RECORD_FIELD, rec->line, rec->col) : mk(E_RECORD_FIELD, hash);
    e->a = rec; e->name = name->name;
    Field *f = mk_field(field->line, field->col);
    f->name = field->name;
    e->fields = f; e->nfields = 1;
    e->b = mk(E_ATOM, field); e->b->name = field->name;
    return e;
}

static Expr *mk_record(Expr *rec, const Token *hash, const Token *name, Vec *fields)
{
    Expr *e = rec ? ast_expr(E_RECORD_UPDATE, rec->line, rec->col) : mk(E_RECORD, hash);
    e->a = rec; e->name = name->name;
    e->fields = fields_of(fields, &e->nfields);
    return e;
}

static Expr *mk_map(Expr *map, const Token *hash, Vec *fields)
{
    Expr *e = map ? ast_expr(E_MAP_UPDATE, map->line, map->col) : mk(E_MAP, hash);
    e->a = map;
    e->fields = fields_of(fields, &e->nfields);
    return e;
}

/* fun (...) -> ...; (...) -> ... end, or a named fun whose clauses all
 * carry the same variable name. */
static int fun_build(ParseState *ps, Expr *e, Vec *fcs)
{
    const Token *name = ((FunClause *)fcs->items[0])->name;
    e->nclauses = fcs->n;
    e->clauses = ast_alloc(sizeof *e->clauses * (size_t)fcs->n);
    for (int i = 0; i < fcs->n; i++) {
        FunClause *fc = fcs->items[i];
        if ((fc->name == NULL) != (name == NULL) || (name && fc->name->name != name->name)) {
            parse_fail(ps, fc->clause->line, fc->clause->col, "head mismatch");
            return 0;
        }
        e->clauses[i] = fc->clause;
    }
    if (name) e->name = name->name;
    return 1;
}

/* try ... catch Class:Reason:Stack -> ...; the class defaults to throw. */
static Clause *mk_catch_clause(ParseState *ps, Expr *cls, Expr *reason, const Token *stack,
                               Vec *guard, Vec *body)
{
    (void)ps;
    Vec *pats = vec_new();
    if (!cls) {
        if (reason->kind == E_CALL && reason->arity < 0) {
            cls = reason->mod; reason = reason->fun;
        } else {
            cls = ast_expr(E_ATOM, reason->line, reason->col);
            cls->name = ast_intern("throw", 5);
        }
    }
    vec_push(pats, cls);
    vec_push(pats, reason);
    Expr *st = NULL;
    if (stack) { st = mk(E_VAR, stack); st->name = stack->name; }
    vec_push(pats, st);
    return mk_clause(cls->line, cls->col, pats, guard, body);
}
}

%token <tok> ATOM VAR INTEGER FLOAT STRING
%token <tok> AFTER AND ANDALSO BAND BEGIN BNOT BOR BSL BSR BXOR CASE CATCH DIV END FUN IF
%token <tok> NOT OF OR ORELSE RECEIVE REM TRY WHEN XOR RESERVED
%token <tok> EXACT_EQ "=:=" EXACT_NE "=/=" EQ "==" NE "/=" LE "=<" GE ">="
%token <tok> APPEND "++" SUBTRACT "--" ARROW "->" LARROW "<-" LARROW2 "<="
%token <tok> OROR "||" COLONCOLON "::" LTLT "<<" GTGT ">>" ASSOC "=>" EXACT ":="
%token <tok> DOTDOT ".." DOTDOTDOT "..." DOT
%token <tok> '-' '+' '*' '/' '<' '>' '=' '!' '|' ':' '#' ',' ';' '(' ')' '[' ']' '{' '}' '?' '.'
%token START_FUNCTION START_ATTR START_RECORD START_EXPRS NEST_ERROR

%type <e> expr expr_100 expr_150 expr_160 expr_200 expr_300 expr_400 expr_500 expr_600
%type <e> expr_700 expr_800 expr_max function_call record_expr atomic strings list tuple
%type <e> binary bit_expr opt_bit_size lc_expr fun_expr if_expr case_expr
%type <e> receive_expr try_expr atom_or_var
%type <v> exprs argument_list clause_guard clause_body guard function_clauses
%type <v> cr_clauses if_clauses fun_clauses try_clauses lc_exprs record_tuple record_fields
%type <v> map_tuple map_fields bin_elements opt_bit_type_list bit_type_list rec_def_fields
%type <v> rec_def_body
%type <cl> cr_clause if_clause try_clause
%type <fc> function_clause fun_clause
%type <op> comp_op list_op add_op mult_op
%type <tok> prefix_op
%type <f> record_field map_field rec_def_field bin_element
%type <tok> bit_type

%%

start
    : START_FUNCTION function_clauses DOT         { ps->clauses = $2; }
    | START_ATTR '-' ATOM '(' exprs ')' DOT       { ps->attr = $3; ps->args = $5; }
    | START_RECORD '-' ATOM '(' ATOM ',' '{' rec_def_body '}' ')' DOT
                                                  { ps->attr = $3; ps->recname = $5; ps->recfields = $8; }
    | START_EXPRS exprs DOT                       { ps->args = $2; }
    ;

rec_def_body
    : %empty                                      { $$ = vec_new(); }
    | rec_def_fields                              { $$ = $1; }
    ;
rec_def_fields
    : rec_def_field                               { $$ = vec_push(vec_new(), $1); }
    | rec_def_fields ',' rec_def_field            { $$ = vec_push($1, $3); }
    ;
rec_def_field
    : ATOM                                        { $$ = mk_field($1->line, $1->col); $$->name = $1->name; }
    | ATOM '=' expr                               { $$ = mk_field($1->line, $1->col); $$->name = $1->name; $$->value = $3; }
    ;

function_clauses
    : function_clause                             { $$ = vec_push(vec_new(), $1); }
    | function_clauses ';' function_clause        { $$ = vec_push($1, $3); }
    ;
function_clause
    : ATOM argument_list clause_guard clause_body
        { $$ = ast_alloc(sizeof *$$); $$->name = $1;
          $$->clause = mk_clause($1->line, $1->col, $2, $3, $4); }
    ;

argument_list
    : '(' ')'                                     { $$ = vec_new(); }
    | '(' exprs ')'                               { $$ = $2; }
    ;
clause_guard
    : %empty                                      { $$ = NULL; }
    | WHEN guard                                  { $$ = $2; }
    ;
clause_body
    : "->" exprs                                  { $$ = $2; }
    ;
guard
    : exprs                                       { $$ = vec_push(vec_new(), $1); }
    | guard ';' exprs                             { $$ = vec_push($1, $3); }
    ;
exprs
    : expr                                        { $$ = vec_push(vec_new(), $1); }
    | exprs ',' expr                              { $$ = vec_push($1, $3); }
    ;

expr
    : CATCH expr                                  { $$ = mk(E_CATCH, $1); $$->a = $2; }
    | expr_100
    ;
expr_100
    : expr_150 '=' expr_100                       { $$ = mk_pair(E_MATCH, $1, $3); }
    | expr_150 '!' expr_100                       { $$ = mk_binop(OP_SEND, $1, $3); }
    /* not in Erlang (there `A = catch X` is a syntax error), but Mini's
     * test programs use it and it is unambiguous */
    | expr_150 '=' CATCH expr                     { Expr *c = mk(E_CATCH, $3); c->a = $4; $$ = mk_pair(E_MATCH, $1, c); }
    | expr_150 '!' CATCH expr                     { Expr *c = mk(E_CATCH, $3); c->a = $4; $$ = mk_binop(OP_SEND, $1, c); }
    | expr_150
    ;
expr_150
    : expr_150 ORELSE expr_160                    { $$ = mk_pair(E_ORELSE, $1, $3); }
    | expr_160
    ;
expr_160
    : expr_160 ANDALSO expr_200                   { $$ = mk_pair(E_ANDALSO, $1, $3); }
    | expr_200
    ;
expr_200
    : expr_300 comp_op expr_300                   { $$ = mk_binop($2, $1, $3); }
    | expr_300
    ;
expr_300
    : expr_400 list_op expr_300                   { $$ = mk_binop($2, $1, $3); }
    | expr_400
    ;
expr_400
    : expr_400 add_op expr_500                    { $$ = mk_binop($2, $1, $3); }
    | expr_500
    ;
expr_500
    : expr_500 mult_op expr_600                   { $$ = mk_binop($2, $1, $3); }
    | expr_600
    ;
expr_600
    : prefix_op expr_600
        { Op op = $1->kind == '-' ? OP_NEG : $1->kind == '+' ? OP_PLUS
                : $1->kind == T_BNOT ? OP_BNOT : OP_NOT;
          $$ = mk_unop($1, op, $2); }
    | expr_700
    ;
expr_700
    : function_call
    | record_expr
    | expr_800
    ;
expr_800
    : expr_max ':' expr_max
        { /* a remote name without arguments: only valid before an argument
             list or as Class:Reason in a catch clause (arity -1 marks it) */
          $$ = ast_expr(E_CALL, $1->line, $1->col); $$->mod = $1; $$->fun = $3; $$->arity = -1; }
    | expr_max
    ;
function_call
    : expr_800 argument_list                      { $$ = mk_call($1, $2); }
    ;
record_expr
    : '#' ATOM '.' ATOM                           { $$ = mk_record_field(NULL, $1, $2, $4); }
    | '#' ATOM record_tuple                       { $$ = mk_record(NULL, $1, $2, $3); }
    | '#' map_tuple                               { $$ = mk_map(NULL, $1, $2); }
    | expr_max '#' ATOM '.' ATOM                  { $$ = mk_record_field($1, $2, $3, $5); }
    | expr_max '#' ATOM record_tuple              { $$ = mk_record($1, $2, $3, $4); }
    | expr_max '#' map_tuple                      { $$ = mk_map($1, $2, $3); }
    | record_expr '#' ATOM '.' ATOM               { $$ = mk_record_field($1, $2, $3, $5); }
    | record_expr '#' ATOM record_tuple           { $$ = mk_record($1, $2, $3, $4); }
    | record_expr '#' map_tuple                   { $$ = mk_map($1, $2, $3); }
    ;
record_tuple
    : '{' '}'                                     { $$ = vec_new(); }
    | '{' record_fields '}'                       { $$ = $2; }
    ;
record_fields
    : record_field                                { $$ = vec_push(vec_new(), $1); }
    | record_fields ',' record_field              { $$ = vec_push($1, $3); }
    ;
record_field
    : ATOM '=' expr                               { $$ = mk_field($1->line, $1->col); $$->name = $1->name; $$->value = $3; }
    | VAR '=' expr                                { $$ = mk_field($1->line, $1->col); $$->name = $1->name; $$->value = $3; }
    ;
map_tuple
    : '{' '}'                                     { $$ = vec_new(); }
    | '{' map_fields '}'                          { $$ = $2; }
    ;
map_fields
    : map_field                                   { $$ = vec_push(vec_new(), $1); }
    | map_fields ',' map_field                    { $$ = vec_push($1, $3); }
    ;
map_field
    : expr "=>" expr                              { $$ = mk_field($1->line, $1->col); $$->key = $1; $$->value = $3; }
    | expr ":=" expr                              { $$ = mk_field($1->line, $1->col); $$->key = $1; $$->value = $3; $$->exact = 1; }
    ;

expr_max
    : VAR                                         { $$ = mk(E_VAR, $1); $$->name = $1->name; }
    | atomic
    | list
    | binary
    | tuple
    | '(' expr ')'                                { $$ = $2; }
    | BEGIN exprs END                             { $$ = mk(E_BLOCK, $1); $$->body = exprs_of($2, &$$->nbody);
                                                    $$->elems = $$->body; $$->n = $$->nbody; }
    | if_expr
    | case_expr
    | receive_expr
    | fun_expr
    | try_expr
    ;
atomic
    : INTEGER                                     { $$ = mk_integer($1); }
    | FLOAT                                       { $$ = mk(E_FLOAT, $1); $$->fval = $1->fval; }
    | ATOM                                        { $$ = mk(E_ATOM, $1); $$->name = $1->name; }
    | strings
    ;
strings
    : STRING                                      { $$ = mk_string($1); }
    | strings STRING                              { $$ = string_append($1, $2); }
    ;
list
    : '[' ']'                                     { $$ = mk(E_NIL, $1); }
    | '[' exprs ']'                               { $$ = mk_list($1, $2, NULL); }
    | '[' exprs '|' expr ']'                      { $$ = mk_list($1, $2, $4); }
    | '[' expr "||" lc_exprs ']'                  { $$ = mk(E_LC, $1); $$->a = $2; $$->elems = exprs_of($4, &$$->n); }
    ;
lc_exprs
    : lc_expr                                     { $$ = vec_push(vec_new(), $1); }
    | lc_exprs ',' lc_expr                        { $$ = vec_push($1, $3); }
    ;
lc_expr
    : expr
    | expr "<-" expr                              { $$ = mk_pair(E_GENERATOR, $1, $3); }
    | binary "<=" expr
        { if ($1->kind == E_BIN_LC) { parse_fail(ps, $2->line, $2->col, "syntax error before: '<='"); YYABORT; }
          $$ = mk_pair(E_GENERATOR, $1, $3); $$->bitgen = 1; }
    ;
tuple
    : '{' '}'                                     { $$ = mk(E_TUPLE, $1); }
    | '{' exprs '}'                               { $$ = mk(E_TUPLE, $1); $$->elems = exprs_of($2, &$$->n); }
    ;

binary
    : "<<" ">>"                                   { $$ = mk(E_BIN, $1); }
    | "<<" bin_elements ">>"                      { $$ = mk(E_BIN, $1); $$->fields = fields_of($2, &$$->nfields); }
    | "<<" expr_max "||" lc_exprs ">>"            { $$ = mk(E_BIN_LC, $1); $$->a = $2; $$->elems = exprs_of($4, &$$->n); }
    ;
bin_elements
    : bin_element                                 { $$ = vec_push(vec_new(), $1); }
    | bin_elements ',' bin_element                { $$ = vec_push($1, $3); }
    ;
bin_element
    : bit_expr opt_bit_size opt_bit_type_list
        { Field *f = mk_field($1->line, $1->col);
          f->value = $1; f->size = $2;
          if ($3) { f->types = (const char **)$3->items; f->ntypes = $3->n; }
          $$ = f; }
    ;
bit_expr
    : prefix_op expr_max
        { Op op = $1->kind == '-' ? OP_NEG : $1->kind == '+' ? OP_PLUS
                : $1->kind == T_BNOT ? OP_BNOT : OP_NOT;
          $$ = mk_unop($1, op, $2); }
    | expr_max
    ;
opt_bit_size
    : %empty                                      { $$ = NULL; }
    | ':' expr_max                                { $$ = $2; }
    ;
opt_bit_type_list
    : %empty                                      { $$ = NULL; }
    | '/' bit_type_list                           { $$ = $2; }
    ;
bit_type_list
    : bit_type                                    { $$ = vec_push(vec_new(), (void *)$1->name); }
    | bit_type_list '-' bit_type                  { $$ = vec_push($1, (void *)$3->name); }
    ;
bit_type
    : ATOM                                        { $$ = $1; }
    | ATOM ':' INTEGER
        { Token *t = ast_alloc(sizeof *t); *t = *$1;
          char buf[300];
          snprintf(buf, sizeof buf, "%s:%s", $1->name, $3->text);
          t->name = ast_intern(buf, strlen(buf));
          $$ = t; }
    ;

if_expr
    : IF if_clauses END                           { $$ = mk(E_IF, $1); $$->clauses = clauses_of($2, &$$->nclauses); }
    ;
if_clauses
    : if_clause                                   { $$ = vec_push(vec_new(), $1); }
    | if_clauses ';' if_clause                    { $$ = vec_push($1, $3); }
    ;
if_clause
    : guard clause_body
        { Expr *first = ((Vec *)$1->items[0])->items[0];
          $$ = mk_clause(first->line, first->col, NULL, $1, $2); }
    ;
case_expr
    : CASE expr OF cr_clauses END                 { $$ = mk(E_CASE, $1); $$->a = $2; $$->clauses = clauses_of($4, &$$->nclauses); }
    ;
cr_clauses
    : cr_clause                                   { $$ = vec_push(vec_new(), $1); }
    | cr_clauses ';' cr_clause                    { $$ = vec_push($1, $3); }
    ;
cr_clause
    : expr clause_guard clause_body               { $$ = mk_clause($1->line, $1->col, vec_push(vec_new(), $1), $2, $3); }
    ;
receive_expr
    : RECEIVE cr_clauses END                      { $$ = mk(E_RECEIVE, $1); $$->clauses = clauses_of($2, &$$->nclauses); }
    | RECEIVE AFTER expr clause_body END          { $$ = mk(E_RECEIVE, $1); $$->timeout = $3; $$->body = exprs_of($4, &$$->nbody); }
    | RECEIVE cr_clauses AFTER expr clause_body END
        { $$ = mk(E_RECEIVE, $1); $$->clauses = clauses_of($2, &$$->nclauses);
          $$->timeout = $4; $$->body = exprs_of($5, &$$->nbody); }
    ;
fun_expr
    : FUN ATOM '/' INTEGER
        { if ($4->big) { parse_fail(ps, $4->line, $4->col, "bad arity"); YYABORT; }
          $$ = mk(E_FUNREF, $1); $$->name = $2->name; $$->arity = (int)$4->ival;
          if ($4->ival > 255) { parse_fail(ps, $4->line, $4->col, "bad arity"); YYABORT; } }
    | FUN atom_or_var ':' ATOM '/' INTEGER
        { if ($6->big || $6->ival > 255) { parse_fail(ps, $6->line, $6->col, "bad arity"); YYABORT; }
          $$ = mk(E_FUNREF, $1); $$->mod = $2; $$->name = $4->name; $$->arity = (int)$6->ival; }
    | FUN fun_clauses END
        { $$ = mk(E_FUN, $1);
          if (!fun_build(ps, $$, $2)) YYABORT; }
    ;
atom_or_var
    : ATOM                                        { $$ = mk(E_ATOM, $1); $$->name = $1->name; }
    | VAR                                         { $$ = mk(E_VAR, $1); $$->name = $1->name; }
    ;
fun_clauses
    : fun_clause                                  { $$ = vec_push(vec_new(), $1); }
    | fun_clauses ';' fun_clause                  { $$ = vec_push($1, $3); }
    ;
fun_clause
    : argument_list clause_guard clause_body
        { Expr *first = $1->n ? $1->items[0] : NULL;
          $$ = ast_alloc(sizeof *$$);
          $$->clause = mk_clause(first ? first->line : $3->n ? ((Expr *)$3->items[0])->line : 0,
                                 first ? first->col : $3->n ? ((Expr *)$3->items[0])->col : 0,
                                 $1, $2, $3); }
    | VAR argument_list clause_guard clause_body
        { $$ = ast_alloc(sizeof *$$); $$->name = $1;
          $$->clause = mk_clause($1->line, $1->col, $2, $3, $4); }
    ;
try_expr
    : TRY exprs OF cr_clauses CATCH try_clauses END
        { $$ = mk(E_TRY, $1); $$->body = exprs_of($2, &$$->nbody); $$->clauses = clauses_of($4, &$$->nclauses);
          $$->catches = clauses_of($6, &$$->ncatches); }
    | TRY exprs OF cr_clauses CATCH try_clauses AFTER exprs END
        { $$ = mk(E_TRY, $1); $$->body = exprs_of($2, &$$->nbody); $$->clauses = clauses_of($4, &$$->nclauses);
          $$->catches = clauses_of($6, &$$->ncatches); $$->after = exprs_of($8, &$$->nafter); }
    | TRY exprs OF cr_clauses AFTER exprs END
        { $$ = mk(E_TRY, $1); $$->body = exprs_of($2, &$$->nbody); $$->clauses = clauses_of($4, &$$->nclauses);
          $$->after = exprs_of($6, &$$->nafter); }
    | TRY exprs CATCH try_clauses END
        { $$ = mk(E_TRY, $1); $$->body = exprs_of($2, &$$->nbody);
          $$->catches = clauses_of($4, &$$->ncatches); }
    | TRY exprs CATCH try_clauses AFTER exprs END
        { $$ = mk(E_TRY, $1); $$->body = exprs_of($2, &$$->nbody);
          $$->catches = clauses_of($4, &$$->ncatches); $$->after = exprs_of($6, &$$->nafter); }
    | TRY exprs AFTER exprs END
        { $$ = mk(E_TRY, $1); $$->body = exprs_of($2, &$$->nbody); $$->after = exprs_of($4, &$$->nafter); }
    ;
try_clauses
    : try_clause                                  { $$ = vec_push(vec_new(), $1); }
    | try_clauses ';' try_clause                  { $$ = vec_push($1, $3); }
    ;
try_clause
    : expr clause_guard clause_body               { $$ = mk_catch_clause(ps, NULL, $1, NULL, $2, $3); }
    | expr_max ':' expr_max ':' VAR clause_guard clause_body
                                                  { $$ = mk_catch_clause(ps, $1, $3, $5, $6, $7); }
    ;

prefix_op: '+' | '-' | BNOT | NOT ;
mult_op
    : '/' { $$ = OP_FDIV; } | '*' { $$ = OP_MUL; } | DIV { $$ = OP_IDIV; }
    | REM { $$ = OP_REM; } | BAND { $$ = OP_BAND; } | AND { $$ = OP_AND; }
    ;
add_op
    : '+' { $$ = OP_ADD; } | '-' { $$ = OP_SUB; } | BOR { $$ = OP_BOR; }
    | BXOR { $$ = OP_BXOR; } | BSL { $$ = OP_BSL; } | BSR { $$ = OP_BSR; }
    | OR { $$ = OP_OR; } | XOR { $$ = OP_XOR; }
    ;
list_op
    : "++" { $$ = OP_APPEND; } | "--" { $$ = OP_SUBTRACT; }
    ;
comp_op
    : "==" { $$ = OP_EQ; } | "/=" { $$ = OP_NE; } | "=<" { $$ = OP_LE; }
    | '<' { $$ = OP_LT; } | ">=" { $$ = OP_GE; } | '>' { $$ = OP_GT; }
    | "=:=" { $$ = OP_EXACT_EQ; } | "=/=" { $$ = OP_EXACT_NE; }
    ;

%%

/* The pull function: START token, the form's tokens, then the end. It also
 * bounds how deeply the form nests (see parse_nest_step) so that bison's
 * stack and every later recursive pass over the tree stay small. */
enum { NEST_LIMIT = 10000 };

static int nest_is_op(int k)
{
    switch (k) {
    case '+': case '-': case '*': case '/': case T_DIV: case T_REM: case T_BAND:
    case T_BOR: case T_BXOR: case T_BSL: case T_BSR: case T_BNOT: case T_NOT:
    case T_AND: case T_OR: case T_XOR: case T_ANDALSO: case T_ORELSE:
    case T_EQ: case T_NE: case T_EXACT_EQ: case T_EXACT_NE: case '<': case '>':
    case T_LE: case T_GE: case T_APPEND: case T_SUBTRACT: case '!': case '=':
    case '#': case ':': case T_CATCH:
        return 1;
    }
    return 0;
}

static int nest_is_sep(int k)
{
    switch (k) {
    case ',': case ';': case T_ARROW: case T_OROR: case T_LARROW: case T_LARROW2:
    case T_WHEN: case T_OF: case T_AFTER: case '|': case T_ASSOC: case T_EXACT:
    case T_DOT:
        return 1;
    }
    return 0;
}

/* total = open brackets + operators still open (no separator closed them), an upper
 * bound on how deep the tree under construction can get. */
static int parse_nest_step(ParseState *ps, int i)
{
    const Token *t = &ps->toks[i];
    int k = t->kind;
    int open = k == '(' || k == '[' || k == '{' || k == T_LTLT || k == T_BEGIN ||
               k == T_CASE || k == T_IF || k == T_RECEIVE || k == T_TRY;
    if (k == T_FUN && i + 1 < ps->ntoks &&
        (ps->toks[i + 1].kind == '(' ||
         (ps->toks[i + 1].kind == T_VAR && i + 2 < ps->ntoks && ps->toks[i + 2].kind == '(')))
        open = 1;
    if (open) {
        if (ps->nlevels == ps->caplevels) {
            ps->caplevels = ps->caplevels ? ps->caplevels * 2 : 64;
            int *l = GC_MALLOC_ATOMIC(sizeof(int) * (size_t)ps->caplevels);
            if (ps->nlevels) memcpy(l, ps->levels, sizeof(int) * (size_t)ps->nlevels);
            ps->levels = l;
        }
        ps->levels[ps->nlevels++] = ps->ops;
        ps->ops = 0;
        ps->total++;
    } else if (k == ')' || k == ']' || k == '}' || k == T_GTGT || k == T_END) {
        if (ps->nlevels > 0) {
            ps->total -= 1 + ps->ops;
            ps->ops = ps->levels[--ps->nlevels];
        }
    } else if (nest_is_sep(k)) {
        ps->total -= ps->ops;
        ps->ops = 0;
    } else if (nest_is_op(k)) {
        ps->ops++;
        ps->total++;
    }
    return ps->total <= NEST_LIMIT;
}

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, ParseState *ps)
{
    const Token *t;
    int kind;
    if (!ps->started) {
        ps->started = 1;
        t = ps->ntoks ? &ps->toks[0] : &ps->eof;
        kind = ps->start;
    } else if (ps->pos < ps->ntoks) {
        int i = ps->pos++;
        t = &ps->toks[i];
        kind = t->kind;
        if (!parse_nest_step(ps, i)) {
            parse_fail(ps, t->line, t->col, "expression nested too deeply");
            kind = T_NEST_ERROR;
        }
    } else {
        t = &ps->eof;
        kind = 0;
    }
    ps->last = t;
    lval->tok = t;
    lloc->first_line = t->line; lloc->first_column = t->col;
    lloc->last_line = t->eline; lloc->last_column = t->ecol;
    return kind;
}

static void parse_fail(ParseState *ps, int line, int col, const char *msg)
{
    if (ps->failed) return;
    ps->failed = 1;
    Source *s = ps->s;
    diag_error(s->file, s->src, s->len, line, col, "%s", msg);
    s->errors++;
}

static void yyerror(YYLTYPE *loc, ParseState *ps, const char *msg)
{
    (void)loc;
    const Token *t = ps->last ? ps->last : &ps->eof;
    if (ps->failed) return;
    if (strstr(msg, "exhausted")) {
        parse_fail(ps, t->line, t->col, "expression nested too deeply");
    } else if (t == &ps->eof) {
        if (ps->s->quiet_eof) { ps->failed = 1; ps->s->incomplete = 1; return; }
        parse_fail(ps, t->line, t->col, "unexpected end of file");
    } else {
        char buf[400];
        snprintf(buf, sizeof buf, "syntax error before: %s", token_describe(t));
        parse_fail(ps, t->line, t->col, buf);
    }
}

int parse_form(ParseState *ps)
{
    int r = yyparse(ps);
    return r == 0 && !ps->failed ? 0 : 1;
}
