/* Private interface of `flexmb compare` shared by compare.c (the two runs: reading,
 * alignment of B onto A's records, the statistics of one column, the table and CSV) and
 * compare_quantities.c (which quantities: datasets, beam stations, units). */
#ifndef FMB_IO_COMPARE_IMPL_H
#define FMB_IO_COMPARE_IMPL_H

#include <hdf5.h>
#include <stdio.h>

#include "flexmb/compare.h"

#define CMP_LABEL_MAX 600
#define CMP_PATH_MAX 512

typedef struct cmp_run {
    const char *path;
    hid_t file;
    double *t; /* time */
    double *x; /* abscissa: the time or a body's angle (sign flipped if it decreases) */
    long n;
} cmp_run_t;

typedef struct cmp_ctx {
    cmp_run_t a, b;
    long i0, i1; /* A's records [i0, i1) inside the common interval */
    long *k;     /* for each of them: B's interval [k, k + 1] */
    double *w;   /* and the weight of B[k + 1] (0: B[k] exactly) */
    FILE *csv, *table;
    int width; /* label column width in the table */
    int nq;
    fmb_compare_summary_t *sum;
    fmb_compare_options_t o;
    struct cmp_row *rows; /* every quantity, written once all are known */
    int nrows, caprows;
    int failed;   /* status of a failure inside fmb_cmp_column */
    int angle;    /* abscissa is an angle */
    double xsign; /* +1, or -1 when the angle decreases */
    int kind;     /* kind index of the rows being written */
    unsigned compute; /* FMB_CMP_* kinds whose quantities are computed */
    int eng_all;      /* rows being written belong to the engineer's default set */
    unsigned long eng_cols; /* or: those of these columns (bit = column) */
    char **guided;    /* bodies on a prismatic joint with the ground (A or B), nguided */
    int nguided;
    const char *unit;
    char *err;
    size_t errlen;
} cmp_ctx_t;

/* One compared quantity. */
typedef struct cmp_row {
    char label[CMP_LABEL_MAX], path[CMP_PATH_MAX], cname[64];
    const char *unit;
    int kind;
    int eng; /* in the engineer's default set */
    long col;
    double maxd, rms, maxa, maxb, at, at_t;
    double kscale; /* mechanism scale: largest max(|A|, |B|) of the kind and unit */
    double mrel;   /* maxd / kscale, the ranking */
} cmp_row_t;

/* Put the message into c->err (if any) and return status. */
int fmb_cmp_error(cmp_ctx_t *c, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* One quantity: column col (of cols) of A's and B's data, over A's records in the common
 * interval (recorded in c->rows; written once all are known). */
int fmb_cmp_column(cmp_ctx_t *c, const char *label, const char *path, const char *cname,
                   const double *va, const double *vb, long cols, long col);

/* Every common quantity of the selected kinds (compare_quantities.c). */
int fmb_cmp_all(cmp_ctx_t *c);

#endif
