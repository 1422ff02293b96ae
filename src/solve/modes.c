/*
 * Modes of the mechanism: natural frequencies and mode shapes of the constrained system
 * linearized at the current state (docs/theory.md, "Mechanism modes").
 *
 * The equations of motion M(q) qdd + F(q, qd, lambda, t) = 0, Phi(q, t) = 0 are linearized
 * in q about the current state with qd, qdd, lambda and t frozen:
 *   M dqdd + K dq = 0,   Phi_q dq = 0,   K = d(M qdd + F)/dq
 * (K holds the elastic stiffness, the geometric stiffness of the constraint forces
 * d(Phi_q^T lambda)/dq, of the applied forces and of the inertia forces at the current
 * accelerations and velocities). Velocity terms (gyroscopic and damping, dF/dqd) are left
 * out: the modes are those of the undamped, non-gyroscopic system. With N an orthonormal
 * basis of the null space of Phi_q (from the SVD of Phi_q), dq = N y and
 *   (N^T K N) y = omega^2 (N^T M N) y,
 * solved by LAPACK dsygv after symmetrizing N^T K N (its asymmetry is reported: it is
 * zero for a conservative system at rest and small otherwise).
 *
 * M is formed exactly from M e_j (the body classes' mass times a unit vector); K by
 * central differences of the residual, dq_j = 1e-6 (1 + |q_j|) (truncation error
 * O(dq^2), relative ~1e-10 for these smooth residuals; the analytic tangents the Newton
 * iteration uses are checked against the same differences in the conformance test).
 * Cost O(n^3) with dense matrices: meant for models of up to a few thousand coordinates.
 */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "io/writer.h"

extern void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt,
                    const int *ldvt, double *work, const int *lwork, int *info);
extern void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
                   const int *lda, double *b, const int *ldb, double *w, double *work,
                   const int *lwork, int *info);

/* Residual r = M(q) qdd + F(q, qd, lambda, t) at q. */
static void residual(const fmb_sim_t *s, const double *q, double *r, double *tmp)
{
    fmb_sim_eval_forces(s, q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, r, tmp);
    for (int i = 0; i < s->n; i++)
        r[i] += tmp[i];
}

/* Orthonormal null-space basis of the m x n matrix J (overwritten): columns of N (n x nf,
 * column-major, allocated here). Returns nf or a negative status. */
static int null_space(double *J, int m, int n, double **Nout)
{
    *Nout = NULL;
    double *sv = malloc((size_t)(m < n ? m : n) * sizeof *sv + sizeof *sv);
    double *Vt = malloc((size_t)n * n * sizeof *Vt);
    if (!sv || !Vt) {
        free(sv), free(Vt);
        return FMB_ERR_NOMEM;
    }
    int rank = 0, info = 0;
    if (m > 0) {
        int lwork = -1, one = 1;
        double wq, dummy;
        dgesvd_("N", "A", &m, &n, J, &m, sv, &dummy, &one, Vt, &n, &wq, &lwork, &info);
        lwork = (int)wq;
        double *work = malloc((size_t)lwork * sizeof *work);
        if (!work) {
            free(sv), free(Vt);
            return FMB_ERR_NOMEM;
        }
        dgesvd_("N", "A", &m, &n, J, &m, sv, &dummy, &one, Vt, &n, work, &lwork, &info);
        free(work);
        if (info) {
            free(sv), free(Vt);
            return FMB_ERR_LINSOLVE;
        }
        const int k = m < n ? m : n;
        const double tol = (k ? sv[0] : 0.0) * 1e-10 * (m > n ? m : n);
        for (int i = 0; i < k; i++)
            if (sv[i] > tol) rank++;
    }
    const int nf = n - rank;
    double *N = malloc((size_t)n * (nf > 0 ? nf : 1) * sizeof *N);
    if (!N) {
        free(sv), free(Vt);
        return FMB_ERR_NOMEM;
    }
    /* rows rank..n-1 of V^T span the null space */
    for (int c = 0; c < nf; c++)
        for (int i = 0; i < n; i++)
            N[i + (size_t)n * c] = m > 0 ? Vt[(rank + c) + (size_t)n * i] : (i == c ? 1.0 : 0.0);
    free(sv), free(Vt);
    *Nout = N;
    return nf;
}

