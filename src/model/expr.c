/* Expressions of t and the model parameters: compiled by expr_parse.c, evaluated by
 * expr_eval.c; tables come from the parameters' table set (model/table.c). */
#include "model/expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/expr_impl.h"
#include "model/table.h"

static const fmb_table_t *params_table(void *user, const char *file, int spline, char *msg,
                                       size_t len)
{
    fmb_params_t *p = user;
    if (!p->tables && !(p->tables = fmb_tableset_create(NULL))) {
        snprintf(msg, len, "out of memory");
        return NULL;
    }
    return fmb_tableset_get(p->tables, file, spline, msg, len);
}

fmb_expr_t *fmb_expr_create(const char *expr, const fmb_params_t *params, char *msg, size_t len)
{
    fmb_expr_env_t env = {NULL, NULL, 0, 1, params_table, (void *)params};
    if (params) {
        env.names = (const char *const *)params->names;
        env.values = params->values;
        env.n = params->n;
    } else {
        env.table = NULL;
    }
    fmb_expr_err_t err;
    fmb_expr_t *e = fmb_expr_compile(expr ? expr : "", &env, &err);
    if (!e) {
        if (err.kind == FMB_EXPR_ENAME)
            snprintf(msg, len, "unknown name '%s' in expression '%.80s' (known: t and the parameters)",
                     err.name, expr ? expr : "");
        else
            snprintf(msg, len, "expression '%.80s': %s at column %zu", expr ? expr : "", err.msg,
                     err.at + 1);
    }
    return e;
}

void fmb_expr_destroy(fmb_expr_t **pe)
{
    if (!pe || !*pe) return;
    fmb_expr_t *e = *pe;
    free(e->code);
    free(e->stack);
    free(e->text);
    free(e->cache);
    free(e->cache_ok);
    free(e);
    *pe = NULL;
}

double fmb_expr_eval(const fmb_expr_t *e, double t, int d)
{
    if (!*e->cache_ok || e->cache[0] != t) {
        fmb_jet_t j = fmb_expr_jet(e, t);
        e->cache[0] = t;
        e->cache[1] = j.v;
        e->cache[2] = j.d1;
        e->cache[3] = j.d2;
        *e->cache_ok = 1;
    }
    return e->cache[1 + (d < 0 ? 0 : d > 2 ? 2 : d)];
}

const char *fmb_expr_text(const fmb_expr_t *e)
{
    return e->text;
}

int fmb_params_set(fmb_params_t *p, const char *name, double value)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->names[i], name) == 0) {
            p->values[i] = value;
            return 0;
        }
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        char **nn = realloc(p->names, (size_t)cap * sizeof *nn);
        if (!nn) return -1;
        p->names = nn;
        double *nv = realloc(p->values, (size_t)cap * sizeof *nv);
        if (!nv) return -1;
        p->values = nv;
        p->cap = cap;
    }
    p->names[p->n] = strdup(name);
    if (!p->names[p->n]) return -1;
    p->values[p->n++] = value;
    return 0;
}

void fmb_params_free(fmb_params_t *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->names[i]);
    free(p->names);
    free(p->values);
    fmb_tableset_destroy(&p->tables);
    memset(p, 0, sizeof *p);
}
