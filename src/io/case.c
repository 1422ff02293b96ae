/*
 * YAML case files: fmb_case_load and friends. Schema: docs/case-format.md.
 *
 * The file is read whole, parsed with the libyaml document API (nodes keep their
 * line/column for messages) and turned into fmb_model_add_* calls. Numeric values
 * are expressions of the parameters, evaluated here with libmatheval; time
 * expressions (driver functions, forces) are checked here and compiled by the model.
 * The loader stops at the first error, writes "PATH:LINE:COL: message" and frees
 * everything.
 */
#include "io/case.h"
#include "io/mesh.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <matheval.h>
#include <yaml.h>

#if defined(__GNUC__)
#define FMB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FMB_PRINTF(f, a)
#endif

struct fmb_case {
    char *path;
    char *text;
    char *title;
    char *output;
    fmb_model_t *model;
    fmb_sim_options_t opts;
    int nparam;
    char **pname; /* pool strings */
    double *pval;
    int nbodies, njoints, nforces;
    fmb_body_desc_t *bodies;
    fmb_joint_desc_t *joints;
    fmb_force_desc_t *forces;
    fmb_beam_desc_t *beams; /* per body (index body - 1); used when beam_kind != 0 */
    int *beam_kind;         /* per body: 0 rigid body, 1 beam, 2 beam built rigid */
    double **xs;            /* node position arrays owned by the case */
    int nxs;
    char **pool; /* every string the case owns besides path/text */
    int npool, cappool;
};

typedef struct point {
    const char *name;
    double xy[2];
} point_t;

typedef struct body_info {
    const char *name;
    int index; /* model index */
    double pose[3];
    point_t *pts;
    int npts;
    int beam; /* 0 rigid body, 1 beam, 2 beam built as a rigid bar */
} body_info_t;

typedef struct loader {
    fmb_case_t *c;
    yaml_document_t doc;
    int have_doc;
    char *err;
    size_t errlen;
    int failed;
    body_info_t *binfo; /* [0] is ground */
    int nb;
    const yaml_node_t *params; /* the parameters mapping, NULL if none */
} loader_t;

/* ------------------------------------------------------------------ small helpers */

static int fail(loader_t *L, const yaml_node_t *at, const char *fmt, ...) FMB_PRINTF(3, 4);

static int fail(loader_t *L, const yaml_node_t *at, const char *fmt, ...)
{
    if (L->failed) return FMB_ERR_PARSE;
    L->failed = 1;
    if (!L->err || L->errlen == 0) return FMB_ERR_PARSE;
    int line = at ? (int)at->start_mark.line + 1 : 1;
    int col = at ? (int)at->start_mark.column + 1 : 1;
    int n = snprintf(L->err, L->errlen, "%s:%d:%d: ", L->c->path, line, col);
    if (n >= 0 && (size_t)n < L->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L->err + n, L->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return FMB_ERR_PARSE;
}

static int nomem(loader_t *L, const yaml_node_t *at)
{
    return fail(L, at, "out of memory");
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* Copy s into the case's string pool; NULL on allocation failure. */
static const char *pool_str(fmb_case_t *c, const char *s)
{
    if (c->npool == c->cappool) {
        int cap = c->cappool ? 2 * c->cappool : 32;
        char **p = realloc(c->pool, (size_t)cap * sizeof *p);
        if (!p) return NULL;
        c->pool = p;
        c->cappool = cap;
    }
    char *d = xstrdup(s);
    if (!d) return NULL;
    c->pool[c->npool++] = d;
    return d;
}

static yaml_node_t *node_at(loader_t *L, int idx)
{
    return yaml_document_get_node(&L->doc, idx);
}

static const char *sval(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static int is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
    const char *s = sval(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static const char *kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return "a scalar";
    case YAML_SEQUENCE_NODE:
        return "a sequence";
    case YAML_MAPPING_NODE:
        return "a mapping";
    default:
        return "nothing";
    }
}

static int seq_len(const yaml_node_t *n)
{
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_item(loader_t *L, const yaml_node_t *n, int k)
{
    return node_at(L, n->data.sequence.items.start[k]);
}

static int is_ident(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (s++; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

/* Append ", name" entries to buf (bounded). */
static void list_add(char *buf, size_t len, const char *name)
{
    size_t used = strlen(buf);
    if (used + 1 >= len) return;
    snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

/* A library error from fmb_model_add_*: prefixed with the item unless the model's
 * message already names it. */
static int lib_fail(loader_t *L, const yaml_node_t *at, const char *ctx, const char *name)
{
    const char *msg = fmb_model_last_error(L->c->model);
    if (!msg || !*msg) msg = "rejected by the model";
    if (strstr(msg, name)) return fail(L, at, "%s", msg);
    return fail(L, at, "%s: %s", ctx, msg);
}

/* ------------------------------------------------------------------ mappings */

/* Check that map is a mapping whose keys are scalars from allowed (NULL-terminated)
 * and appear once. */
static int check_keys(loader_t *L, const yaml_node_t *map, const char *ctx,
                      const char *const allowed[])
{
    if (map->type != YAML_MAPPING_NODE)
        return fail(L, map, "%s must be a mapping, not %s", ctx, kind(map));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_at(L, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return fail(L, k, "%s: keys must be scalars, not %s", ctx, kind(k));
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            if (!strcmp(sval(k), allowed[i])) ok = 1;
        if (!ok) {
            char buf[400] = "";
            for (int i = 0; allowed[i]; i++)
                list_add(buf, sizeof buf, allowed[i]);
            return fail(L, k, "unknown key '%s' in %s (allowed: %s)", sval(k), ctx, buf);
        }
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
            if (!strcmp(sval(node_at(L, q->key)), sval(k)))
                return fail(L, k, "duplicate key '%s' in %s", sval(k), ctx);
    }
    return 0;
}

/* Value of key in a checked mapping; NULL if absent or null. */
static yaml_node_t *get(loader_t *L, const yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_at(L, p->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(sval(k), key)) {
            yaml_node_t *v = node_at(L, p->value);
            return is_null(v) ? NULL : v;
        }
    }
    return NULL;
}

static int get_string(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                      int required, const char **out)
{
    yaml_node_t *v = get(L, map, key);
    *out = NULL;
    if (!v) {
        if (required) return fail(L, map, "%s: missing required key '%s'", ctx, key);
        return 0;
    }
    if (v->type != YAML_SCALAR_NODE)
        return fail(L, v, "%s: '%s' must be a scalar, not %s", ctx, key, kind(v));
    *out = sval(v);
    return 0;
}

/* ------------------------------------------------------------------ expressions */

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
} xparse_t;

static int xerr(xparse_t *x, const char *msg)
{
    if (!x->msg) {
        x->msg = msg;
        x->at = x->i;
    }
    return -1;
}

static void xspace(xparse_t *x)
{
    while (x->s[x->i] == ' ' || x->s[x->i] == '\t')
        x->i++;
}

static int x_expr(xparse_t *x);

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
        return x_factor(x);
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
        if (x_factor(x)) return -1;
    }
}

static int x_expr(xparse_t *x)
{
    if (x_term(x)) return -1;
    for (;;) {
        xspace(x);
        char ch = x->s[x->i];
        if (ch != '+' && ch != '-') return 0;
        x->i++;
        if (x_term(x)) return -1;
    }
}

/* Parse text into a matheval evaluator; message on failure. */
static void *compile(loader_t *L, const yaml_node_t *at, const char *ctx, const char *text)
{
    xparse_t x = {text, 0, NULL, 0};
    if (x_expr(&x) == 0) {
        xspace(&x);
        if (x.s[x.i]) xerr(&x, "unexpected character");
    }
    if (x.msg) {
        fail(L, at, "%s: cannot parse expression '%s': %s at column %zu of the expression", ctx,
             text, x.msg, x.at + 1);
        return NULL;
    }
    char *copy = xstrdup(text);
    if (!copy) {
        nomem(L, at);
        return NULL;
    }
    void *ev = evaluator_create(copy);
    free(copy);
    if (!ev) fail(L, at, "%s: cannot parse expression '%s'", ctx, text);
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
                yaml_node_t *key = node_at(L, p->key);
                if (key->type == YAML_SCALAR_NODE && !strcmp(sval(key), names[k]))
                    return fail(L, at,
                                "%s: expression '%s' uses parameter '%s' before its "
                                "definition (line %d); a parameter may use earlier ones only",
                                ctx, text, names[k], (int)key->start_mark.line + 1);
            }
        }
        if (!found) {
            char buf[300] = "";
            if (allow_t) list_add(buf, sizeof buf, "t");
            for (int j = 0; j < nvis; j++)
                list_add(buf, sizeof buf, L->c->pname[j]);
            return fail(L, at, "%s: unknown name '%s' in expression '%s' (known: %s)", ctx,
                        names[k], text, *buf ? buf : "no parameters");
        }
    }
    return 0;
}

