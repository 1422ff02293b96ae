/* Expression compiler: recursive-descent parser emitting a postfix program (expr_impl.h).
 *
 * Grammar (lowest precedence first; binary operators are left-associative):
 *   or      := and ('||' and)*
 *   and     := eq ('&&' eq)*
 *   eq      := rel (('==' | '!=') rel)*
 *   rel     := add (('<' | '<=' | '>' | '>=') add)*
 *   add     := mul (('+' | '-') mul)*
 *   mul     := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+' | '!') unary | power
 *   power   := primary ('^' pexp)*          2^3^2 = (2^3)^2, -2^2 = -(2^2)
 *   pexp    := '-' power | primary           2^-3^2 = 2^(-(3^2))
 *   primary := number | constant | name | t | '(' or ')' | function '(' args ')'
 * This is libmatheval's grammar (the library flexmb used before) extended by the
 * comparison and logical operators, so every expression it read means the same.
 *
 * Parameters are bound to their values at compile time and every operation whose
 * operands are all constants is folded, so a program only holds the work that depends
 * on t. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/expr_impl.h"

typedef struct parser {
    const char *s;
    size_t i;
    const fmb_expr_env_t *env;
    fmb_expr_err_t *err;
    fmb_instr_t *code;
    int n, cap;
    unsigned char *cst; /* per stack slot: produced by a lone constant instruction */
    int sp, maxsp, cstcap;
    int depth, nops;
} parser_t;

static const struct {
    const char *name;
    double value;
} k_consts[] = {
    {"2_sqrtpi", 1.12837916709551257390}, {"1_pi", 0.31830988618379067154},
    {"2_pi", 0.63661977236758134308},     {"e", 2.7182818284590452354},
    {"log2e", 1.4426950408889634074},     {"log10e", 0.43429448190325182765},
    {"ln2", 0.69314718055994530942},      {"ln10", 2.30258509299404568402},
    {"pi", 3.14159265358979323846},       {"pi_2", 1.57079632679489661923},
    {"pi_4", 0.78539816339744830962},     {"sqrt2", 1.41421356237309504880},
    {"sqrt1_2", 0.70710678118654752440},
};

enum { K_FN, K_STEP, K_OP, K_TABLE };
static const struct {
    const char *name;
    int kind, code, min, max; /* code: fmb_fn_t (K_FN) or fmb_op_t (K_OP) */
} k_funcs[] = {
    {"exp", K_FN, FMB_FN_EXP, 1, 1},
    {"log", K_FN, FMB_FN_LOG, 1, 1},
    {"sqrt", K_FN, FMB_FN_SQRT, 1, 1},
    {"sin", K_FN, FMB_FN_SIN, 1, 1},
    {"cos", K_FN, FMB_FN_COS, 1, 1},
    {"tan", K_FN, FMB_FN_TAN, 1, 1},
    {"cot", K_FN, FMB_FN_COT, 1, 1},
    {"sec", K_FN, FMB_FN_SEC, 1, 1},
    {"csc", K_FN, FMB_FN_CSC, 1, 1},
    {"asin", K_FN, FMB_FN_ASIN, 1, 1},
    {"acos", K_FN, FMB_FN_ACOS, 1, 1},
    {"atan", K_FN, FMB_FN_ATAN, 1, 1},
    {"acot", K_FN, FMB_FN_ACOT, 1, 1},
    {"asec", K_FN, FMB_FN_ASEC, 1, 1},
    {"acsc", K_FN, FMB_FN_ACSC, 1, 1},
    {"sinh", K_FN, FMB_FN_SINH, 1, 1},
    {"cosh", K_FN, FMB_FN_COSH, 1, 1},
    {"tanh", K_FN, FMB_FN_TANH, 1, 1},
    {"coth", K_FN, FMB_FN_COTH, 1, 1},
    {"sech", K_FN, FMB_FN_SECH, 1, 1},
    {"csch", K_FN, FMB_FN_CSCH, 1, 1},
    {"asinh", K_FN, FMB_FN_ASINH, 1, 1},
    {"acosh", K_FN, FMB_FN_ACOSH, 1, 1},
    {"atanh", K_FN, FMB_FN_ATANH, 1, 1},
    {"acoth", K_FN, FMB_FN_ACOTH, 1, 1},
    {"asech", K_FN, FMB_FN_ASECH, 1, 1},
    {"acsch", K_FN, FMB_FN_ACSCH, 1, 1},
    {"abs", K_FN, FMB_FN_ABS, 1, 1},
    {"delta", K_FN, FMB_FN_DELTA, 1, 1},
    {"nandelta", K_FN, FMB_FN_NANDELTA, 1, 1},
    {"erf", K_FN, FMB_FN_ERF, 1, 1},
    {"floor", K_FN, FMB_FN_FLOOR, 1, 1},
    {"sign", K_FN, FMB_FN_SIGN, 1, 1},
    {"step", K_STEP, 0, 1, 5},
    {"step5", K_OP, FMB_OP_STEP5, 5, 5},
    {"min", K_OP, FMB_OP_MIN, 2, 64},
    {"max", K_OP, FMB_OP_MAX, 2, 64},
    {"atan2", K_OP, FMB_OP_ATAN2, 2, 2},
    {"pow", K_OP, FMB_OP_POW, 2, 2},
    {"mod", K_OP, FMB_OP_MOD, 2, 2},
    {"if", K_OP, FMB_OP_IF, 3, 3},
    {"table", K_TABLE, 0, 2, 2},
    {"spline", K_TABLE, 1, 2, 2},
};
#define NFUNCS ((int)(sizeof k_funcs / sizeof k_funcs[0]))
#define NCONSTS ((int)(sizeof k_consts / sizeof k_consts[0]))

