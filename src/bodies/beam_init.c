/*
 * Initial elastic state of a beam body (docs/case-format.md "Initial
 * elastic state").
 *
 * A beam may start deformed and with elastic velocities: nodal values U0, Ud0 (u, v, phi
 * per node, body frame) given directly or as sums of mode shapes,
 *   U0 = sum_k a_k Phi_k,   Ud0 = sum_k adot_k Phi_k,
 * where Phi_k is mode k of K Phi = omega^2 Muu Phi under the beam's reference conditions
 * (the modes `flexmb modes` reports for the beam alone, about the undeformed state),
 * scaled so that its largest nodal |v| is 1 and that v is positive (an axial mode, with
 * no v, is scaled by its largest |u| the same way; where several nodes share the largest
 * |v| to 1e-6, the first one along the beam). So a_k is the largest transverse
 * nodal displacement in metres. The start (src/solve/start.c) copies U0 and Ud0 into the
 * elastic coordinates before assembling the configuration; the velocity projection then
 * keeps the elastic velocities exactly (docs/theory.md, "Consistent start") and the
 * position assembly corrects U0 only where the joints demand it.
 */
#include <stdlib.h>
#include <string.h>

#include "bodies/beam.h"

extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
                   const int *lda, double *b, const int *ldb, double *w, double *work,
                   const int *lwork, int *info);

int fmb_beam_mode_shape(const fmb_beam_t *bm, int k, double *shape, double *omega)
{
    const int ne = bm->ndof - 3, nn = bm->nnodes;
    if (k < 1 || k > ne) return FMB_ERR_ARG;
    double *K = calloc((size_t)ne * ne + 1, sizeof *K), *M = calloc((size_t)ne * ne + 1, sizeof *M);
    double *w = malloc(((size_t)ne + 1) * sizeof *w);
    int lwork = 4 * ne + 64, info = 0, itype = 1;
    double *work = malloc((size_t)lwork * sizeof *work);
    int rc = (!K || !M || !w || !work) ? FMB_ERR_NOMEM : 0;
    if (!rc) {
        for (int z = 0; z < bm->nnz; z++) {
            K[bm->nz_i[z] + (size_t)ne * bm->nz_j[z]] = bm->Kz[z];
            M[bm->nz_i[z] + (size_t)ne * bm->nz_j[z]] = bm->Mz[z];
        }
        dsygv_(&itype, "V", "U", &ne, K, &ne, M, &ne, w, work, &lwork, &info);
        if (info) rc = FMB_ERR_LINSOLVE;
    }
    if (!rc) {
        const double *x = K + (size_t)ne * (k - 1);
        for (int i = 0; i < 3 * nn; i++)
            shape[i] = bm->dof[i] >= 0 ? x[bm->dof[i] - 3] : 0.0;
        /* scale: largest |v| (or |u| for an axial mode) to +1 */
        double best = 0.0, bestu = 0.0;
        int at = -1, atu = -1;
        /* ties (symmetric shapes: equal |v| at mirrored nodes, to round-off): the first */
        for (int n = 0; n < nn; n++) {
            const double av = fabs(shape[3 * n + 1]), au = fabs(shape[3 * n]);
            if (av > best * (1 + 1e-6)) best = av, at = 3 * n + 1;
            if (au > bestu * (1 + 1e-6)) bestu = au, atu = 3 * n;
        }
        /* "no v": below 1e-8 of the largest u (round-off of a decoupled axial mode) */
        if (at < 0 || best < 1e-8 * bestu) at = atu;
        const double sc = at >= 0 ? 1.0 / shape[at] : 1.0;
        for (int i = 0; i < 3 * nn; i++)
            shape[i] *= sc;
        if (omega) *omega = sqrt(fmax(w[k - 1], 0.0));
    }
    free(K), free(M), free(w), free(work);
    return rc;
}

int fmb_beam_set_initial(fmb_beam_t *bm, const double *U, const double *Ud, char *msg, size_t len)
{
    const int ne = bm->ndof - 3, nn = bm->nnodes;
    static const char *const comp[3] = {"u", "v", "phi"};
    for (int i = 0; i < 3 * nn; i++)
        if (bm->dof[i] < 0 && ((U && U[i] != 0.0) || (Ud && Ud[i] != 0.0))) {
            snprintf(msg, len,
                     "node %d: %s is held by the reference condition (%s) and must start at 0",
                     i / 3, comp[i % 3],
                     bm->reference == FMB_BEAM_CANTILEVER ? "cantilever" : "simply supported");
            return FMB_ERR_MODEL;
        }
    if (!bm->U0 && !(bm->U0 = calloc(2 * (size_t)ne + 1, sizeof *bm->U0))) {
        snprintf(msg, len, "out of memory");
        return FMB_ERR_NOMEM;
    }
    bm->Ud0 = bm->U0 + ne;
    for (int i = 0; i < 3 * nn; i++) {
        if (bm->dof[i] < 0) continue;
        bm->U0[bm->dof[i] - 3] = U ? U[i] : 0.0;
        bm->Ud0[bm->dof[i] - 3] = Ud ? Ud[i] : 0.0;
    }
    return 0;
}

void fmb_beam_initial_state(const fmb_body_t *b, double *q, double *qd)
{
    const fmb_beam_t *bm = b->data;
    const int ne = bm->ndof - 3;
    if (!bm->U0) return;
    memcpy(q + 3, bm->U0, (size_t)ne * sizeof *q);
    memcpy(qd + 3, bm->Ud0, (size_t)ne * sizeof *qd);
}