/* Evaluate text with the first nvis parameters. */
static int eval_text(loader_t *L, const yaml_node_t *at, const char *ctx, const char *text,
                     int nvis, double *out)
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
            rc = fail(L, at, "%s: expression '%s' is not finite (%g)", ctx, text, v);
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
        return fail(L, v, "%s must be a number or expression, not %s", what, kind(v));
    if (is_null(v)) return fail(L, v, "%s has no value", what);
    return eval_text(L, v, what, sval(v), L->c->nparam, out);
}

/* Optional number; *out unchanged when absent. *given set when present. */
static int get_num(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                   double *out, int *given)
{
    yaml_node_t *v = get(L, map, key);
    if (given) *given = v != NULL;
    if (!v) return 0;
    return num_node(L, v, ctx, key, out);
}

static int vec_node(loader_t *L, const yaml_node_t *v, const char *ctx, const char *key, int n,
                    double *out)
{
    if (v->type != YAML_SEQUENCE_NODE || seq_len(v) != n)
        return fail(L, v, "%s: '%s' must be a sequence of %d numbers, not %s", ctx, key, n,
                    v->type == YAML_SEQUENCE_NODE ? "a sequence of another length" : kind(v));
    for (int k = 0; k < n; k++) {
        char what[80];
        snprintf(what, sizeof what, "%s[%d]", key, k);
        int rc = num_node(L, seq_item(L, v, k), ctx, what, &out[k]);
        if (rc) return rc;
    }
    return 0;
}

static int get_vec(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int n,
                   double *out, int *given)
{
    yaml_node_t *v = get(L, map, key);
    if (given) *given = v != NULL;
    if (!v) return 0;
    return vec_node(L, v, ctx, key, n, out);
}

/* A time expression f(t, parameters): checked, copied into the pool. */
static int time_expr(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                     int required, const char *dflt, const char **out)
{
    yaml_node_t *v = get(L, map, key);
    if (!v) {
        if (required) return fail(L, map, "%s: missing required key '%s'", ctx, key);
        *out = dflt;
        return 0;
    }
    char what[200];
    snprintf(what, sizeof what, "%s: '%s'", ctx, key);
    if (v->type != YAML_SCALAR_NODE)
        return fail(L, v, "%s must be an expression of t, not %s", what, kind(v));
    void *ev = compile(L, v, what, sval(v));
    if (!ev) return FMB_ERR_PARSE;
    int rc = check_names(L, v, what, sval(v), ev, L->c->nparam, 1);
    evaluator_destroy(ev);
    if (rc) return rc;
    *out = pool_str(L->c, sval(v));
    return *out ? 0 : nomem(L, v);
}

/* ------------------------------------------------------------------ parameters */

static int find_param(const fmb_case_t *c, const char *name)
{
    for (int k = 0; k < c->nparam; k++)
        if (!strcmp(c->pname[k], name)) return k;
    return -1;
}

/* A name that libmatheval reads as a constant or function cannot be a parameter. */
static int reserved_name(const char *name)
{
    for (int k = 0; k_functions[k]; k++)
        if (!strcmp(name, k_functions[k])) return 1;
    char *copy = xstrdup(name);
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

static int load_parameters(loader_t *L, const yaml_node_t *sec, const char *const *ov, int nov)
{
    fmb_case_t *c = L->c;
    int n = 0;
    L->params = sec;
    if (sec) {
        if (sec->type != YAML_MAPPING_NODE)
            return fail(L, sec, "'parameters' must be a mapping of name: value, not %s", kind(sec));
        n = (int)(sec->data.mapping.pairs.top - sec->data.mapping.pairs.start);
    }
    for (int j = 0; j < n; j++) {
        yaml_node_t *k = node_at(L, sec->data.mapping.pairs.start[j].key);
        if (k->type != YAML_SCALAR_NODE)
            return fail(L, k, "parameter names must be scalars, not %s", kind(k));
    }
    /* overrides: name=value, the name must be a parameter */
    const char **ov_val = NULL;
    if (n > 0) {
        ov_val = calloc((size_t)n, sizeof *ov_val);
        c->pname = calloc((size_t)n, sizeof *c->pname);
        c->pval = calloc((size_t)n, sizeof *c->pval);
        if (!ov_val || !c->pname || !c->pval) {
            free(ov_val);
            return nomem(L, sec);
        }
    }
    int rc = 0;
    for (int k = 0; k < nov && !rc; k++) {
        const char *eq = ov[k] ? strchr(ov[k], '=') : NULL;
        if (!eq) {
            rc = fail(L, sec, "override '%s' is not of the form name=value",
                      ov[k] ? ov[k] : "(null)");
            break;
        }
        const char *b = ov[k], *e = eq;
        while (b < e && isspace((unsigned char)*b))
            b++;
        while (e > b && isspace((unsigned char)e[-1]))
            e--;
        int found = -1;
        for (int j = 0; j < n; j++) {
            const char *name = sval(node_at(L, sec->data.mapping.pairs.start[j].key));
            if (strlen(name) == (size_t)(e - b) && !strncmp(name, b, (size_t)(e - b))) found = j;
        }
        if (found < 0) {
            char buf[300] = "";
            for (int j = 0; j < n; j++)
                list_add(buf, sizeof buf, sval(node_at(L, sec->data.mapping.pairs.start[j].key)));
            rc = fail(L, sec, "override '%s': unknown parameter '%.*s' (parameters: %s)", ov[k],
                      (int)(e - b), b, *buf ? buf : "none");
            break;
        }
        ov_val[found] = eq + 1; /* the last override of a name wins */
    }
    for (int j = 0; j < n && !rc; j++) {
        yaml_node_pair_t *p = &sec->data.mapping.pairs.start[j];
        yaml_node_t *k = node_at(L, p->key), *v = node_at(L, p->value);
        const char *name = sval(k);
        if (!is_ident(name)) {
            rc = fail(L, k, "parameter name '%s' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
                      name);
            break;
        }
        if (!strcmp(name, "t") || reserved_name(name)) {
            rc = fail(L, k,
                      "parameter name '%s' is reserved (t, or a constant or function of "
                      "the expression language)",
                      name);
            break;
        }
        if (find_param(c, name) >= 0) {
            rc = fail(L, k, "duplicate parameter '%s'", name);
            break;
        }
        char ctx[160];
        double val = 0;
        if (ov_val[j]) {
            snprintf(ctx, sizeof ctx, "parameter '%s' (override '%s=%s')", name, name, ov_val[j]);
            rc = eval_text(L, v, ctx, ov_val[j], j, &val);
        } else {
            snprintf(ctx, sizeof ctx, "parameter '%s'", name);
            if (v->type != YAML_SCALAR_NODE)
                rc = fail(L, v, "%s must be a number or expression, not %s", ctx, kind(v));
            else if (is_null(v))
                rc = fail(L, v, "%s has no value", ctx);
            else
                rc = eval_text(L, v, ctx, sval(v), j, &val);
        }
        if (rc) break;
        c->pname[j] = (char *)pool_str(c, name);
        if (!c->pname[j]) {
            rc = nomem(L, k);
            break;
        }
        c->pval[j] = val;
        c->nparam = j + 1;
    }
    free(ov_val);
    if (rc) return rc;
    for (int j = 0; j < c->nparam; j++) {
        int r = fmb_model_set_param(c->model, c->pname[j], c->pval[j]);
        if (r < 0)
            return fail(L, node_at(L, sec->data.mapping.pairs.start[j].key), "parameter '%s': %s",
                        c->pname[j], fmb_model_last_error(c->model));
    }
    return 0;
}

/* ------------------------------------------------------------------ solver */

static int get_int(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int min,
                   int *out)
{
    double v;
    int given;
    int rc = get_num(L, map, key, ctx, &v, &given);
    if (rc || !given) return rc;
    if (v != floor(v) || v < min || v > 1e9)
        return fail(L, get(L, map, key), "%s: '%s' must be an integer >= %d, got %g", ctx, key, min,
                    v);
    *out = (int)v;
    return 0;
}

static int load_solver(loader_t *L, const yaml_node_t *sec)
{
    static const char *const keys[] = {"integrator", "alpha",    "beta",           "gamma",
                                       "rho_inf",    "h",        "t_end",          "output_every",
                                       "max_newton", "halving",  "rtol",           "atol",
                                       "phi_tol",    "ordering", "reuse_jacobian", NULL};
    fmb_sim_options_t *o = &L->c->opts;
    const char *ctx = "solver";
    int rc = check_keys(L, sec, ctx, keys);
    if (rc) return rc;
    const char *integ;
    if ((rc = get_string(L, sec, "integrator", ctx, 0, &integ))) return rc;
    if (integ) {
        if (!strcmp(integ, "hht"))
            o->integrator = FMB_HHT;
        else if (!strcmp(integ, "newmark"))
            o->integrator = FMB_NEWMARK;
        else if (!strcmp(integ, "generalized_alpha"))
            o->integrator = FMB_GENERALIZED_ALPHA;
        else
            return fail(L, get(L, sec, "integrator"),
                        "solver: unknown integrator '%s' (allowed: hht, newmark, "
                        "generalized_alpha)",
                        integ);
    }
    /* each integrator's own parameters */
    static const char *const params[][3] = {
        {"alpha", NULL, NULL}, {"beta", "gamma", NULL}, {"rho_inf", NULL, NULL}};
    static const char *const owner[] = {"hht", "newmark", "generalized_alpha"};
    for (int g = 0; g < 3; g++) {
        if (g == (int)o->integrator) continue;
        for (int k = 0; params[g][k]; k++)
            if (get(L, sec, params[g][k]))
                return fail(L, get(L, sec, params[g][k]),
                            "solver: '%s' applies to integrator %s only", params[g][k], owner[g]);
    }
    const char *ord;
    if ((rc = get_string(L, sec, "ordering", ctx, 0, &ord))) return rc;
    if (ord) {
        if (!strcmp(ord, "amd"))
            o->ordering = FMB_ORDERING_AMD;
        else if (!strcmp(ord, "metis"))
            o->ordering = FMB_ORDERING_METIS;
        else if (!strcmp(ord, "best"))
            o->ordering = FMB_ORDERING_BEST;
        else
            return fail(L, get(L, sec, "ordering"),
                        "solver: unknown ordering '%s' (allowed: amd, metis, best)", ord);
    }
    struct {
        const char *key;
        double *dst;
        double lo;
        int lo_open;
        double hi;
    } reals[] = {
        {"alpha", &o->alpha, -1.0 / 3.0, 0, 0.0}, {"beta", &o->beta, 0.0, 1, 1.0},
        {"gamma", &o->gamma, 0.5, 0, 1.0},        {"h", &o->h, 0.0, 1, INFINITY},
        {"t_end", &o->t_end, 0.0, 1, INFINITY},   {"rtol", &o->rtol, 0.0, 1, INFINITY},
        {"atol", &o->atol, 0.0, 1, INFINITY},     {"phi_tol", &o->phi_tol, 0.0, 1, INFINITY},
        {"rho_inf", &o->rho_inf, 0.0, 0, 1.0},
    };
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++) {
        double v;
        int given;
        if ((rc = get_num(L, sec, reals[k].key, ctx, &v, &given))) return rc;
        if (!given) continue;
        if ((reals[k].lo_open ? v <= reals[k].lo : v < reals[k].lo) || v > reals[k].hi) {
            char range[80];
            if (isinf(reals[k].hi))
                snprintf(range, sizeof range, "> %g", reals[k].lo);
            else
                snprintf(range, sizeof range, "in %s%g, %g]", reals[k].lo_open ? "(" : "[",
                         reals[k].lo, reals[k].hi);
            return fail(L, get(L, sec, reals[k].key), "solver: '%s' must be %s, got %g",
                        reals[k].key, range, v);
        }
        *reals[k].dst = v;
    }
    if ((rc = get_int(L, sec, "output_every", ctx, 1, &o->output_every)) ||
        (rc = get_int(L, sec, "max_newton", ctx, 1, &o->max_newton)) ||
        (rc = get_int(L, sec, "halving", ctx, 0, &o->halving)) ||
        (rc = get_int(L, sec, "reuse_jacobian", ctx, 0, &o->reuse_jacobian)))
        return rc;
    if (o->reuse_jacobian > 1)
        return fail(L, get(L, sec, "reuse_jacobian"), "solver: 'reuse_jacobian' is 0 or 1");
    return 0;
}

