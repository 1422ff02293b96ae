/* Expressions: compiled once to a flat program (expr_parse.c) that gives a value and its
 * exact first and second time derivatives in one pass (expr_eval.c). Grammar, functions
 * and the derivative conventions at switches: docs/case-format.md, "Expressions". */
#ifndef FMB_MODEL_EXPR_H
#define FMB_MODEL_EXPR_H

#include <stddef.h>

typedef struct fmb_table fmb_table_t;
typedef struct fmb_tableset fmb_tableset_t;

typedef struct fmb_params {
    char **names;
    double *values;
    int n, cap;
    /* Tables read by table()/spline() (may be NULL: then loaded on first use relative to
     * the working directory and kept here). */
    fmb_tableset_t *tables;
} fmb_params_t;

typedef struct fmb_expr fmb_expr_t;

/* A value with its first and second derivatives in t. */
typedef struct fmb_jet {
    double v, d1, d2;
} fmb_jet_t;

/* What an expression may refer to: names bound to constant values (the parameters), t
 * when allow_t, and tables through the resolver table() (NULL: table()/spline() are
 * refused). The resolver gets the file name as written and whether a spline is wanted. */
typedef struct fmb_expr_env {
    const char *const *names;
    const double *values;
    int n;
    int allow_t;
    const fmb_table_t *(*table)(void *user, const char *file, int spline, char *msg, size_t len);
    void *user;
} fmb_expr_env_t;

typedef enum fmb_expr_errkind {
    FMB_EXPR_OK = 0,
    FMB_EXPR_ESYNTAX, /* msg says what, at = byte offset in the text */
    FMB_EXPR_ENAME,   /* unknown name: name, at */
    FMB_EXPR_ETABLE,  /* a table could not be read: msg (names the file and row), at */
    FMB_EXPR_ENOMEM
} fmb_expr_errkind_t;

typedef struct fmb_expr_err {
    fmb_expr_errkind_t kind;
    size_t at;
    char name[64];
    char msg[400];
} fmb_expr_err_t;

/* Expressions nest at most this deep (parentheses, calls, unary operators) and have at
 * most this many binary operators (limits against hostile input; docs/case-format.md). */
#define FMB_EXPR_MAX_DEPTH 100
#define FMB_EXPR_MAX_OPS 200

/* Compile text; NULL with *err filled on failure. */
fmb_expr_t *fmb_expr_compile(const char *text, const fmb_expr_env_t *env, fmb_expr_err_t *err);

/* Compile expr in the variable t and the parameters. The parameter values are
 * captured now (parameters are set before the model is built). On error returns
 * NULL with a message. */
fmb_expr_t *fmb_expr_create(const char *expr, const fmb_params_t *params, char *msg, size_t len);
void fmb_expr_destroy(fmb_expr_t **e);
/* d-th time derivative (d = 0, 1, 2) at t. Calls at the same t share one evaluation. */
double fmb_expr_eval(const fmb_expr_t *e, double t, int d);
/* Value and both derivatives at t in one pass. */
fmb_jet_t fmb_expr_jet(const fmb_expr_t *e, double t);
const char *fmb_expr_text(const fmb_expr_t *e);
/* Is name a constant or function name of the expression language? */
int fmb_expr_reserved(const char *name);

int fmb_params_set(fmb_params_t *p, const char *name, double value);
void fmb_params_free(fmb_params_t *p);

#endif
