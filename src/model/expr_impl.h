/* Private to the expression compiler (expr_parse.c, expr_eval.c, expr.c): the flat
 * program an expression compiles to and the jet arithmetic it is evaluated with.
 *
 * A program is a postfix tape of instructions run on a stack of jets. A jet carries a
 * value and its first and second derivatives in t, (f, f', f''); every instruction maps
 * its operand jets to a result jet by the chain rule (forward-mode differentiation), so
 * one pass gives the value and both exact derivatives. */
#ifndef FMB_MODEL_EXPR_IMPL_H
#define FMB_MODEL_EXPR_IMPL_H

#include "model/expr.h"
#include "model/table.h"

typedef enum fmb_op {
    FMB_OP_CONST, /* push c */
    FMB_OP_T,     /* push (t, 1, 0) */
    FMB_OP_NEG,
    FMB_OP_NOT,
    FMB_OP_ADD,
    FMB_OP_SUB,
    FMB_OP_MUL,
    FMB_OP_DIV,
    FMB_OP_POW,
    FMB_OP_LT,
    FMB_OP_LE,
    FMB_OP_GT,
    FMB_OP_GE,
    FMB_OP_EQ,
    FMB_OP_NE,
    FMB_OP_AND,
    FMB_OP_OR,
    FMB_OP_FN,    /* one-argument function number fn */
    FMB_OP_MIN,   /* n arguments */
    FMB_OP_MAX,   /* n arguments */
    FMB_OP_ATAN2, /* atan2(y, x) */
    FMB_OP_MOD,   /* fmod(x, y) */
    FMB_OP_IF,    /* if(c, a, b) */
    FMB_OP_STEP3, /* step(x, x0, h0, x1, h1), cubic */
    FMB_OP_STEP5, /* step5(x, x0, h0, x1, h1), quintic */
    FMB_OP_TABLE, /* table: piecewise linear or spline (the table says which) */
} fmb_op_t;

/* One-argument functions (FMB_OP_FN). */
typedef enum fmb_fn {
    FMB_FN_EXP,
    FMB_FN_LOG,
    FMB_FN_SQRT,
    FMB_FN_SIN,
    FMB_FN_COS,
    FMB_FN_TAN,
    FMB_FN_COT,
    FMB_FN_SEC,
    FMB_FN_CSC,
    FMB_FN_ASIN,
    FMB_FN_ACOS,
    FMB_FN_ATAN,
    FMB_FN_ACOT,
    FMB_FN_ASEC,
    FMB_FN_ACSC,
    FMB_FN_SINH,
    FMB_FN_COSH,
    FMB_FN_TANH,
    FMB_FN_COTH,
    FMB_FN_SECH,
    FMB_FN_CSCH,
    FMB_FN_ASINH,
    FMB_FN_ACOSH,
    FMB_FN_ATANH,
    FMB_FN_ACOTH,
    FMB_FN_ASECH,
    FMB_FN_ACSCH,
    FMB_FN_ABS,
    FMB_FN_HEAVISIDE, /* step(x): 0 for x < 0, 1 for x >= 0 */
    FMB_FN_DELTA,     /* delta(x): inf at 0, else 0 */
    FMB_FN_NANDELTA,  /* nandelta(x): NaN at 0, else 0 */
    FMB_FN_ERF,
    FMB_FN_FLOOR,
    FMB_FN_SIGN,
    FMB_FN_COUNT
} fmb_fn_t;

typedef struct fmb_instr {
    int op;  /* fmb_op_t */
    int arg; /* FN: fmb_fn_t; MIN/MAX: argument count */
    double c;
    const fmb_table_t *table;
} fmb_instr_t;

struct fmb_expr {
    fmb_instr_t *code;
    int ncode;
    int maxstack;
    fmb_jet_t *stack; /* workspace (mutable through a const expression) */
    char *text;
    /* last evaluation: fmb_expr_eval at the same t for d = 0, 1, 2 runs the tape once */
    double *cache; /* t, f, f', f'' */
    int *cache_ok;
};

/* Evaluate one instruction's operation on its n operands a[0..n) (a points into the
 * stack; the result is written to a[0]). */
void fmb_expr_apply(const fmb_instr_t *in, fmb_jet_t *a, double t);
/* Number of operands an instruction pops. */
int fmb_expr_arity(const fmb_instr_t *in);

#endif