/* ------------------------------------------------------------------ bodies */

static int find_body(loader_t *L, const char *name)
{
    for (int k = 0; k < L->nb; k++)
        if (!strcmp(L->binfo[k].name, name)) return k;
    return -1;
}

static int add_point(loader_t *L, body_info_t *b, const yaml_node_t *at, const char *name, double x,
                     double y, const char *origin)
{
    for (int k = 0; k < b->npts; k++)
        if (!strcmp(b->pts[k].name, name))
            return fail(L, at, "body '%s': duplicate point '%s'%s", b->name, name, origin);
    point_t *p = realloc(b->pts, (size_t)(b->npts + 1) * sizeof *p);
    if (!p) return nomem(L, at);
    b->pts = p;
    p[b->npts].name = pool_str(L->c, name);
    if (!p[b->npts].name) return nomem(L, at);
    p[b->npts].xy[0] = x;
    p[b->npts].xy[1] = y;
    b->npts++;
    return 0;
}

/* The 'points' mapping of a body: name: [x, y] appended to bi. note: added to the
 * duplicate message when the name is one the loader defines itself. */
static int user_points(loader_t *L, const yaml_node_t *m, const char *ctx, body_info_t *bi,
                       const char *note)
{
    yaml_node_t *pts = get(L, m, "points");
    if (!pts) return 0;
    if (pts->type != YAML_MAPPING_NODE)
        return fail(L, pts, "%s: 'points' must be a mapping of name: [x, y], not %s", ctx,
                    kind(pts));
    for (yaml_node_pair_t *p = pts->data.mapping.pairs.start; p < pts->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_at(L, p->key);
        if (k->type != YAML_SCALAR_NODE || !*sval(k))
            return fail(L, k, "%s: point names must be non-empty scalars", ctx);
        int own = 0;
        for (int j = 0; j < bi->npts; j++)
            if (!strcmp(bi->pts[j].name, sval(k))) own = 1;
        double xy[2];
        int rc;
        if ((rc = vec_node(L, node_at(L, p->value), ctx, sval(k), 2, xy)) ||
            (rc = add_point(L, bi, k, sval(k), xy[0], xy[1], own ? note : "")))
            return rc;
    }
    return 0;
}

/* Pass the points of bi from index `from` on to the model. */
static int register_points(loader_t *L, const yaml_node_t *m, const char *ctx,
                           const body_info_t *bi, int from)
{
    for (int k = from; k < bi->npts; k++) {
        int r = fmb_model_add_body_point(L->c->model, bi->index, bi->pts[k].name, bi->pts[k].xy[0],
                                         bi->pts[k].xy[1]);
        if (r < 0)
            return fail(L, m, "%s: point '%s': %s", ctx, bi->pts[k].name,
                        fmb_model_last_error(L->c->model));
    }
    return 0;
}

/* A positive number (required when `required`). */
static int get_positive(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx,
                        int required, double *out, int *given)
{
    int has;
    int rc = get_num(L, map, key, ctx, out, &has);
    if (given) *given = has;
    if (rc) return rc;
    if (!has) return required ? fail(L, map, "%s: missing required key '%s'", ctx, key) : 0;
    if (!(*out > 0))
        return fail(L, get(L, map, key), "%s: '%s' must be positive, got %g", ctx, key, *out);
    return 0;
}

/* true/false (also yes/no, on/off, 1/0). */
static int get_bool(loader_t *L, const yaml_node_t *map, const char *key, const char *ctx, int *out)
{
    yaml_node_t *v = get(L, map, key);
    if (!v) return 0;
    static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "on", "1", NULL};
    static const char *const f[] = {"false", "False", "FALSE", "no", "No", "off", "0", NULL};
    if (v->type == YAML_SCALAR_NODE) {
        for (int k = 0; t[k]; k++)
            if (!strcmp(sval(v), t[k])) {
                *out = 1;
                return 0;
            }
        for (int k = 0; f[k]; k++)
            if (!strcmp(sval(v), f[k])) {
                *out = 0;
                return 0;
            }
    }
    if (v->type == YAML_SCALAR_NODE)
        return fail(L, v, "%s: '%s' must be true or false, not '%s'", ctx, key, sval(v));
    return fail(L, v, "%s: '%s' must be true or false, not %s", ctx, key, kind(v));
}

/* section: {circle: d} | {rectangle: [b, h]} | {A: .., I: ..} -> A, I. */
static int beam_section(loader_t *L, const yaml_node_t *sec, const char *ctx, double *A, double *I)
{
    static const char *const keys[] = {"circle", "rectangle", "A", "I", NULL};
    static const char *const forms =
        "{circle: d}, {rectangle: [b, h]} or {A: area, I: second moment}";
    char sctx[256];
    snprintf(sctx, sizeof sctx, "%s: beam section", ctx);
    if (sec->type != YAML_MAPPING_NODE)
        return fail(L, sec, "%s must be a mapping, one of %s, not %s", sctx, forms, kind(sec));
    int rc = check_keys(L, sec, sctx, keys);
    if (rc) return rc;
    yaml_node_t *ci = get(L, sec, "circle"), *re = get(L, sec, "rectangle");
    yaml_node_t *a = get(L, sec, "A"), *in = get(L, sec, "I");
    int forms_given = (ci != NULL) + (re != NULL) + (a || in);
    if (forms_given != 1)
        return fail(L, sec, "%s: give exactly one of %s%s", sctx, forms,
                    forms_given ? "" : " (none given)");
    const double pi = 3.14159265358979323846;
    if (ci) {
        double d;
        if ((rc = get_positive(L, sec, "circle", sctx, 1, &d, NULL))) return rc;
        *A = pi * d * d / 4;
        *I = pi * d * d * d * d / 64;
        return 0;
    }
    if (re) {
        double bh[2];
        if ((rc = vec_node(L, re, sctx, "rectangle", 2, bh))) return rc;
        if (!(bh[0] > 0) || !(bh[1] > 0))
            return fail(L, re, "%s: rectangle [b, h] needs positive sides, got [%g, %g]", sctx,
                        bh[0], bh[1]);
        *A = bh[0] * bh[1];
        *I = bh[0] * bh[1] * bh[1] * bh[1] / 12;
        return 0;
    }
    if (!a || !in)
        return fail(L, sec, "%s: {A: ..., I: ...} needs both A and I (missing '%s')", sctx,
                    a ? "I" : "A");
    if ((rc = get_positive(L, sec, "A", sctx, 1, A, NULL)) ||
        (rc = get_positive(L, sec, "I", sctx, 1, I, NULL)))
        return rc;
    return 0;
}

