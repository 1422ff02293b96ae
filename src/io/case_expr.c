/* Expressions in case files: compiled by the model's expression compiler
 * (model/expr_parse.c) against the parameters defined so far; numbers are evaluated
 * here, time expressions are checked here and compiled again by the model. Tables named
 * by table()/spline() are read here, relative to the case file, into the model's table
 * set (the model's expressions find them there). */
#include "io/case_loader.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/expr.h"
#include "model/model.h"
#include "model/table.h"

static const fmb_table_t *case_table(void *user, const char *file, int spline, char *msg,
                                     size_t len)
{
    loader_t *L = user;
    fmb_params_t *p = &L->c->model->params;
    if (!p->tables) {
        /* the directory of the case file */
        char *dir = case_xstrdup(L->c->path);
        if (!dir) {
            snprintf(msg, len, "out of memory");
            return NULL;
        }
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        else strcpy(dir, ".");
        if (slash == dir) strcpy(dir, "/");
        p->tables = fmb_tableset_create(dir);
        free(dir);
        if (!p->tables) {
            snprintf(msg, len, "out of memory");
            return NULL;
        }
    }
    const int before = fmb_tableset_count(p->tables);
    const fmb_table_t *tb = fmb_tableset_get(p->tables, file, spline, msg, len);
    if (tb && fmb_tableset_count(p->tables) > before && L->c->ninputs < FMB_CASE_MAX_INPUTS) {
        const char *path = case_pool_str(L->c, fmb_table_path(tb));
        if (path) L->c->inputs[L->c->ninputs++] = path;
    }
    return tb;
}

/* The node to report an error at offset `at` of its text: a one-line plain scalar points
 * at the column itself, other scalars at their start. */
static yaml_node_t at_column(const yaml_node_t *node, size_t at)
{
    yaml_node_t n = *node;
    if (node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        node->start_mark.line == node->end_mark.line)
        n.start_mark.column += at;
    return n;
}

/* Compile text with the first nvis parameters (and t when allow_t); message on failure. */
static fmb_expr_t *compile(loader_t *L, const yaml_node_t *at, const char *ctx, const char *text,
                           int nvis, int allow_t)
{
    fmb_expr_env_t env = {(const char *const *)L->c->pname, L->c->pval, nvis, allow_t,
                          case_table, L};
    fmb_expr_err_t err;
    fmb_expr_t *e = fmb_expr_compile(text, &env, &err);
    if (e) return e;
    yaml_node_t where = at_column(at, err.at);
    const char *dots = strlen(text) > 60 ? "..." : "";
    switch (err.kind) {
    case FMB_EXPR_ENAME: break;
    case FMB_EXPR_ETABLE: case_fail(L, &where, "%s: %s", ctx, err.msg); return NULL;
    case FMB_EXPR_ENOMEM: case_nomem(L, at); return NULL;
    default:
        case_fail(L, &where,
                  "%s: cannot parse expression '%.60s%s': %s at column %zu of the expression",
                  ctx, text, dots, err.msg, err.at + 1);
        return NULL;
    }
    /* an unknown name: a parameter defined further down, or a typo */
    if (L->params && L->params->type == YAML_MAPPING_NODE) {
        for (yaml_node_pair_t *p = L->params->data.mapping.pairs.start;
             p < L->params->data.mapping.pairs.top; p++) {
            yaml_node_t *key = case_node_at(L, p->key);
            if (key->type == YAML_SCALAR_NODE && !strcmp(case_sval(key), err.name)) {
                case_fail(L, &where,
                          "%s: expression '%s' uses parameter '%s' before its "
                          "definition (line %d); a parameter may use earlier ones only",
                          ctx, text, err.name, (int)key->start_mark.line + 1);
                return NULL;
            }
        }
    }
    char buf[300] = "";
    if (allow_t) case_list_add(buf, sizeof buf, "t");
    for (int j = 0; j < nvis; j++)
        case_list_add(buf, sizeof buf, L->c->pname[j]);
    case_fail(L, &where, "%s: unknown name '%s' in expression '%s' (known: %s)", ctx, err.name,
              text, *buf ? buf : "no parameters");
    return NULL;
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
    fmb_expr_t *e = compile(L, at, ctx, text, nvis, 0);
    if (!e) return FMB_ERR_PARSE;
    int rc = 0;
    double v = fmb_expr_eval(e, 0.0, 0);
    if (!isfinite(v))
        rc = case_fail(L, at, "%s: expression '%s' is not finite (%g)", ctx, text, v);
    else
        *out = v;
    fmb_expr_destroy(&e);
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
    fmb_expr_t *e = compile(L, v, what, case_sval(v), L->c->nparam, 1);
    if (!e) return FMB_ERR_PARSE;
    fmb_expr_destroy(&e);
    *out = case_pool_str(L->c, case_sval(v));
    return *out ? 0 : case_nomem(L, v);
}

int case_find_param(const fmb_case_t *c, const char *name)
{
    for (int k = 0; k < c->nparam; k++)
        if (!strcmp(c->pname[k], name)) return k;
    return -1;
}

/* A constant or function name of the expressions cannot be a parameter. */
int case_reserved_name(const char *name)
{
    return fmb_expr_reserved(name);
}
