/* Constraint analysis: Jacobian rank, degrees of freedom and redundant rows, by
 * LAPACK's QR with column pivoting (dgeqp3) of Phi_q^T: the pivot order ranks the
 * constraint rows by independence, and |R_kk| below a relative tolerance marks the
 * dependent ones. */
#include <stdlib.h>
#include <string.h>

#include "solve/sim.h"

/* Largest Jacobian (rows x columns) analysed densely (8 bytes each: 400 MB). */
#define FMB_DENSE_RANK_MAX 5e7

extern void dgeqp3_(const int *m, const int *n, double *a, const int *lda, int *jpvt, double *tau,
                    double *work, const int *lwork, int *info);

int fmb_rank_rows(double *Jd, int m, int n, int *redundant, int maxred, int *nred)
{
    *nred = 0;
    if (m == 0) return 0;
    /* At = Jd^T: n x m */
    double *At = malloc((size_t)n * (size_t)m * sizeof *At);
    int *jpvt = calloc((size_t)m, sizeof *jpvt);
    double *tau = malloc((size_t)(m < n ? m : n) * sizeof *tau + sizeof(double));
    if (!At || !jpvt || !tau) {
        free(At), free(jpvt), free(tau);
        return FMB_ERR_NOMEM;
    }
    for (int r = 0; r < m; r++)
        for (int c = 0; c < n; c++)
            At[c + (size_t)n * r] = Jd[r + (size_t)m * c];
    int info, lwork = -1;
    double wq;
    dgeqp3_(&n, &m, At, &n, jpvt, tau, &wq, &lwork, &info);
    lwork = (int)wq;
    double *work = malloc((size_t)lwork * sizeof *work + sizeof(double));
    if (!work) {
        free(At), free(jpvt), free(tau);
        return FMB_ERR_NOMEM;
    }
    dgeqp3_(&n, &m, At, &n, jpvt, tau, work, &lwork, &info);
    int k = m < n ? m : n, rank = 0;
    double r0 = k ? fabs(At[0]) : 0.0, tol = 1e-10 * (m > n ? m : n) * r0;
    for (int i = 0; i < k; i++)
        if (fabs(At[i + (size_t)n * i]) > tol) rank++;
    for (int i = rank; i < m; i++)
        if (*nred < maxred) redundant[(*nred)++] = jpvt[i] - 1;
    free(At), free(jpvt), free(tau), free(work);
    return rank;
}

int fmb_model_check(fmb_model_t *model, fmb_check_report_t *rep)
{
    memset(rep, 0, sizeof *rep);
    fmb_sim_t *s = fmb_sim_create(model, NULL);
    if (!s) return fmb_model_error(model, FMB_ERR_NOMEM, "out of memory");
    rep->num_coords = s->n;
    rep->num_constraints = s->m;
    int rc = fmb_sim_initialize(s);
    if (rc == 0) {
        /* the consistent start factored [M Phi_q^T; Phi_q 0] with M positive definite:
         * that matrix is regular exactly when Phi_q has full row rank, so no dense rank
         * analysis is needed (8000 bodies: it took > 6 GB and > 300 s) */
        double *phi = malloc((size_t)s->m * sizeof *phi + sizeof(double));
        if (!phi) {
            fmb_sim_destroy(&s);
            return fmb_model_error(model, FMB_ERR_NOMEM, "out of memory");
        }
        rep->max_violation = fmb_sim_eval_phi(s, s->st.q, 0.0, phi, NULL);
        free(phi);
        rep->jacobian_rank = s->m;
        rep->dof = rep->num_coords - s->m;
        fmb_sim_destroy(&s);
        return 0;
    }
    if (rc == FMB_ERR_SINGULAR) {
        /* Redundant constraints: assemble with a regularized KKT to analyse them. */
        s->opts.phi_tol = 1e-9;
        rc = fmb_sim_assemble_positions(s, -1e-12);
        if (rc == FMB_ERR_SINGULAR) rc = 0;
    }
    if (rc) {
        fmb_model_error(model, rc, "%s", fmb_sim_last_error(s));
        fmb_sim_destroy(&s);
        return rc;
    }
    if ((double)s->m * (double)s->n > FMB_DENSE_RANK_MAX) {
        const int m = s->m, n = s->n;
        fmb_sim_destroy(&s);
        return fmb_model_error(model, FMB_ERR_SINGULAR,
                               "the constraints are dependent (the KKT matrix is singular); the "
                               "dense analysis that names the rows is skipped for %d x %d "
                               "Jacobians (more than %.0g entries)",
                               m, n, FMB_DENSE_RANK_MAX);
    }
    double *Jd = malloc((size_t)s->m * (size_t)s->n * sizeof *Jd + sizeof(double));
    double *phi = malloc((size_t)s->m * sizeof *phi + sizeof(double));
    if (!Jd || !phi) {
        free(Jd), free(phi);
        fmb_sim_destroy(&s);
        return fmb_model_error(model, FMB_ERR_NOMEM, "out of memory");
    }
    rep->max_violation = fmb_sim_eval_phi(s, s->st.q, 0.0, phi, NULL);
    fmb_sim_dense_jacobian(s, s->st.q, 0.0, Jd);
    int nred = 0, cap = (int)(sizeof rep->redundant_rows / sizeof rep->redundant_rows[0]);
    int rank = fmb_rank_rows(Jd, s->m, s->n, rep->redundant_rows, cap, &nred);
    free(Jd), free(phi);
    fmb_sim_destroy(&s);
    if (rank < 0) return fmb_model_error(model, rank, "out of memory");
    rep->jacobian_rank = rank;
    rep->dof = rep->num_coords - rank;
    rep->num_redundant = rep->num_constraints - rank;
    return 0;
}
