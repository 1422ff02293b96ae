/* Time functions via libmatheval: the expression, its first and second symbolic
 * derivatives in t, evaluated with the model parameters bound as variables. */
#include "model/expr.h"

#include <matheval.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fmb_expr {
    void *f[3]; /* f, f', f'' */
    char *text;
    char **names; /* "t" then the parameters */
    double *values;
    int n;
};

fmb_expr_t *fmb_expr_create(const char *expr, const fmb_params_t *params, char *msg, size_t len)
{
    fmb_expr_t *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(msg, len, "out of memory");
        return NULL;
    }
    e->text = strdup(expr ? expr : "");
    e->n = 1 + (params ? params->n : 0);
    e->names = calloc((size_t)e->n, sizeof *e->names);
    e->values = calloc((size_t)e->n, sizeof *e->values);
    if (!e->text || !e->names || !e->values) {
        snprintf(msg, len, "out of memory");
        fmb_expr_destroy(&e);
        return NULL;
    }
    e->names[0] = "t";
    for (int i = 1; i < e->n; i++) {
        e->names[i] = params->names[i - 1];
        e->values[i] = params->values[i - 1];
    }
    /* libmatheval modifies nothing but needs a non-const buffer. */
    e->f[0] = evaluator_create(e->text);
    if (!e->f[0]) {
        snprintf(msg, len, "cannot parse expression '%s'", e->text);
        fmb_expr_destroy(&e);
        return NULL;
    }
    char **vars;
    int nv;
    evaluator_get_variables(e->f[0], &vars, &nv);
    for (int k = 0; k < nv; k++) {
        int found = 0;
        for (int i = 0; i < e->n; i++)
            if (strcmp(vars[k], e->names[i]) == 0) found = 1;
        if (!found) {
            snprintf(msg, len, "unknown name '%s' in expression '%s' (known: t and the parameters)",
                     vars[k], e->text);
            fmb_expr_destroy(&e);
            return NULL;
        }
    }
    e->f[1] = evaluator_derivative(e->f[0], "t");
    e->f[2] = e->f[1] ? evaluator_derivative(e->f[1], "t") : NULL;
    if (!e->f[1] || !e->f[2]) {
        snprintf(msg, len, "cannot differentiate expression '%s' in t", e->text);
        fmb_expr_destroy(&e);
        return NULL;
    }
    return e;
}

void fmb_expr_destroy(fmb_expr_t **pe)
{
    if (!pe || !*pe) return;
    fmb_expr_t *e = *pe;
    for (int i = 0; i < 3; i++)
        if (e->f[i]) evaluator_destroy(e->f[i]);
    free(e->text);
    free(e->names);
    free(e->values);
    free(e);
    *pe = NULL;
}

double fmb_expr_eval(const fmb_expr_t *e, double t, int d)
{
    e->values[0] = t;
    return evaluator_evaluate(e->f[d], e->n, e->names, e->values);
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
    memset(p, 0, sizeof *p);
}