int fmb_sim_modes(fmb_sim_t *s, int nmax, double *omega, double *shapes, double *share,
                  double *asym)
{
    if (!s || !omega || nmax < 1) return FMB_ERR_ARG;
    if (!s->initialized) {
        int rc = fmb_sim_initialize(s);
        if (rc) return rc;
    }
    const int n = s->n, m = s->m;
    const size_t nn = (size_t)n * n;
    double *M = calloc(nn, sizeof *M), *K = calloc(nn, sizeof *K);
    double *J = calloc((size_t)m * n + 1, sizeof *J);
    double *v = calloc((size_t)4 * n + 1, sizeof *v), *q = calloc((size_t)n + 1, sizeof *q);
    double *N = NULL, *T = NULL, *Mr = NULL, *Kr = NULL, *w = NULL, *work = NULL;
    int rc = 0, nf = 0;
    if (!M || !K || !J || !v || !q) {
        rc = FMB_ERR_NOMEM;
        goto done;
    }
    double *e = v, *Me = v + n, *rp = v + 2 * n, *tmp = v + 3 * n;
    /* M column by column: M e_j, exact */
    for (int j = 0; j < n; j++) {
        memset(e, 0, (size_t)n * sizeof *e);
        e[j] = 1.0;
        fmb_sim_eval_forces(s, s->st.q, s->st.qd, e, s->st.lam, s->st.t, Me, NULL);
        memcpy(M + (size_t)n * j, Me, (size_t)n * sizeof *Me);
    }
    /* K by central differences of the residual */
    memcpy(q, s->st.q, (size_t)n * sizeof *q);
    for (int j = 0; j < n; j++) {
        const double dq = 1e-6 * (1.0 + fabs(s->st.q[j]));
        q[j] = s->st.q[j] + dq;
        residual(s, q, rp, tmp);
        q[j] = s->st.q[j] - dq;
        residual(s, q, Me, tmp);
        q[j] = s->st.q[j];
        for (int i = 0; i < n; i++)
            K[i + (size_t)n * j] = (rp[i] - Me[i]) / (2.0 * dq);
    }
    double knorm = 0.0, kasym = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const double a = K[i + (size_t)n * j], b = K[j + (size_t)n * i];
            knorm = fmax(knorm, fabs(a));
            kasym = fmax(kasym, fabs(a - b));
        }
    if (asym) *asym = knorm > 0 ? kasym / knorm : 0.0;
    fmb_sim_dense_jacobian(s, s->st.q, s->st.t, J);
    nf = null_space(J, m, n, &N);
    if (nf < 0) {
        rc = nf;
        goto done;
    }
    if (nf == 0) {
        rc = fmb_sim_error(s, FMB_ERR_ARG,
                           "the mechanism has no degree of freedom at t = %g: the constraints "
                           "and drivers fix every coordinate, so it has no modes",
                           s->st.t);
        goto done;
    }
    /* reduced matrices Mr = N^T M N, Kr = N^T Ksym N */
    const size_t nf2 = (size_t)nf * nf;
    T = malloc((size_t)n * nf * sizeof *T);
    Mr = malloc(nf2 * sizeof *Mr), Kr = malloc(nf2 * sizeof *Kr);
    w = malloc((size_t)nf * sizeof *w);
    if (!T || !Mr || !Kr || !w) {
        rc = FMB_ERR_NOMEM;
        goto done;
    }
    for (int pass = 0; pass < 2; pass++) {
        const double *A = pass ? K : M;
        double *R = pass ? Kr : Mr;
        for (int c = 0; c < nf; c++) /* T = A_sym N */
            for (int i = 0; i < n; i++) {
                double acc = 0.0;
                for (int k = 0; k < n; k++)
                    acc +=
                        0.5 * (A[i + (size_t)n * k] + A[k + (size_t)n * i]) * N[k + (size_t)n * c];
                T[i + (size_t)n * c] = acc;
            }
        for (int c = 0; c < nf; c++)
            for (int r = 0; r < nf; r++) {
                double acc = 0.0;
                for (int i = 0; i < n; i++)
                    acc += N[i + (size_t)n * r] * T[i + (size_t)n * c];
                R[r + (size_t)nf * c] = acc;
            }
    }
    int itype = 1, lwork = -1, info = 0;
    double wq;
    dsygv_(&itype, "V", "U", &nf, Kr, &nf, Mr, &nf, w, &wq, &lwork, &info);
    lwork = (int)wq;
    work = malloc((size_t)lwork * sizeof *work);
    if (!work) {
        rc = FMB_ERR_NOMEM;
        goto done;
    }
    dsygv_(&itype, "V", "U", &nf, Kr, &nf, Mr, &nf, w, work, &lwork, &info);
    if (info) {
        rc = fmb_sim_error(s, FMB_ERR_LINSOLVE,
                           "modes: the reduced mass matrix is not positive definite (LAPACK "
                           "dsygv info %d): a massless degree of freedom at t = %g",
                           info, s->st.t);
        goto done;
    }
    const int nk = nf < nmax ? nf : nmax;
    const fmb_model_t *md = s->model;
    for (int k = 0; k < nk; k++) {
        omega[k] = w[k] >= 0 ? sqrt(w[k]) : -sqrt(-w[k]);
        if (!shapes && !share) continue;
        /* dq = N y, y normalized to unit modal mass by dsygv */
        for (int i = 0; i < n; i++) {
            double acc = 0.0;
            for (int c = 0; c < nf; c++)
                acc += N[i + (size_t)n * c] * Kr[c + (size_t)nf * k];
            e[i] = acc;
        }
        if (shapes) memcpy(shapes + (size_t)n * k, e, (size_t)n * sizeof *e);
        if (!share) continue;
        /* share of the modal kinetic energy 1/2 dq_b^T M_bb dq_b of each body (ground 0) */
        double total = 0.0, *sh = share + (size_t)md->nbodies * k;
        sh[0] = 0.0;
        for (int b = 1; b < md->nbodies; b++) {
            const int o = md->bodies[b].offset, nd = md->bodies[b].ndof;
            double acc = 0.0;
            for (int c = 0; c < nd; c++)
                for (int r = 0; r < nd; r++)
                    acc += e[o + r] * M[(o + r) + (size_t)n * (o + c)] * e[o + c];
            sh[b] = acc;
            total += acc;
        }
        for (int b = 1; b < md->nbodies; b++)
            sh[b] = total > 0 ? sh[b] / total : 0.0;
    }
    rc = nk;
