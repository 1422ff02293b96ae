/* Time functions f(t) from expressions (libmatheval), with f' and f''. */
#ifndef FMB_MODEL_EXPR_H
#define FMB_MODEL_EXPR_H

#include <stddef.h>

typedef struct fmb_params {
    char **names;
    double *values;
    int n, cap;
} fmb_params_t;

typedef struct fmb_expr fmb_expr_t;

/* Compile expr in the variable t and the parameters. The parameter values are
 * captured now (parameters are set before the model is built). On error returns
 * NULL with a message. */
fmb_expr_t *fmb_expr_create(const char *expr, const fmb_params_t *params, char *msg, size_t len);
void fmb_expr_destroy(fmb_expr_t **e);
/* d-th time derivative (d = 0, 1, 2) at t. */
double fmb_expr_eval(const fmb_expr_t *e, double t, int d);
const char *fmb_expr_text(const fmb_expr_t *e);

int fmb_params_set(fmb_params_t *p, const char *name, double value);
void fmb_params_free(fmb_params_t *p);

#endif
