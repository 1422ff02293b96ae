/* Expressions in case files: checked against the grammar before libmatheval sees them,
 * evaluated with the parameters (numbers, vectors), and compiled as time functions. */
#include "io/case_loader.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <matheval.h>

/* libmatheval leaks on syntax errors and says nothing about them, so expressions
 * are checked first against its grammar: + - * / ^ (left-associative, binds tighter
 * than unary minus), unary -, parentheses, numbers, names, constants, functions. */
static const char *const k_functions[] = {
    "exp",  "log",  "sqrt",  "sin",   "cos",      "tan",   "cot",   "sec",   "csc",
    "asin", "acos", "atan",  "acot",  "asec",     "acsc",  "sinh",  "cosh",  "tanh",
    "coth", "sech", "csch",  "asinh", "acosh",    "atanh", "acoth", "asech", "acsch",
    "abs",  "step", "delta", "erf",   "nandelta", NULL};

typedef struct xparse {
    const char *s;
    size_t i;
    const char *msg;
    size_t at;
    int depth; /* nesting of parentheses and unary minus (recursion depth) */
    int nops;  /* binary operators so far */
} xparse_t;

/* Expressions nest at most this deep (parentheses, function calls, unary minus): the
 * checker recurses per level, and libmatheval's symbolic derivatives grow with it. */
#define FMB_EXPR_MAX_DEPTH 100
/* ... and have at most this many binary operators: the symbolic second derivative of a
 * product of n factors has O(n^2) terms (a 1.6 KB product took gigabytes). */
#define FMB_EXPR_MAX_OPS 200

static int count_op(xparse_t *x);

static int xerr(xparse_t *x, const char *msg)
{
    if (!x->msg) {
        x->msg = msg;
        x->at = x->i;
    }
    return -1;
}

static int count_op(xparse_t *x)
{
    return ++x->nops > FMB_EXPR_MAX_OPS ? xerr(x, "more than 200 operators") : 0;
}

static void xspace(xparse_t *x)
{
    while (x->s[x->i] == ' ' || x->s[x->i] == '\t')
        x->i++;
}

static int x_expr(xparse_t *x);
static int x_expr_body(xparse_t *x);

static int x_primary(xparse_t *x)
{
    xspace(x);
    const char *p = x->s + x->i;
    static const char *const digit_consts[] = {"2_sqrtpi", "1_pi", "2_pi", NULL};
    for (int k = 0; digit_consts[k]; k++) {
        size_t n = strlen(digit_consts[k]);
        if (!strncmp(p, digit_consts[k], n) && !isalnum((unsigned char)p[n]) && p[n] != '_') {
            x->i += n;
            return 0;
        }
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        while (isdigit((unsigned char)x->s[x->i]))
            x->i++;
        if (x->s[x->i] == '.') {
            x->i++;
            while (isdigit((unsigned char)x->s[x->i]))
                x->i++;
        }
        if (x->s[x->i] == 'e' || x->s[x->i] == 'E') {
            size_t j = x->i + 1;
            if (x->s[j] == '+' || x->s[j] == '-') j++;
            if (isdigit((unsigned char)x->s[j])) {
                while (isdigit((unsigned char)x->s[j]))
                    j++;
                x->i = j;
            }
        }
        return 0;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
        size_t start = x->i;
        while (isalnum((unsigned char)x->s[x->i]) || x->s[x->i] == '_')
            x->i++;
        size_t n = x->i - start;
        int fn = 0;
        for (int k = 0; k_functions[k]; k++)
            if (strlen(k_functions[k]) == n && !strncmp(p, k_functions[k], n)) fn = 1;
        xspace(x);
        if (x->s[x->i] == '(') {
            if (!fn) {
                x->i = start;
                return xerr(x, "not a function");
            }
            x->i++;
            if (x_expr(x)) return -1;
            xspace(x);
            if (x->s[x->i] != ')') return xerr(x, "expected ')'");
            x->i++;
            return 0;
        }
        if (fn) {
            x->i = start;
            return xerr(x, "function needs parenthesized argument");
        }
        return 0;
    }
    if (*p == '(') {
        x->i++;
        if (x_expr(x)) return -1;
        xspace(x);
        if (x->s[x->i] != ')') return xerr(x, "expected ')'");
        x->i++;
        return 0;
    }
    return xerr(x, *p ? "unexpected character" : "unexpected end");
}

