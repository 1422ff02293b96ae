/* Sparse KKT matrix from triplets with a fixed pattern, factored by UMFPACK.
 * The first assembly records the triplet order and builds the compressed-column
 * pattern with a triplet->entry map; later assemblies that emit the same triplets in
 * the same order only scatter values, and the symbolic analysis is reused. */
#ifndef FMB_SOLVE_KKT_H
#define FMB_SOLVE_KKT_H

typedef struct fmb_kkt {
    int n;
    int nt, cap;  /* triplets in the current assembly */
    int *Ti, *Tj; /* recorded pattern */
    double *Tx;
    int pattern_nt; /* triplet count of the recorded pattern, 0 if none */
    int *Ap, *Ai, *Map;
    double *Ax;
    void *symbolic, *numeric;
    long nsymbolic, nnumeric;
    double rcond;
    int ordering; /* fmb_ordering */
} fmb_kkt_t;

int fmb_kkt_init(fmb_kkt_t *k, int n);
void fmb_kkt_free(fmb_kkt_t *k);
void fmb_kkt_begin(fmb_kkt_t *k);
/* Record a(i, j) += x; returns nonzero on allocation failure (checked at factor). */
void fmb_kkt_add(fmb_kkt_t *k, int i, int j, double x);
/* Factor the assembled matrix: 0, FMB_ERR_SINGULAR, FMB_ERR_NOMEM or FMB_ERR_LINSOLVE. */
int fmb_kkt_factor(fmb_kkt_t *k);
/* Solve A x = b with the last factorization. */
int fmb_kkt_solve(fmb_kkt_t *k, const double *b, double *x);

#endif