/* Directory part of path (with the trailing '/'), "" when none. */
static size_t dir_len(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? (size_t)(s - path + 1) : 0;
}

static int keep_array(loader_t *L, const yaml_node_t *at, double *x)
{
    fmb_case_t *c = L->c;
    double **p = realloc(c->xs, (size_t)(c->nxs + 1) * sizeof *p);
    if (!p) {
        free(x);
        return nomem(L, at);
    }
    c->xs = p;
    c->xs[c->nxs++] = x;
    return 0;
}

/* A body with a 'beam' mapping: an elastic beam, or its rigid equivalent when 'rigid' is
 * non-zero. */
static int load_beam_body(loader_t *L, const yaml_node_t *m, const char *name, const char *ctx)
{
    static const char *const rigid_keys[] = {"mass", "inertia", "com", "bar", NULL};
    static const char *const bkeys[] = {"E",        "rho",   "section",   "length",
                                        "elements", "mesh",  "reference", "rotary_inertia",
                                        "damping",  "rigid", NULL};
    fmb_case_t *c = L->c;
    int rc;
    for (int k = 0; rigid_keys[k]; k++) {
        /* present even when empty */
        for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
             p++) {
            yaml_node_t *key = node_at(L, p->key);
            if (!strcmp(sval(key), rigid_keys[k]))
                return fail(L, key,
                            "%s: '%s' cannot be mixed with 'beam' (a beam's mass and "
                            "inertia come from E, rho, section and length; to build it rigid "
                            "set 'rigid' in the beam)",
                            ctx, rigid_keys[k]);
        }
    }
    yaml_node_t *bm = get(L, m, "beam");
    char bctx[200];
    snprintf(bctx, sizeof bctx, "beam '%s'", name);
    if ((rc = check_keys(L, bm, bctx, bkeys))) return rc;
    fmb_beam_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    if ((rc = get_positive(L, bm, "E", bctx, 1, &d.E, NULL)) ||
        (rc = get_positive(L, bm, "rho", bctx, 1, &d.rho, NULL)))
        return rc;
    yaml_node_t *sec = get(L, bm, "section");
    if (!sec) return fail(L, bm, "%s: missing required key 'section'", bctx);
    if ((rc = beam_section(L, sec, bctx, &d.area, &d.inertia))) return rc;

    /* nodes: length + elements, or mesh */
    yaml_node_t *mesh = get(L, bm, "mesh"), *elems = get(L, bm, "elements");
    double len = 0;
    int has_len;
    if ((rc = get_positive(L, bm, "length", bctx, 0, &len, &has_len))) return rc;
    double *x = NULL;
    int nn = 0;
    if (mesh && elems)
        return fail(L, elems, "%s: give either 'mesh' or 'elements' (with 'length'), not both",
                    bctx);
    if (mesh) {
        const char *mp;
        if ((rc = get_string(L, bm, "mesh", bctx, 1, &mp))) return rc;
        size_t dl = mp[0] == '/' ? 0 : dir_len(c->path);
        size_t need = dl + strlen(mp) + 1;
        char *full = malloc(need);
        if (!full) return nomem(L, mesh);
        snprintf(full, need, "%.*s%s", (int)dl, c->path, mp);
        char merr[600];
        rc = fmb_mesh_read_line(full, &x, &nn, merr, sizeof merr);
        free(full);
        if (rc) return fail(L, mesh, "%s: mesh: %s", bctx, merr);
        if ((rc = keep_array(L, mesh, x))) return rc;
        if (has_len && fabs(x[nn - 1] - len) > 1e-6 * len)
            return fail(L, get(L, bm, "length"),
                        "%s: 'length' %g does not match the mesh "
                        "length %.9g",
                        bctx, len, x[nn - 1]);
    } else {
        if (!elems)
            return fail(L, bm,
                        "%s: give the nodes: 'length' and 'elements' (uniform), or "
                        "'mesh' (a Gmsh file)",
                        bctx);
        if (!has_len) return fail(L, bm, "%s: 'elements' needs 'length'", bctx);
        int ne = 0;
        if ((rc = get_int(L, bm, "elements", bctx, 1, &ne))) return rc;
        if (ne > 100000)
            return fail(L, elems, "%s: 'elements' %d is too many (at most 100000)", bctx, ne);
        nn = ne + 1;
        x = malloc((size_t)nn * sizeof *x);
        if (!x) return nomem(L, elems);
        for (int k = 0; k < nn; k++)
            x[k] = len * k / ne;
        x[ne] = len;
        if ((rc = keep_array(L, elems, x))) return rc;
    }
    d.nnodes = nn;
    d.x = x;
    const double L0 = x[nn - 1] - x[0];

    const char *ref;
    if ((rc = get_string(L, bm, "reference", bctx, 0, &ref))) return rc;
    d.reference = FMB_BEAM_SIMPLY_SUPPORTED;
    if (ref) {
        if (!strcmp(ref, "simply_supported"))
            d.reference = FMB_BEAM_SIMPLY_SUPPORTED;
        else if (!strcmp(ref, "cantilever"))
            d.reference = FMB_BEAM_CANTILEVER;
        else
            return fail(L, get(L, bm, "reference"),
                        "%s: unknown reference '%s' (allowed: "
                        "simply_supported, cantilever)",
                        bctx, ref);
    }
    if ((rc = get_bool(L, bm, "rotary_inertia", bctx, &d.rotary_inertia))) return rc;
    yaml_node_t *damp = get(L, bm, "damping");
    if (damp) {
        static const char *const dkeys[] = {"alpha", "beta", NULL};
        char dctx[256];
        snprintf(dctx, sizeof dctx, "%s: damping", bctx);
        if ((rc = check_keys(L, damp, dctx, dkeys)) ||
            (rc = get_num(L, damp, "alpha", dctx, &d.damping_alpha, NULL)) ||
            (rc = get_num(L, damp, "beta", dctx, &d.damping_beta, NULL)))
            return rc;
        if (d.damping_alpha < 0 || d.damping_beta < 0)
            return fail(L, damp, "%s: alpha and beta must be >= 0, got %g and %g", dctx,
                        d.damping_alpha, d.damping_beta);
    }
    double rigid = 0;
    if ((rc = get_num(L, bm, "rigid", bctx, &rigid, NULL))) return rc;
    if ((rc = get_vec(L, m, "pose", ctx, 3, d.pose, NULL)) ||
        (rc = get_vec(L, m, "velocity", ctx, 3, d.vel, NULL)))
        return rc;
    d.name = pool_str(c, name);
    if (!d.name) return nomem(L, m);

    body_info_t *bi = &L->binfo[L->nb];
    memset(bi, 0, sizeof *bi);
    bi->name = d.name;
    bi->beam = rigid != 0 ? 2 : 1;
    memcpy(bi->pose, d.pose, sizeof bi->pose);
    L->nb++; /* owns bi->pts from here on */
    /* node points n0 .. n{N} (the model adds them to a beam itself), start, end */
    for (int k = 0; k < nn; k++) {
        char pn[32];
        snprintf(pn, sizeof pn, "n%d", k);
        if ((rc = add_point(L, bi, m, pn, x[k], 0, ""))) return rc;
    }
    const int model_has = bi->beam == 1 ? nn : 0;
    if ((rc = add_point(L, bi, m, "start", x[0], 0, "")) ||
        (rc = add_point(L, bi, m, "end", x[nn - 1], 0, "")))
        return rc;
    if ((rc = user_points(L, m, ctx, bi, " (a beam defines n0, n1, ..., start and end)")))
        return rc;

    fmb_body_desc_t bd;
    memset(&bd, 0, sizeof bd);
    bd.name = d.name;
    bd.mass = d.rho * d.area * L0;
    memcpy(bd.pose, d.pose, sizeof bd.pose);
    memcpy(bd.vel, d.vel, sizeof bd.vel);
    bd.line = d.line;
    /* the equivalent rigid uniform bar (built when rigid, kept for information else) */
    bd.inertia = bd.mass * L0 * L0 / 12;
    bd.com[0] = 0.5 * (x[0] + x[nn - 1]);
    bd.com[1] = 0;
    int idx;
    if (bi->beam == 2) {
        idx = fmb_model_add_body(c->model, &bd);
    } else {
        idx = fmb_model_add_beam(c->model, &d);
    }
    if (idx < 0) return lib_fail(L, m, ctx, name);
    bi->index = idx;
    if ((rc = register_points(L, m, ctx, bi, model_has))) return rc;
    c->beams[c->nbodies] = d;
    c->beam_kind[c->nbodies] = bi->beam;
    c->bodies[c->nbodies++] = bd;
    return 0;
}