static int x_power(xparse_t *x)
{
    if (x_primary(x)) return -1;
    for (;;) {
        xspace(x);
        if (x->s[x->i] != '^') return 0;
        x->i++;
        xspace(x);
        while (x->s[x->i] == '-') {
            x->i++;
            xspace(x);
        }
        if (x_primary(x)) return -1;
    }
}

static int x_factor(xparse_t *x)
{
    xspace(x);
    if (x->s[x->i] == '-') {
        x->i++;
        if (++x->depth > FMB_EXPR_MAX_DEPTH)
            return xerr(x, "nested deeper than 100 levels (parentheses, calls, unary minus)");
        int rc = x_factor(x);
        x->depth--;
        return rc;
    }
    return x_power(x);
}

static int x_term(xparse_t *x)
{
    if (x_factor(x)) return -1;
    for (;;) {
        xspace(x);
        char ch = x->s[x->i];
        if (ch != '*' && ch != '/') return 0;
        x->i++;
        if (count_op(x) || x_factor(x)) return -1;
    }
}

static int x_expr(xparse_t *x)
{
    if (++x->depth > FMB_EXPR_MAX_DEPTH)
        return xerr(x, "nested deeper than 100 levels (parentheses, calls, unary minus)");
    int rc = x_expr_body(x);
    x->depth--;
    return rc;
}

static int x_expr_body(xparse_t *x)
{
    if (x_term(x)) return -1;
    for (;;) {
        xspace(x);
        char ch = x->s[x->i];
        if (ch != '+' && ch != '-') return 0;
        x->i++;
        if (count_op(x) || x_term(x)) return -1;
    }
}

/* Parse text into a matheval evaluator; message on failure. */
static void *compile(loader_t *L, const yaml_node_t *at, const char *ctx, const char *text)
{
    xparse_t x = {text, 0, NULL, 0, 0, 0};
    if (x_expr(&x) == 0) {
        xspace(&x);
        if (x.s[x.i]) xerr(&x, "unexpected character");
    }
    if (x.msg) {
        case_fail(L, at, "%s: cannot parse expression '%.60s%s': %s at column %zu of the expression",
                  ctx, text, strlen(text) > 60 ? "..." : "", x.msg, x.at + 1);
        return NULL;
    }
    char *copy = case_xstrdup(text);
    if (!copy) {
        case_nomem(L, at);
        return NULL;
    }
    void *ev = evaluator_create(copy);
    free(copy);
    if (!ev) case_fail(L, at, "%s: cannot parse expression '%s'", ctx, text);
    return ev;
}

/* Check that every name of ev is one of the first nvis parameters (or t when
 * allow_t). */
static int check_names(loader_t *L, const yaml_node_t *at, const char *ctx, const char *text,
                       void *ev, int nvis, int allow_t)
{
    char **names;
    int count;
    evaluator_get_variables(ev, &names, &count);
    for (int k = 0; k < count; k++) {
        if (allow_t && !strcmp(names[k], "t")) continue;
        int found = 0;
        for (int j = 0; j < nvis; j++)
            if (!strcmp(names[k], L->c->pname[j])) found = 1;
        if (!found && L->params && L->params->type == YAML_MAPPING_NODE) {
            /* a parameter defined further down */
            for (yaml_node_pair_t *p = L->params->data.mapping.pairs.start;
                 p < L->params->data.mapping.pairs.top; p++) {
                yaml_node_t *key = case_node_at(L, p->key);
                if (key->type == YAML_SCALAR_NODE && !strcmp(case_sval(key), names[k]))
                    return case_fail(L, at,
                                     "%s: expression '%s' uses parameter '%s' before its "
                                     "definition (line %d); a parameter may use earlier ones only",
                                     ctx, text, names[k], (int)key->start_mark.line + 1);
            }
        }
        if (!found) {
            char buf[300] = "";
            if (allow_t) case_list_add(buf, sizeof buf, "t");
            for (int j = 0; j < nvis; j++)
                case_list_add(buf, sizeof buf, L->c->pname[j]);
            return case_fail(L, at, "%s: unknown name '%s' in expression '%s' (known: %s)", ctx,
                             names[k], text, *buf ? buf : "no parameters");
        }
    }
    return 0;
}

