#include "solve/kkt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

#include "flexmb/flexmb.h"

int fmb_kkt_init(fmb_kkt_t *k, int n)
{
    memset(k, 0, sizeof *k);
    k->n = n;
    return 0;
}

void fmb_kkt_free(fmb_kkt_t *k)
{
    if (k->numeric) umfpack_di_free_numeric(&k->numeric);
    if (k->symbolic) umfpack_di_free_symbolic(&k->symbolic);
    free(k->Ti), free(k->Tj), free(k->Tx);
    free(k->Ap), free(k->Ai), free(k->Ax), free(k->Map);
    memset(k, 0, sizeof *k);
}

void fmb_kkt_begin(fmb_kkt_t *k)
{
    k->nt = 0;
}

void fmb_kkt_add(fmb_kkt_t *k, int i, int j, double x)
{
    if (k->nt == k->cap) {
        int cap = k->cap ? 2 * k->cap : 1024;
        int *Ti = realloc(k->Ti, (size_t)cap * sizeof *Ti);
        if (Ti) k->Ti = Ti;
        int *Tj = realloc(k->Tj, (size_t)cap * sizeof *Tj);
        if (Tj) k->Tj = Tj;
        double *Tx = realloc(k->Tx, (size_t)cap * sizeof *Tx);
        if (Tx) k->Tx = Tx;
        if (!Ti || !Tj || !Tx) {
            k->nt = -1; /* poisoned: factor reports out of memory */
            return;
        }
        k->cap = cap;
    }
    if (k->nt < 0) return;
    /* Once a pattern exists the same positions must come in the same order. */
    if (k->pattern_nt && k->nt < k->pattern_nt && (k->Ti[k->nt] != i || k->Tj[k->nt] != j))
        k->pattern_nt = -1; /* pattern changed: rebuild */
    k->Ti[k->nt] = i;
    k->Tj[k->nt] = j;
    k->Tx[k->nt] = x;
    k->nt++;
}

static int build_pattern(fmb_kkt_t *k)
{
    free(k->Ap), free(k->Ai), free(k->Ax), free(k->Map);
    k->Ap = malloc(((size_t)k->n + 1) * sizeof *k->Ap);
    k->Ai = malloc((size_t)k->nt * sizeof *k->Ai);
    k->Ax = malloc((size_t)k->nt * sizeof *k->Ax);
    k->Map = malloc((size_t)k->nt * sizeof *k->Map);
    if (!k->Ap || !k->Ai || !k->Ax || !k->Map) return FMB_ERR_NOMEM;
    int st = umfpack_di_triplet_to_col(k->n, k->n, k->nt, k->Ti, k->Tj, k->Tx, k->Ap, k->Ai, k->Ax,
                                       k->Map);
    if (st != UMFPACK_OK) return FMB_ERR_LINSOLVE;
    if (k->symbolic) umfpack_di_free_symbolic(&k->symbolic);
    double control[UMFPACK_CONTROL];
    umfpack_di_defaults(control);
    static const double orderings[] = {UMFPACK_ORDERING_AMD, UMFPACK_ORDERING_METIS,
                                       UMFPACK_ORDERING_BEST};
    if (k->ordering >= 0 && k->ordering < 3) control[UMFPACK_ORDERING] = orderings[k->ordering];
    st = umfpack_di_symbolic(k->n, k->n, k->Ap, k->Ai, k->Ax, &k->symbolic, control, NULL);
    if (st != UMFPACK_OK)
        return st == UMFPACK_ERROR_out_of_memory ? FMB_ERR_NOMEM : FMB_ERR_LINSOLVE;
    k->nsymbolic++;
    k->pattern_nt = k->nt;
    return 0;
}

int fmb_kkt_factor(fmb_kkt_t *k)
{
    if (k->nt < 0) return FMB_ERR_NOMEM;
    int rc;
    if (k->pattern_nt != k->nt) {
        if ((rc = build_pattern(k))) return rc;
    } else {
        memset(k->Ax, 0, (size_t)k->Ap[k->n] * sizeof *k->Ax);
        for (int t = 0; t < k->nt; t++)
            k->Ax[k->Map[t]] += k->Tx[t];
    }
    if (k->numeric) umfpack_di_free_numeric(&k->numeric);
    double info[UMFPACK_INFO];
    int st = umfpack_di_numeric(k->Ap, k->Ai, k->Ax, k->symbolic, &k->numeric, NULL, info);
    k->nnumeric++;
    k->rcond = info[UMFPACK_RCOND];
    if (st == UMFPACK_WARNING_singular_matrix) return FMB_ERR_SINGULAR;
    if (st != UMFPACK_OK)
        return st == UMFPACK_ERROR_out_of_memory ? FMB_ERR_NOMEM : FMB_ERR_LINSOLVE;
    /* UMFPACK's rcond is a cheap estimate (min/max |diag U|); treat an exactly or
     * numerically rank-deficient KKT matrix as singular. */
    if (!(k->rcond > 1e-14)) return FMB_ERR_SINGULAR;
    return 0;
}

int fmb_kkt_solve(fmb_kkt_t *k, const double *b, double *x)
{
    /* No iterative refinement: the Newton iteration corrects solve errors anyway. */
    double control[UMFPACK_CONTROL];
    umfpack_di_defaults(control);
    control[UMFPACK_IRSTEP] = 0;
    int st = umfpack_di_solve(UMFPACK_A, k->Ap, k->Ai, k->Ax, x, b, k->numeric, control, NULL);
    if (st != UMFPACK_OK) return FMB_ERR_LINSOLVE;
    for (int i = 0; i < k->n; i++)
        if (!isfinite(x[i])) return FMB_ERR_LINSOLVE;
    return 0;
}