static int load_body(loader_t *L, const yaml_node_t *m)
{
    static const char *const keys[] = {"name", "mass",     "inertia", "com",  "bar",
                                       "pose", "velocity", "points",  "beam", NULL};
    fmb_case_t *c = L->c;
    int rc = check_keys(L, m, "body", keys);
    if (rc) return rc;
    const char *name;
    if ((rc = get_string(L, m, "name", "body", 1, &name))) return rc;
    char ctx[160];
    snprintf(ctx, sizeof ctx, "body '%s'", name);
    if (find_body(L, name) >= 0)
        return fail(L, get(L, m, "name"), "duplicate body name '%s'%s", name,
                    strcmp(name, "ground") ? "" : " ('ground' is body 0)");

    if (get(L, m, "beam")) return load_beam_body(L, m, name, ctx);

    fmb_body_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    int has_mass, has_inertia, has_com, has_bar;
    double bar = 0;
    if ((rc = get_num(L, m, "mass", ctx, &d.mass, &has_mass))) return rc;
    if (!has_mass) return fail(L, m, "%s: missing required key 'mass'", ctx);
    if (d.mass <= 0)
        return fail(L, get(L, m, "mass"), "%s: mass must be positive, got %g", ctx, d.mass);
    if ((rc = get_num(L, m, "bar", ctx, &bar, &has_bar))) return rc;
    if (has_bar && bar <= 0)
        return fail(L, get(L, m, "bar"), "%s: zero-length link: bar length must be > 0, got %g",
                    ctx, bar);
    if ((rc = get_num(L, m, "inertia", ctx, &d.inertia, &has_inertia))) return rc;
    if (!has_inertia) {
        if (!has_bar) return fail(L, m, "%s: missing required key 'inertia' (or give 'bar')", ctx);
        d.inertia = d.mass * bar * bar / 12.0;
    }
    if (d.inertia <= 0)
        return fail(L, get(L, m, "inertia"), "%s: inertia must be positive, got %g", ctx,
                    d.inertia);
    if (has_bar) {
        d.com[0] = bar / 2;
        d.com[1] = 0;
    }
    if ((rc = get_vec(L, m, "com", ctx, 2, d.com, &has_com)) ||
        (rc = get_vec(L, m, "pose", ctx, 3, d.pose, NULL)) ||
        (rc = get_vec(L, m, "velocity", ctx, 3, d.vel, NULL)))
        return rc;
    d.name = pool_str(c, name);
    if (!d.name) return nomem(L, m);

    body_info_t *bi = &L->binfo[L->nb];
    memset(bi, 0, sizeof *bi);
    bi->name = d.name;
    memcpy(bi->pose, d.pose, sizeof bi->pose);
    L->nb++; /* owns bi->pts from here on */
    if (has_bar) {
        if ((rc = add_point(L, bi, m, "start", 0, 0, "")) ||
            (rc = add_point(L, bi, m, "end", bar, 0, "")))
            return rc;
    }
    if ((rc = user_points(L, m, ctx, bi, has_bar ? " ('bar' defines 'start' and 'end')" : "")))
        return rc;

    int idx = fmb_model_add_body(c->model, &d);
    if (idx < 0) return lib_fail(L, m, ctx, name);
    bi->index = idx;
    if ((rc = register_points(L, m, ctx, bi, 0))) return rc;
    c->bodies[c->nbodies++] = d;
    return 0;
}

/* Body named by scalar node n; sets *bi (loader index). */
static int body_ref(loader_t *L, const yaml_node_t *n, const char *ctx, int *bi)
{
    if (n->type != YAML_SCALAR_NODE)
        return fail(L, n, "%s: a body name is expected, not %s", ctx, kind(n));
    int k = find_body(L, sval(n));
    if (k < 0) {
        char buf[300] = "";
        for (int j = 0; j < L->nb; j++)
            list_add(buf, sizeof buf, L->binfo[j].name);
        return fail(L, n, "%s: unknown body '%s' (bodies: %s)", ctx, sval(n), buf);
    }
    *bi = k;
    return 0;
}

/* Point on body bi: a point name of that body or [x, y]. */
static int point_ref(loader_t *L, const yaml_node_t *n, const char *ctx, int bi, double xy[2])
{
    const body_info_t *b = &L->binfo[bi];
    if (n->type == YAML_SEQUENCE_NODE) return vec_node(L, n, ctx, "point", 2, xy);
    if (n->type != YAML_SCALAR_NODE)
        return fail(L, n, "%s: a point name or [x, y] is expected, not %s", ctx, kind(n));
    for (int k = 0; k < b->npts; k++)
        if (!strcmp(b->pts[k].name, sval(n))) {
            xy[0] = b->pts[k].xy[0];
            xy[1] = b->pts[k].xy[1];
            return 0;
        }
    char buf[300] = "";
    for (int k = 0; k < b->npts; k++)
        list_add(buf, sizeof buf, b->pts[k].name);
    if (bi == 0)
        return fail(L, n,
                    "%s: unknown point '%s' on body 'ground' (ground points are given as "
                    "[x, y])",
                    ctx, sval(n));
    return fail(L, n, "%s: unknown point '%s' on body '%s' (points: %s)", ctx, sval(n), b->name,
                *buf ? buf : "none");
}

/* bodies: [b1, b2] and points: [p1, p2]; min_n..2 entries, missing body is ground and
 * missing point [0, 0]. */
static int body_pair(loader_t *L, const yaml_node_t *m, const char *ctx, int min_n, int bi[2],
                     double pt[2][2])
{
    yaml_node_t *bs = get(L, m, "bodies"), *ps = get(L, m, "points");
    bi[0] = bi[1] = 0;
    memset(pt, 0, 4 * sizeof(double));
    if (!bs) return fail(L, m, "%s: missing required key 'bodies'", ctx);
    if (bs->type != YAML_SEQUENCE_NODE || seq_len(bs) < min_n || seq_len(bs) > 2)
        return fail(L, bs, "%s: 'bodies' must be a sequence of %s body names, not %s", ctx,
                    min_n == 2 ? "2" : "1 or 2",
                    bs->type == YAML_SEQUENCE_NODE ? "a sequence of another length" : kind(bs));
    int n = seq_len(bs);
    for (int k = 0; k < n; k++) {
        int rc = body_ref(L, seq_item(L, bs, k), ctx, &bi[k]);
        if (rc) return rc;
    }
    if (ps) {
        if (ps->type != YAML_SEQUENCE_NODE || seq_len(ps) != n)
            return fail(L, ps,
                        "%s: 'points' must be a sequence of %d entries (one per body), "
                        "not %s",
                        ctx, n,
                        ps->type == YAML_SEQUENCE_NODE ? "a sequence of another length" : kind(ps));
        for (int k = 0; k < n; k++) {
            int rc = point_ref(L, seq_item(L, ps, k), ctx, bi[k], pt[k]);
            if (rc) return rc;
        }
    }
    return 0;
}

/* Same body at both ends: a zero-length link if the points coincide, else an error. */
static int same_body(loader_t *L, const yaml_node_t *m, const char *ctx, const int bi[2],
                     double pt[2][2])
{
    if (bi[0] != bi[1]) return 0;
    if (hypot(pt[0][0] - pt[1][0], pt[0][1] - pt[1][1]) <= 1e-12)
        return fail(L, m, "%s: zero-length link: both points are the same point of body '%s'", ctx,
                    L->binfo[bi[0]].name);
    return fail(L, m, "%s: connects body '%s' to itself", ctx, L->binfo[bi[0]].name);
}

/* Friction of a sliding joint (docs/case-format.md, 'friction'): the slider block and its
 * friction law. Values are checked here, at their keys; the model checks the joint type
 * (prismatic or slider_beam) and what it implements. */