done:
    free(M), free(K), free(J), free(v), free(q), free(N), free(T), free(Mr), free(Kr), free(w);
    free(work);
    return rc;
}

int fmb_sim_write_modes(fmb_sim_t *s, const char *path, int n, const double *omega,
                        const double *shapes, const double *share, double amplitude, char *err,
                        size_t errlen)
{
    if (!s || !path || !omega || !shapes || n < 1) return FMB_ERR_ARG;
    const int nc = s->n, nb = s->model->nbodies;
    double *q0 = malloc((size_t)nc * sizeof *q0);
    if (!q0) return FMB_ERR_NOMEM;
    memcpy(q0, s->st.q, (size_t)nc * sizeof *q0);
    const double t0 = s->st.t;
    double size = 1.0; /* the mechanism's size: the largest carrier position, >= 1 m */
    for (int b = 1; b < nb; b++) {
        const int o = s->model->bodies[b].offset;
        size = fmax(size, hypot(q0[o], q0[o + 1]));
    }
    const int viz_every = s->opts.viz_every;
    s->opts.viz_every = 1; /* every mode is a frame */
    fmb_writer_t *w = fmb_writer_create(path, s, NULL, err, errlen);
    s->opts.viz_every = viz_every;
    int rc = w ? 0 : FMB_ERR_IO;
    for (int k = 0; k < n && rc == 0; k++) {
        const double *phi = shapes + (size_t)nc * k;
        double mx = 0.0;
        for (int i = 0; i < nc; i++)
            mx = fmax(mx, fabs(phi[i]));
        const double a = mx > 0 ? amplitude * size / mx : 0.0;
        for (int i = 0; i < nc; i++)
            s->st.q[i] = q0[i] + a * phi[i];
        s->st.t = k + 1;
        rc = fmb_writer_append(w, s);
    }
    memcpy(s->st.q, q0, (size_t)nc * sizeof *q0);
    s->st.t = t0;
    double *sh = malloc((size_t)n * nc * sizeof *sh), *en = malloc((size_t)n * nb * sizeof *en);
    if (rc == 0 && (!sh || !en)) rc = FMB_ERR_NOMEM;
    if (rc == 0) {
        memcpy(sh, shapes, (size_t)n * nc * sizeof *sh); /* column k = row k */
        for (int k = 0; k < n; k++)
            for (int b = 0; b < nb; b++)
                en[(size_t)nb * k + b] = share ? share[(size_t)nb * k + b] : NAN;
        if ((rc = fmb_writer_matrix(w, "modes", "omega", omega, n, 1)) == 0 &&
            (rc = fmb_writer_matrix(w, "modes", "shapes", sh, n, nc)) == 0)
            rc = fmb_writer_matrix(w, "modes", "energy_share", en, n, nb);
    }
    if (rc && w && err && errlen) snprintf(err, errlen, "%s", fmb_writer_last_error(w));
    if (w && fmb_writer_flush(w) < 0 && rc == 0) rc = FMB_ERR_IO;
    fmb_writer_destroy(&w);
    free(q0), free(sh), free(en);
    return rc;
}