/* Evaluate text with the first nvis parameters. */
int case_eval_text(loader_t *L, const yaml_node_t *at, const char *ctx, const char *text, int nvis,
                   double *out)
{
    const char *s = text;
    while (*s == ' ')
        s++;
    if (isdigit((unsigned char)*s) || *s == '.' || *s == '-' || *s == '+') {
        char *end;
        double v = strtod(s, &end);
        while (*end == ' ')
            end++;
        if (end != s && !*end && isfinite(v)) {
            *out = v;
            return 0;
        }
    }
    void *ev = compile(L, at, ctx, text);
    if (!ev) return FMB_ERR_PARSE;
    int rc = check_names(L, at, ctx, text, ev, nvis, 0);
    if (rc == 0) {
        double v = evaluator_evaluate(ev, nvis, L->c->pname, L->c->pval);
        if (!isfinite(v))
            rc = case_fail(L, at, "%s: expression '%s' is not finite (%g)", ctx, text, v);
        else
            *out = v;
    }
    evaluator_destroy(ev);
    return rc;
}

static int num_node(loader_t *L, const yaml_node_t *v, const char *ctx, const char *key,
                    double *out)
{
    char what[200];
    snprintf(what, sizeof what, "%s: '%s'", ctx, key);
    if (v->type != YAML_SCALAR_NODE)
        return case_fail(L, v, "%s must be a number or expression, not %s", what, case_kind(v));
    if (case_is_null(v)) return case_fail(L, v, "%s has no value", what);
    return case_eval_text(L, v, what, case_sval(v), L->c->nparam, out);
}

/* Optional number; *out unchanged when absent. *given set when present. */
int case_get_num(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, double *out,
                 int *given)
{
    yaml_node_t *v = case_get(L, map, key);
    if (given) *given = v != NULL;
    if (!v) return 0;
    return num_node(L, v, ctx, key, out);
}

int case_vec_node(loader_t *L, const yaml_node_t *v, const char *ctx, const char *key, int n,
                  double *out)
{
    if (v->type != YAML_SEQUENCE_NODE || case_seq_len(v) != n)
        return case_fail(L, v, "%s: '%s' must be a sequence of %d numbers, not %s", ctx, key, n,
                         v->type == YAML_SEQUENCE_NODE ? "a sequence of another length"
                                                       : case_kind(v));
    for (int k = 0; k < n; k++) {
        char what[80];
        snprintf(what, sizeof what, "%s[%d]", key, k);
        int rc = num_node(L, case_seq_item(L, v, k), ctx, what, &out[k]);
        if (rc) return rc;
    }
    return 0;
}

int case_get_vec(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int n,
                 double *out, int *given)
{
    yaml_node_t *v = case_get(L, map, key);
    if (given) *given = v != NULL;
    if (!v) return 0;
    return case_vec_node(L, v, ctx, key, n, out);
}

/* A time expression f(t, parameters): checked, copied into the pool. */
int case_time_expr(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                   int required, const char *dflt, const char **out)
{
    yaml_node_t *v = case_get(L, map, key);
    if (!v) {
        if (required) return case_fail(L, map, "%s: missing required key '%s'", ctx, key);
        *out = dflt;
        return 0;
    }
    char what[200];
    snprintf(what, sizeof what, "%s: '%s'", ctx, key);
    if (v->type != YAML_SCALAR_NODE)
        return case_fail(L, v, "%s must be an expression of t, not %s", what, case_kind(v));
    void *ev = compile(L, v, what, case_sval(v));
    if (!ev) return FMB_ERR_PARSE;
    int rc = check_names(L, v, what, case_sval(v), ev, L->c->nparam, 1);
    evaluator_destroy(ev);
    if (rc) return rc;
    *out = case_pool_str(L->c, case_sval(v));
    return *out ? 0 : case_nomem(L, v);
}

int case_find_param(const fmb_case_t *c, const char *name)
{
    for (int k = 0; k < c->nparam; k++)
        if (!strcmp(c->pname[k], name)) return k;
    return -1;
}

/* A name that libmatheval reads as a constant or function cannot be a parameter. */
int case_reserved_name(const char *name)
{
    for (int k = 0; k_functions[k]; k++)
        if (!strcmp(name, k_functions[k])) return 1;
    char *copy = case_xstrdup(name);
    if (!copy) return 0;
    void *ev = evaluator_create(copy);
    free(copy);
    if (!ev) return 1;
    char **names;
    int count;
    evaluator_get_variables(ev, &names, &count);
    int res = count != 1 || strcmp(names[0], name) != 0;
    evaluator_destroy(ev);
    return res;
}