static int load_friction(loader_t *L, const yaml_node_t *fn, const char *ctx,
                         fmb_friction_desc_t *f)
{
    static const char *const keys[] = {"model",   "a",      "b",      "mu", "mu0",
                                       "sigma0",  "sigma1", "sigma2", "vs", "gamma",
                                       "v_stick", "vd",     NULL};
    static const char *const lugre_only[] = {"sigma0", "sigma1", "sigma2", "vs",
                                             "gamma",  "vd",     NULL};
    char fctx[200];
    snprintf(fctx, sizeof fctx, "%s: friction", ctx);
    int rc = check_keys(L, fn, fctx, keys);
    if (rc) return rc;
    const char *model;
    if ((rc = get_string(L, fn, "model", fctx, 1, &model))) return rc;
    /* defaults: seed 000's LuGre parameters, stick flag below 0.1 mm/s */
    memset(f, 0, sizeof *f);
    f->mu = 0.56;
    f->mu0 = 0.75;
    f->sigma0 = 1.3e6;
    f->sigma1 = 350;
    f->sigma2 = 0;
    f->vs = 0.0009;
    f->gamma = 2;
    f->v_stick = 1e-4;
    if (!strcmp(model, "lugre"))
        f->model = FMB_FRICTION_LUGRE;
    else if (!strcmp(model, "coulomb"))
        f->model = FMB_FRICTION_COULOMB;
    else if (!strcmp(model, "none"))
        f->model = FMB_FRICTION_NONE;
    else
        return fail(L, get(L, fn, "model"),
                    "%s: unknown friction model '%s' (allowed: lugre, coulomb, none)", fctx, model);
    if (f->model == FMB_FRICTION_COULOMB)
        for (int k = 0; lugre_only[k]; k++)
            if (get(L, fn, lugre_only[k]))
                return fail(L, get(L, fn, lugre_only[k]), "%s: '%s' applies to model lugre only",
                            fctx, lugre_only[k]);
    struct {
        const char *key;
        double *dst;
        int strict; /* 1: > 0, 0: >= 0 */
    } vals[] = {
        {"a", &f->a, 1},           {"b", &f->b, 0},
        {"mu", &f->mu, 0},         {"mu0", &f->mu0, 0},
        {"sigma0", &f->sigma0, 1}, {"sigma1", &f->sigma1, 0},
        {"sigma2", &f->sigma2, 0}, {"vs", &f->vs, 1},
        {"gamma", &f->gamma, 1},   {"v_stick", &f->v_stick, 1},
        {"vd", &f->vd, 0},
    };
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        int given;
        if ((rc = get_num(L, fn, vals[k].key, fctx, vals[k].dst, &given))) return rc;
        if (!given) {
            if (k == 0)
                return fail(L, fn, "%s: missing required key 'a' (slider half-length, m)", fctx);
            continue;
        }
        double v = *vals[k].dst;
        if (vals[k].strict ? !(v > 0) : !(v >= 0))
            return fail(L, get(L, fn, vals[k].key), "%s: '%s' must be %s 0, got %g", fctx,
                        vals[k].key, vals[k].strict ? ">" : ">=", v);
    }
    if (f->mu0 < f->mu)
        return fail(L, get(L, fn, get(L, fn, "mu0") ? "mu0" : "mu"),
                    "%s: the static coefficient mu0 (%g) must be >= the kinetic mu (%g)", fctx,
                    f->mu0, f->mu);
    if (f->model == FMB_FRICTION_NONE) memset(f, 0, sizeof *f);
    return 0;
}

/* An item of the joints or forces sequence: its type names the enumerator and the keys
 * that type accepts. */
typedef struct item_type {
    const char *name;
    int type;
    const char *const *keys;
} item_type_t;

/* Common head of a joint or force item: keys known to some type, a unique name, a known
 * type whose own keys are the only ones present. Writes the name, the context "what
 * 'name'" and the type entry. */
static int item_head(loader_t *L, const yaml_node_t *m, const char *what, const char *const *any,
                     const item_type_t *types, int ntypes, const char *const *existing,
                     size_t stride, int nexisting, const char **name, char *ctx, size_t ctxlen,
                     const item_type_t **type)
{
    int rc = check_keys(L, m, what, any);
    if (rc) return rc;
    if ((rc = get_string(L, m, "name", what, 1, name))) return rc;
    snprintf(ctx, ctxlen, "%s '%s'", what, *name);
    for (int k = 0; k < nexisting; k++) {
        const char *other = *(const char *const *)((const char *)existing + stride * (size_t)k);
        if (!strcmp(other, *name))
            return fail(L, get(L, m, "name"), "duplicate %s name '%s'", what, *name);
    }
    const char *tname;
    if ((rc = get_string(L, m, "type", ctx, 1, &tname))) return rc;
    *type = NULL;
    for (int k = 0; k < ntypes; k++)
        if (!strcmp(types[k].name, tname)) *type = &types[k];
    if (!*type) {
        char allowed[256] = "";
        for (int k = 0; k < ntypes; k++) {
            size_t len = strlen(allowed);
            snprintf(allowed + len, sizeof allowed - len, "%s%s", k ? ", " : "", types[k].name);
        }
        return fail(L, get(L, m, "type"), "%s: unknown %s type '%s' (allowed: %s)", ctx, what,
                    tname, allowed);
    }
    char kctx[200];
    snprintf(kctx, sizeof kctx, "%s %s '%s'", tname, what, *name);
    return check_keys(L, m, kctx, (*type)->keys);
}

static int load_joint(loader_t *L, const yaml_node_t *m)
{
    static const char *const any[] = {"name",  "type",     "bodies",     "points",   "axis",
                                      "angle", "function", "coordinate", "friction", NULL};
    static const char *const k_sb[] = {"name",  "type",     "bodies", "points",
                                       "angle", "friction", NULL};
    /* 'friction' on a joint that does not slide: the model says why not */
    static const char *const k_rev[] = {"name", "type", "bodies", "points", "friction", NULL};
    static const char *const k_weld[] = {"name",  "type",     "bodies", "points",
                                         "angle", "friction", NULL};
    static const char *const k_pri[] = {"name", "type",  "bodies",   "points",
                                        "axis", "angle", "friction", NULL};
    static const char *const k_drv[] = {"name",     "type",       "bodies",   "points",
                                        "function", "coordinate", "friction", NULL};
    static const item_type_t types[] = {
        {"revolute", FMB_JOINT_REVOLUTE, k_rev},
        {"prismatic", FMB_JOINT_PRISMATIC, k_pri},
        {"weld", FMB_JOINT_WELD, k_weld},
        {"driver", FMB_JOINT_DRIVER_ANGLE, k_drv},
        {"slider_beam", FMB_JOINT_SLIDER_BEAM, k_sb},
    };
    fmb_case_t *c = L->c;
    const char *name;
    char ctx[160];
    const item_type_t *t;
    int rc = item_head(L, m, "joint", any, types, (int)(sizeof types / sizeof types[0]),
                       c->njoints ? &c->joints[0].name : NULL, sizeof c->joints[0], c->njoints,
                       &name, ctx, sizeof ctx, &t);
    if (rc) return rc;
    fmb_joint_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    d.axis[0] = 1;
    d.type = (fmb_joint_type)t->type;
    int bi[2];
    if ((rc = body_pair(L, m, ctx, d.type == FMB_JOINT_DRIVER_ANGLE ? 1 : 2, bi, d.point)))
        return rc;
    if (d.type == FMB_JOINT_DRIVER_ANGLE) {
        const char *coord;
        if ((rc = get_string(L, m, "coordinate", ctx, 1, &coord))) return rc;
        if (!strcmp(coord, "x"))
            d.type = FMB_JOINT_DRIVER_X;
        else if (!strcmp(coord, "y"))
            d.type = FMB_JOINT_DRIVER_Y;
        else if (strcmp(coord, "angle"))
            return fail(L, get(L, m, "coordinate"),
                        "%s: unknown driver coordinate '%s' (allowed: angle, x, y)", ctx, coord);
        if ((rc = time_expr(L, m, "function", ctx, 1, NULL, &d.expr))) return rc;
        if (d.type == FMB_JOINT_DRIVER_ANGLE && bi[0] == bi[1])
            return fail(L, m, "%s: drives the angle of body '%s' relative to itself", ctx,
                        L->binfo[bi[0]].name);
        if (d.type != FMB_JOINT_DRIVER_ANGLE && bi[0] == 0)
            return fail(L, m, "%s: drives a point of the ground", ctx);
    } else {
        if ((rc = same_body(L, m, ctx, bi, d.point))) return rc;
    }
    if (d.type == FMB_JOINT_SLIDER_BEAM) {
        /* slider (rigid body) on the centre line of a beam: the guide point is the beam's
         * axis itself, so only [0, 0] (or a point naming it, n0 / start) is accepted */
        yaml_node_t *bs = get(L, m, "bodies");
        const body_info_t *gb = &L->binfo[bi[1]];
        if (!gb->beam)
            return fail(L, seq_item(L, bs, 1),
                        "%s: the second body '%s' of a slider_beam "
                        "joint is not a beam (declare it with 'beam:')",
                        ctx, gb->name);
        if (L->binfo[bi[0]].beam || bi[0] == 0)
            return fail(L, seq_item(L, bs, 0),
                        "%s: the first body '%s' of a slider_beam "
                        "joint (the slider) must be a rigid body",
                        ctx, L->binfo[bi[0]].name);
        if (hypot(d.point[1][0], d.point[1][1]) > 0) {
            yaml_node_t *ps = get(L, m, "points");
            return fail(L, ps ? seq_item(L, ps, 1) : m,
                        "%s: the guide point of a slider_beam "
                        "joint must be [0, 0] (the slider moves along the beam's x axis), got "
                        "[%g, %g]",
                        ctx, d.point[1][0], d.point[1][1]);
        }
        d.angle = L->binfo[bi[0]].pose[2] - gb->pose[2];
        if ((rc = get_num(L, m, "angle", ctx, &d.angle, NULL))) return rc;
        if (gb->beam == 2) {
            /* guide built rigid: the same slider as a prismatic joint along its x axis */
            d.type = FMB_JOINT_PRISMATIC;
            d.axis[0] = 1, d.axis[1] = 0;
        }
    }
    const int slider = t->type == FMB_JOINT_SLIDER_BEAM;
    if (d.type == FMB_JOINT_PRISMATIC && !slider) {
        if ((rc = get_vec(L, m, "axis", ctx, 2, d.axis, NULL))) return rc;
        if (hypot(d.axis[0], d.axis[1]) <= 1e-12)
            return fail(L, get(L, m, "axis"), "%s: prismatic axis must be non-zero", ctx);
    }
    if ((d.type == FMB_JOINT_PRISMATIC || d.type == FMB_JOINT_WELD) && !slider) {
        /* locked relative angle theta_1 - theta_2: from the initial poses unless given */
        d.angle = L->binfo[bi[0]].pose[2] - L->binfo[bi[1]].pose[2];
        if ((rc = get_num(L, m, "angle", ctx, &d.angle, NULL))) return rc;
    }
    yaml_node_t *fr = get(L, m, "friction");
    if (fr && (rc = load_friction(L, fr, ctx, &d.friction))) return rc;
    d.body[0] = L->binfo[bi[0]].index;
    d.body[1] = L->binfo[bi[1]].index;
    d.name = pool_str(c, name);
    if (!d.name) return nomem(L, m);
    int idx = fmb_model_add_joint(c->model, &d);
    if (idx < 0) {
        /* the model's friction checks (joint type, unimplemented model): at 'friction' */
        const char *msg = fmb_model_last_error(c->model);
        if (fr && msg &&
            (strstr(msg, "friction") || strstr(msg, "Coulomb") || strstr(msg, "LuGre") ||
             strstr(msg, "half-length")))
            return lib_fail(L, fr, ctx, name);
        return lib_fail(L, m, ctx, name);
    }
    c->joints[c->njoints++] = d;
    return 0;
}