int fmb_expr_reserved(const char *name)
{
    for (int k = 0; k < NFUNCS; k++)
        if (!strcmp(name, k_funcs[k].name)) return 1;
    for (int k = 0; k < NCONSTS; k++)
        if (!strcmp(name, k_consts[k].name)) return 1;
    return !strcmp(name, "t");
}

static int fail(parser_t *P, fmb_expr_errkind_t kind, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(parser_t *P, fmb_expr_errkind_t kind, size_t at, const char *fmt, ...)
{
    if (P->err->kind == FMB_EXPR_OK) {
        P->err->kind = kind;
        P->err->at = at;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(P->err->msg, sizeof P->err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void skip(parser_t *P)
{
    while (P->s[P->i] == ' ' || P->s[P->i] == '\t')
        P->i++;
}

/* Append an instruction that pops its operands and pushes one result; fold it when
 * every operand is a constant. */
static int emit(parser_t *P, fmb_instr_t in)
{
    const int k = in.op == FMB_OP_CONST || in.op == FMB_OP_T ? 0 : fmb_expr_arity(&in);
    int all_const = in.op != FMB_OP_T;
    for (int j = 0; j < k; j++)
        if (!P->cst[P->sp - 1 - j]) all_const = 0;
    if (all_const && k > 0) {
        fmb_jet_t a[64];
        for (int j = 0; j < k; j++) {
            const double c = P->code[P->n - k + j].c;
            a[j] = (fmb_jet_t){c, 0.0, 0.0};
        }
        fmb_expr_apply(&in, a, 0.0);
        P->n -= k;
        P->sp -= k;
        in = (fmb_instr_t){FMB_OP_CONST, 0, a[0].v, NULL};
    } else {
        P->sp -= k;
    }
    if (P->n == P->cap) {
        int cap = P->cap ? 2 * P->cap : 32;
        fmb_instr_t *c = realloc(P->code, (size_t)cap * sizeof *c);
        if (!c) return fail(P, FMB_EXPR_ENOMEM, P->i, "out of memory");
        P->code = c;
        P->cap = cap;
    }
    if (P->sp == P->cstcap) {
        int cap = P->cstcap ? 2 * P->cstcap : 32;
        unsigned char *c = realloc(P->cst, (size_t)cap);
        if (!c) return fail(P, FMB_EXPR_ENOMEM, P->i, "out of memory");
        P->cst = c;
        P->cstcap = cap;
    }
    P->code[P->n++] = in;
    P->cst[P->sp++] = in.op == FMB_OP_CONST;
    if (P->sp > P->maxsp) P->maxsp = P->sp;
    return 0;
}

static int emit_op(parser_t *P, int op, int arg)
{
    return emit(P, (fmb_instr_t){op, arg, 0.0, NULL});
}

static int count_op(parser_t *P, size_t at)
{
    if (++P->nops > FMB_EXPR_MAX_OPS)
        return fail(P, FMB_EXPR_ESYNTAX, at, "more than %d operators", FMB_EXPR_MAX_OPS);
    return 0;
}

static int enter(parser_t *P)
{
    if (++P->depth > FMB_EXPR_MAX_DEPTH)
        return fail(P, FMB_EXPR_ESYNTAX, P->i,
                    "nested deeper than %d levels (parentheses, calls, unary minus)",
                    FMB_EXPR_MAX_DEPTH);
    return 0;
}

static int p_or(parser_t *P);
static int p_power(parser_t *P);
static int p_unary(parser_t *P);

/* A parenthesized or argument expression: one nesting level. */
static int p_nested(parser_t *P)
{
    if (enter(P)) return -1;
    int rc = p_or(P);
    P->depth--;
    return rc;
}

static int p_number(parser_t *P)
{
    const char *s = P->s;
    size_t a = P->i, j = a;
    while (isdigit((unsigned char)s[j]))
        j++;
    if (s[j] == '.') {
        j++;
        while (isdigit((unsigned char)s[j]))
            j++;
    }
    if (s[j] == 'e' || s[j] == 'E') {
        size_t k = j + 1;
        if (s[k] == '+' || s[k] == '-') k++;
        if (isdigit((unsigned char)s[k])) {
            while (isdigit((unsigned char)s[k]))
                k++;
            j = k;
        }
    }
    char buf[128];
    if (j - a >= sizeof buf) return fail(P, FMB_EXPR_ESYNTAX, a, "number too long");
    memcpy(buf, s + a, j - a);
    buf[j - a] = '\0';
    P->i = j;
    return emit(P, (fmb_instr_t){FMB_OP_CONST, 0, strtod(buf, NULL), NULL});
}

/* table("file", x) / spline("file", x): the file name in quotes, then x. */
static int p_table(parser_t *P, const char *fname, int spline, size_t at)
{
    skip(P);
    const char q = P->s[P->i];
    if (q != '"' && q != '\'')
        return fail(P, FMB_EXPR_ESYNTAX, P->i,
                    "the first argument of %s() must be a file name in quotes", fname);
    size_t a = ++P->i;
    while (P->s[P->i] && P->s[P->i] != q)
        P->i++;
    if (!P->s[P->i]) return fail(P, FMB_EXPR_ESYNTAX, a - 1, "unterminated file name");
    size_t len = P->i - a;
    P->i++;
    if (len == 0 || len > 1000) return fail(P, FMB_EXPR_ESYNTAX, a - 1, "bad file name");
    char *file = malloc(len + 1);
    if (!file) return fail(P, FMB_EXPR_ENOMEM, a, "out of memory");
    memcpy(file, P->s + a, len);
    file[len] = '\0';
    const fmb_table_t *tb = NULL;
    char msg[sizeof P->err->msg];
    if (!P->env->table)
        snprintf(msg, sizeof msg, "%s() is not available here", fname);
    else
        tb = P->env->table(P->env->user, file, spline, msg, sizeof msg);
    free(file);
    if (!tb) return fail(P, FMB_EXPR_ETABLE, at, "%s", msg);
    skip(P);
    if (P->s[P->i] != ',')
        return fail(P, FMB_EXPR_ESYNTAX, P->i, "%s() takes 2 arguments (\"file\", x)", fname);
    P->i++;
    if (p_nested(P)) return -1;
    skip(P);
    if (P->s[P->i] != ')')
        return fail(P, FMB_EXPR_ESYNTAX, P->i,
                    P->s[P->i] == ',' ? "%s() takes 2 arguments (\"file\", x)" : "expected ')'",
                    fname);
    P->i++;
    return emit(P, (fmb_instr_t){FMB_OP_TABLE, 0, 0.0, tb});
}

static int p_call(parser_t *P, int f, size_t at)
{
    const char *fname = k_funcs[f].name;
    P->i++; /* '(' */
    if (enter(P)) return -1;
    int rc;
    if (k_funcs[f].kind == K_TABLE) {
        rc = p_table(P, fname, k_funcs[f].code, at);
        P->depth--;
        return rc;
    }
    int nargs = 0;
    skip(P);
    if (P->s[P->i] != ')')
        for (;;) {
            if (p_or(P)) return -1;
            nargs++;
            skip(P);
            if (P->s[P->i] != ',') break;
            P->i++;
        }
    skip(P);
    if (P->s[P->i] != ')') return fail(P, FMB_EXPR_ESYNTAX, P->i, "expected ')' or ','");
    P->i++;
    P->depth--;
    const int lo = k_funcs[f].min, hi = k_funcs[f].max;
    if (k_funcs[f].kind == K_STEP ? nargs != 1 && nargs != 5 : nargs < lo || nargs > hi) {
        if (k_funcs[f].kind == K_STEP)
            return fail(P, FMB_EXPR_ESYNTAX, at,
                        "step() takes 1 argument (Heaviside) or 5 (x, x0, h0, x1, h1), not %d",
                        nargs);
        if (lo == hi)
            return fail(P, FMB_EXPR_ESYNTAX, at, "%s() takes %d argument%s, not %d", fname, lo,
                        lo == 1 ? "" : "s", nargs);
        return fail(P, FMB_EXPR_ESYNTAX, at, "%s() takes %d to %d arguments, not %d", fname, lo,
                    hi, nargs);
    }
    switch (k_funcs[f].kind) {
    case K_FN: return emit_op(P, FMB_OP_FN, k_funcs[f].code);
    case K_STEP: return nargs == 1 ? emit_op(P, FMB_OP_FN, FMB_FN_HEAVISIDE)
                                   : emit_op(P, FMB_OP_STEP3, 5);
    default: return emit_op(P, k_funcs[f].code, nargs);
    }
}

static int p_name(parser_t *P)
{
    const char *s = P->s;
    size_t a = P->i;
    while (isalnum((unsigned char)s[P->i]) || s[P->i] == '_')
        P->i++;
    const size_t n = P->i - a;
    size_t after = P->i;
    skip(P);
    const int call = s[P->i] == '(';
    for (int f = 0; f < NFUNCS; f++)
        if (strlen(k_funcs[f].name) == n && !strncmp(s + a, k_funcs[f].name, n)) {
            if (!call)
                return fail(P, FMB_EXPR_ESYNTAX, a,
                            "function '%s' needs its arguments in parentheses", k_funcs[f].name);
            return p_call(P, f, a);
        }
    if (call)
        return fail(P, FMB_EXPR_ESYNTAX, a, "unknown function '%.*s'", (int)(n < 60 ? n : 60),
                    s + a);
    P->i = after;
    for (int k = 0; k < NCONSTS; k++)
        if (strlen(k_consts[k].name) == n && !strncmp(s + a, k_consts[k].name, n))
            return emit(P, (fmb_instr_t){FMB_OP_CONST, 0, k_consts[k].value, NULL});
    if (n == 1 && s[a] == 't' && P->env->allow_t) return emit_op(P, FMB_OP_T, 0);
    for (int k = 0; k < P->env->n; k++)
        if (strlen(P->env->names[k]) == n && !strncmp(s + a, P->env->names[k], n))
            return emit(P, (fmb_instr_t){FMB_OP_CONST, 0, P->env->values[k], NULL});
    if (P->err->kind == FMB_EXPR_OK) {
        snprintf(P->err->name, sizeof P->err->name, "%.*s", (int)(n < 63 ? n : 63), s + a);
        fail(P, FMB_EXPR_ENAME, a, "unknown name '%s'", P->err->name);
    }
    return -1;
}

static int p_primary(parser_t *P)
{
    skip(P);
    const char *p = P->s + P->i;
    for (int k = 0; k < 3; k++) { /* constants that start with a digit */
        const char *c = k_consts[k].name;
        size_t n = strlen(c);
        if (!strncmp(p, c, n) && !isalnum((unsigned char)p[n]) && p[n] != '_') {
            P->i += n;
            return emit(P, (fmb_instr_t){FMB_OP_CONST, 0, k_consts[k].value, NULL});
        }
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
        return p_number(P);
    if (isalpha((unsigned char)*p) || *p == '_') return p_name(P);
    if (*p == '(') {
        P->i++;
        if (p_nested(P)) return -1;
        skip(P);
        if (P->s[P->i] != ')') return fail(P, FMB_EXPR_ESYNTAX, P->i, "expected ')'");
        P->i++;
        return 0;
    }
    if (*p == '"' || *p == '\'')
        return fail(P, FMB_EXPR_ESYNTAX, P->i,
                    "a quoted name is only allowed as the file of table() or spline()");
    return fail(P, FMB_EXPR_ESYNTAX, P->i, *p ? "unexpected character" : "unexpected end");
}

static int p_pexp(parser_t *P)
{
    skip(P);
    if (P->s[P->i] != '-') return p_primary(P);
    P->i++;
    if (enter(P)) return -1;
    int rc = p_power(P);
    P->depth--;
    return rc ? rc : emit_op(P, FMB_OP_NEG, 0);
}

static int p_power(parser_t *P)
{
    if (p_primary(P)) return -1;
    for (;;) {
        skip(P);
        if (P->s[P->i] != '^') return 0;
        size_t at = P->i++;
        if (count_op(P, at) || p_pexp(P) || emit_op(P, FMB_OP_POW, 0)) return -1;
    }
}

static int p_unary(parser_t *P)
{
    skip(P);
    const char c = P->s[P->i];
    if ((c == '-' || c == '+' || c == '!') && P->s[P->i + 1] != '=') {
        P->i++;
        if (enter(P)) return -1;
        int rc = p_unary(P);
        P->depth--;
        if (rc) return rc;
        return c == '+' ? 0 : emit_op(P, c == '-' ? FMB_OP_NEG : FMB_OP_NOT, 0);
    }
    return p_power(P);
}

/* One level of left-associative binary operators: ops[k] spelled sym[k]; longer
 * spellings first. */
static int p_binary(parser_t *P, int (*next)(parser_t *), const char *const *sym, const int *ops,
                    int nsym)
{
    if (next(P)) return -1;
    for (;;) {
        skip(P);
        int k = 0;
        for (; k < nsym; k++)
            if (!strncmp(P->s + P->i, sym[k], strlen(sym[k]))) break;
        if (k == nsym) return 0;
        /* '<' must not be the start of '<=' handled at another level, etc. */
        size_t at = P->i;
        P->i += strlen(sym[k]);
        if (count_op(P, at) || next(P) || emit_op(P, ops[k], 0)) return -1;
    }
}

static int p_mul(parser_t *P)
{
    static const char *const sym[] = {"*", "/"};
    static const int ops[] = {FMB_OP_MUL, FMB_OP_DIV};
    return p_binary(P, p_unary, sym, ops, 2);
}

static int p_add(parser_t *P)
{
    static const char *const sym[] = {"+", "-"};
    static const int ops[] = {FMB_OP_ADD, FMB_OP_SUB};
    return p_binary(P, p_mul, sym, ops, 2);
}

static int p_rel(parser_t *P)
{
    static const char *const sym[] = {"<=", ">=", "<", ">"};
    static const int ops[] = {FMB_OP_LE, FMB_OP_GE, FMB_OP_LT, FMB_OP_GT};
    return p_binary(P, p_add, sym, ops, 4);
}

static int p_eq(parser_t *P)
{
    static const char *const sym[] = {"==", "!="};
    static const int ops[] = {FMB_OP_EQ, FMB_OP_NE};
    return p_binary(P, p_rel, sym, ops, 2);
}

static int p_and(parser_t *P)
{
    static const char *const sym[] = {"&&"};
    static const int ops[] = {FMB_OP_AND};
    return p_binary(P, p_eq, sym, ops, 1);
}

static int p_or(parser_t *P)
{
    static const char *const sym[] = {"||"};
    static const int ops[] = {FMB_OP_OR};
    return p_binary(P, p_and, sym, ops, 1);
}

fmb_expr_t *fmb_expr_compile(const char *text, const fmb_expr_env_t *env, fmb_expr_err_t *err)
{
    memset(err, 0, sizeof *err);
    static const fmb_expr_env_t none = {NULL, NULL, 0, 0, NULL, NULL};
    parser_t P = {text ? text : "", 0, env ? env : &none, err, NULL, 0, 0, NULL, 0, 0, 0, 0, 0};
    int rc = p_nested(&P);
    if (rc == 0) {
        skip(&P);
        if (P.s[P.i])
            rc = fail(&P, FMB_EXPR_ESYNTAX, P.i,
                      P.s[P.i] == '=' ? "unexpected '=' (comparison is '==')"
                      : P.s[P.i] == '&' || P.s[P.i] == '|'
                          ? "unexpected character (logical operators are '&&' and '||')"
                          : "unexpected character");
    }
    fmb_expr_t *e = NULL;
    if (rc == 0) {
        e = calloc(1, sizeof *e);
        if (e) {
            e->code = P.code;
            e->ncode = P.n;
            e->maxstack = P.maxsp;
            P.code = NULL;
            e->text = strdup(P.s);
            e->stack = malloc((size_t)(P.maxsp > 0 ? P.maxsp : 1) * sizeof *e->stack);
            e->cache = calloc(4, sizeof *e->cache);
            e->cache_ok = calloc(1, sizeof *e->cache_ok);
        }
        if (!e || !e->text || !e->stack || !e->cache || !e->cache_ok) {
            fmb_expr_destroy(&e);
            memset(err, 0, sizeof *err);
            err->kind = FMB_EXPR_ENOMEM;
            snprintf(err->msg, sizeof err->msg, "out of memory");
        }
    }
    free(P.code);
    free(P.cst);
    return e;
}