static void inertial_point(const body_info_t *b, const double u[2], double r[2])
{
    double cs = cos(b->pose[2]), sn = sin(b->pose[2]);
    r[0] = b->pose[0] + cs * u[0] - sn * u[1];
    r[1] = b->pose[1] + sn * u[0] + cs * u[1];
}

static int load_force(loader_t *L, const yaml_node_t *m)
{
    static const char *const any[] = {"name",    "type",        "body",   "point",  "fx",
                                      "fy",      "tz",          "bodies", "points", "stiffness",
                                      "damping", "rest_length", "angle",  NULL};
    static const char *const k_pt[] = {"name", "type", "body", "point", "fx", "fy", NULL};
    static const char *const k_tq[] = {"name", "type", "body", "tz", NULL};
    static const char *const k_sp[] = {"name",      "type",    "bodies",      "points",
                                       "stiffness", "damping", "rest_length", NULL};
    static const char *const k_ts[] = {"name",    "type",  "bodies", "stiffness",
                                       "damping", "angle", NULL};
    static const item_type_t types[] = {
        {"point", FMB_FORCE_POINT, k_pt},
        {"torque", FMB_FORCE_TORQUE, k_tq},
        {"spring", FMB_FORCE_SPRING, k_sp},
        {"torsion", FMB_FORCE_TORSION, k_ts},
    };
    fmb_case_t *c = L->c;
    const char *name;
    char ctx[160];
    const item_type_t *t;
    int rc = item_head(L, m, "force", any, types, (int)(sizeof types / sizeof types[0]),
                       c->nforces ? &c->forces[0].name : NULL, sizeof c->forces[0], c->nforces,
                       &name, ctx, sizeof ctx, &t);
    if (rc) return rc;
    fmb_force_desc_t d;
    memset(&d, 0, sizeof d);
    d.line = (int)m->start_mark.line + 1;
    d.type = (fmb_force_type)t->type;
    int bi[2] = {0, 0};
    if (d.type == FMB_FORCE_TORSION) {
        /* torsional spring-damper: M = -k (theta1 - theta2 - angle) - c (w1 - w2) */
        if ((rc = body_pair(L, m, ctx, 1, bi, d.point))) return rc;
        if (bi[0] == 0)
            return fail(L, get(L, m, "bodies"), "%s: the first body must not be the ground", ctx);
        int has_angle;
        if ((rc = get_num(L, m, "stiffness", ctx, &d.stiffness, NULL)) ||
            (rc = get_num(L, m, "damping", ctx, &d.damping, NULL)) ||
            (rc = get_num(L, m, "angle", ctx, &d.rest_length, &has_angle)))
            return rc;
        if (d.stiffness < 0 || d.damping < 0)
            return fail(L, get(L, m, d.stiffness < 0 ? "stiffness" : "damping"),
                        "%s: stiffness and damping must be >= 0", ctx);
        if (!has_angle) /* rest angle: the relative angle of the initial poses */
            d.rest_length = L->binfo[bi[0]].pose[2] - L->binfo[bi[1]].pose[2];
    } else if (d.type == FMB_FORCE_SPRING) {
        if ((rc = body_pair(L, m, ctx, 2, bi, d.point)) || (rc = same_body(L, m, ctx, bi, d.point)))
            return rc;
        int has_k, has_rest;
        if ((rc = get_num(L, m, "stiffness", ctx, &d.stiffness, &has_k)) ||
            (rc = get_num(L, m, "damping", ctx, &d.damping, NULL)) ||
            (rc = get_num(L, m, "rest_length", ctx, &d.rest_length, &has_rest)))
            return rc;
        if (!has_k) return fail(L, m, "%s: missing required key 'stiffness'", ctx);
        static const char *const nonneg[] = {"stiffness", "damping", "rest_length"};
        double vals[] = {d.stiffness, d.damping, d.rest_length};
        for (int k = 0; k < 3; k++)
            if (vals[k] < 0)
                return fail(L, get(L, m, nonneg[k]), "%s: '%s' must be >= 0, got %g", ctx,
                            nonneg[k], vals[k]);
        if (!has_rest) {
            double r0[2], r1[2];
            inertial_point(&L->binfo[bi[0]], d.point[0], r0);
            inertial_point(&L->binfo[bi[1]], d.point[1], r1);
            d.rest_length = hypot(r1[0] - r0[0], r1[1] - r0[1]);
        }
    } else {
        yaml_node_t *bn = get(L, m, "body");
        if (!bn) return fail(L, m, "%s: missing required key 'body'", ctx);
        if ((rc = body_ref(L, bn, ctx, &bi[0]))) return rc;
        if (bi[0] == 0) return fail(L, bn, "%s: acts on the ground", ctx);
        if (d.type == FMB_FORCE_POINT) {
            yaml_node_t *pn = get(L, m, "point");
            if (pn && (rc = point_ref(L, pn, ctx, bi[0], d.point[0]))) return rc;
            if ((rc = time_expr(L, m, "fx", ctx, 0, "0", &d.expr[0])) ||
                (rc = time_expr(L, m, "fy", ctx, 0, "0", &d.expr[1])))
                return rc;
        } else {
            if ((rc = time_expr(L, m, "tz", ctx, 1, NULL, &d.expr[0]))) return rc;
        }
        bi[1] = bi[0];
    }
    d.body[0] = L->binfo[bi[0]].index;
    d.body[1] = L->binfo[bi[1]].index;
    d.name = pool_str(c, name);
    if (!d.name) return nomem(L, m);
    int idx = fmb_model_add_force(c->model, &d);
    if (idx < 0) return lib_fail(L, m, ctx, name);
    c->forces[c->nforces++] = d;
    return 0;
}

/* A list section: sequence of mappings (absent or null: empty). */
static int load_list(loader_t *L, const yaml_node_t *sec, const char *key,
                     int (*item)(loader_t *, const yaml_node_t *))
{
    if (!sec) return 0;
    if (sec->type != YAML_SEQUENCE_NODE)
        return fail(L, sec, "'%s' must be a sequence, not %s", key, kind(sec));
    for (int k = 0; k < seq_len(sec); k++) {
        int rc = item(L, seq_item(L, sec, k));
        if (rc) return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ top level */

static int read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno ? errno : EIO;
                free(buf);
                fclose(f);
                return -e;
            }
            break;
        }
    }
    fclose(f);
    if (!buf) return -ENOMEM;
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int yaml_failure(loader_t *L, const yaml_parser_t *p)
{
    yaml_node_t at;
    memset(&at, 0, sizeof at);
    const char *problem = p->problem ? p->problem : "unknown problem";
    if (p->error == YAML_MEMORY_ERROR) return nomem(L, NULL);
    if (p->error == YAML_READER_ERROR) {
        /* only a byte offset is known: locate it in the text */
        size_t off = p->problem_offset;
        const char *t = L->c->text;
        size_t line = 0, col = 0;
        for (size_t i = 0; i < off && t[i]; i++) {
            if (t[i] == '\n') {
                line++;
                col = 0;
            } else {
                col++;
            }
        }
        at.start_mark.line = line;
        at.start_mark.column = col;
        return fail(L, &at, "YAML error: %s", problem);
    }
    at.start_mark = p->problem_mark;
    if (p->context)
        return fail(L, &at, "YAML syntax error: %s %s (line %d)", problem, p->context,
                    (int)p->context_mark.line + 1);
    return fail(L, &at, "YAML syntax error: %s", problem);
}

static int load_doc(loader_t *L, const char *const *ov, int nov)
{
    static const char *const keys[] = {"title",  "parameters", "gravity", "solver", "output",
                                       "bodies", "joints",     "forces",  NULL};
    fmb_case_t *c = L->c;
    yaml_node_t *root = yaml_document_get_root_node(&L->doc);
    if (!root) return fail(L, NULL, "empty case file");
    int rc = check_keys(L, root, "the case file", keys);
    if (rc) return rc;
    c->model = fmb_model_create();
    if (!c->model) return nomem(L, root);
    fmb_model_set_source(c->model, c->path);

    const char *s;
    if ((rc = get_string(L, root, "title", "case", 0, &s))) return rc;
    if (s && !(c->title = xstrdup(s))) return nomem(L, root);
    if ((rc = get_string(L, root, "output", "case", 0, &s))) return rc;
    if (s && !(c->output = xstrdup(s))) return nomem(L, root);

    if ((rc = load_parameters(L, get(L, root, "parameters"), ov, nov))) return rc;
    double g[2] = {0, 0};
    if ((rc = get_vec(L, root, "gravity", "case", 2, g, NULL))) return rc;
    fmb_model_set_gravity(c->model, g[0], g[1]);
    yaml_node_t *solver = get(L, root, "solver");
    if (solver && (rc = load_solver(L, solver))) return rc;

    /* room for every list item (upper bounds) */
    yaml_node_t *secs[3] = {get(L, root, "bodies"), get(L, root, "joints"), get(L, root, "forces")};
    int cnt[3];
    for (int k = 0; k < 3; k++)
        cnt[k] = secs[k] && secs[k]->type == YAML_SEQUENCE_NODE ? seq_len(secs[k]) : 0;
    L->binfo = calloc((size_t)cnt[0] + 1, sizeof *L->binfo);
    c->bodies = calloc((size_t)cnt[0] + 1, sizeof *c->bodies);
    c->joints = calloc((size_t)cnt[1] + 1, sizeof *c->joints);
    c->forces = calloc((size_t)cnt[2] + 1, sizeof *c->forces);
    c->beams = calloc((size_t)cnt[0] + 1, sizeof *c->beams);
    c->beam_kind = calloc((size_t)cnt[0] + 1, sizeof *c->beam_kind);
    if (!L->binfo || !c->bodies || !c->joints || !c->forces || !c->beams || !c->beam_kind)
        return nomem(L, root);
    L->binfo[0].name = "ground";
    L->binfo[0].index = FMB_GROUND;
    L->nb = 1;

    if ((rc = load_list(L, secs[0], "bodies", load_body)) ||
        (rc = load_list(L, secs[1], "joints", load_joint)) ||
        (rc = load_list(L, secs[2], "forces", load_force)))
        return rc;
    return 0;
}

fmb_case_t *fmb_case_load(const char *path, const char *const *overrides, int n, char *err,
                          size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (!path || n < 0 || (n > 0 && !overrides)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: invalid argument to fmb_case_load", path ? path : "(null)");
        return NULL;
    }
    fmb_case_t *c = calloc(1, sizeof *c);
    if (!c || !(c->path = xstrdup(path))) {
        if (err && errlen) snprintf(err, errlen, "%s: out of memory", path);
        free(c);
        return NULL;
    }
    fmb_sim_options_default(&c->opts);
    size_t len = 0;
    int e = read_file(path, &c->text, &len);
    if (e) {
        if (err && errlen) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-e));
        fmb_case_destroy(&c);
        return NULL;
    }

    loader_t L;
    memset(&L, 0, sizeof L);
    L.c = c;
    L.err = err;
    L.errlen = errlen;
    yaml_parser_t parser;
    int rc = 0;
    if (!yaml_parser_initialize(&parser)) {
        rc = nomem(&L, NULL);
    } else {
        yaml_parser_set_input_string(&parser, (const unsigned char *)c->text, len);
        if (!yaml_parser_load(&parser, &L.doc)) {
            rc = yaml_failure(&L, &parser);
        } else {
            L.have_doc = 1;
            /* a second document is a mistake, not something to ignore */
            yaml_document_t extra;
            if (!yaml_parser_load(&parser, &extra)) {
                rc = yaml_failure(&L, &parser);
            } else {
                yaml_node_t *r2 = yaml_document_get_root_node(&extra);
                if (r2) rc = fail(&L, r2, "a case file holds one YAML document, found another");
                yaml_document_delete(&extra);
            }
        }
        yaml_parser_delete(&parser);
    }
    if (!rc) rc = load_doc(&L, overrides, n);
    if (L.have_doc) yaml_document_delete(&L.doc);
    for (int k = 0; k < L.nb; k++)
        free(L.binfo ? L.binfo[k].pts : NULL);
    free(L.binfo);
    if (rc || L.failed) {
        fmb_case_destroy(&c);
        return NULL;
    }
    return c;
}

void fmb_case_destroy(fmb_case_t **cp)
{
    if (!cp || !*cp) return;
    fmb_case_t *c = *cp;
    fmb_model_destroy(&c->model);
    for (int k = 0; k < c->npool; k++)
        free(c->pool[k]);
    free(c->pool);
    free(c->pname);
    free(c->pval);
    free(c->bodies);
    free(c->joints);
    free(c->forces);
    free(c->beams);
    free(c->beam_kind);
    for (int k = 0; k < c->nxs; k++)
        free(c->xs[k]);
    free(c->xs);
    free(c->title);
    free(c->output);
    free(c->text);
    free(c->path);
    free(c);
    *cp = NULL;
}

fmb_model_t *fmb_case_model(fmb_case_t *c)
{
    return c ? c->model : NULL;
}

const fmb_sim_options_t *fmb_case_options(const fmb_case_t *c)
{
    return c ? &c->opts : NULL;
}

const char *fmb_case_text(const fmb_case_t *c)
{
    return c ? c->text : NULL;
}

const char *fmb_case_path(const fmb_case_t *c)
{
    return c ? c->path : NULL;
}

const char *fmb_case_output(const fmb_case_t *c)
{
    return c ? c->output : NULL;
}

/* ------------------------------------------------------------------ private accessors */

const char *fmb_case_title(const fmb_case_t *c)
{
    return c ? c->title : NULL;
}

int fmb_case_num_params(const fmb_case_t *c)
{
    return c ? c->nparam : 0;
}

const char *fmb_case_param_name(const fmb_case_t *c, int k)
{
    return c && k >= 0 && k < c->nparam ? c->pname[k] : NULL;
}

int fmb_case_param(const fmb_case_t *c, const char *name, double *value)
{
    int k = c && name ? find_param(c, name) : -1;
    if (k < 0) return FMB_ERR_NOTFOUND;
    if (value) *value = c->pval[k];
    return 0;
}

int fmb_case_num_bodies(const fmb_case_t *c)
{
    return c ? c->nbodies : 0;
}

const fmb_body_desc_t *fmb_case_body_desc(const fmb_case_t *c, int body)
{
    return c && body >= 1 && body <= c->nbodies ? &c->bodies[body - 1] : NULL;
}

const fmb_beam_desc_t *fmb_case_beam_desc(const fmb_case_t *c, int body)
{
    return c && body >= 1 && body <= c->nbodies && c->beam_kind[body - 1] ? &c->beams[body - 1]
                                                                          : NULL;
}

int fmb_case_beam_is_rigid(const fmb_case_t *c, int body)
{
    return c && body >= 1 && body <= c->nbodies && c->beam_kind[body - 1] == 2;
}

int fmb_case_num_joints(const fmb_case_t *c)
{
    return c ? c->njoints : 0;
}

const fmb_joint_desc_t *fmb_case_joint_desc(const fmb_case_t *c, int joint)
{
    return c && joint >= 0 && joint < c->njoints ? &c->joints[joint] : NULL;
}

int fmb_case_num_forces(const fmb_case_t *c)
{
    return c ? c->nforces : 0;
}

const fmb_force_desc_t *fmb_case_force_desc(const fmb_case_t *c, int force)
{
    return c && force >= 0 && force < c->nforces ? &c->forces[force] : NULL;
}
