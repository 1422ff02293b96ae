/*
 * Fastest mode of the linearized constrained system (docs/theory.md, "Fastest mode"), for
 * the failure diagnosis of the step control (stepctl.c) and fmb_sim_fastest_mode.
 *
 * The largest eigenvalue lambda = omega_max^2 of
 *   K x = lambda M x  on  Phi_q x = 0,   K = d(M qdd + F)/dq
 * at the current state with qd, qdd, the multipliers and t frozen (the same K as the
 * mechanism modes of modes.c, which solve the whole pencil densely), by power iteration
 * on the sparse matrices the integrator already has:
 *   y = K x            central difference of the residual along x (two evaluations),
 *   [M Phi_q^T; Phi_q 0] [z; mu] = [y; 0]     (z = M^-1 K x on the constraint manifold;
 *                      the sparse KKT mass matrix of the start and the restarts),
 *   lambda_k = x.y / x.M x                    (Rayleigh quotient),  x = z / |z|_M.
 * From the first iterate on, x lies on the manifold. The quotient converges to the
 * eigenvalue of largest magnitude, its error falling like (lambda_2 / lambda_1)^(2k);
 * where the top of the spectrum is clustered (fine beam meshes) convergence is slow but
 * the quotient is then already close to every clustered eigenvalue. Stops when the
 * quotient changes by less than FAST_RTOL relative, after at most FAST_MAXIT iterations.
 * The factorization left behind is the mass matrix's: the Newton solver's kept one is
 * invalidated (newton_stale, kkt_iter).
 */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FAST_RTOL 1e-7
#define FAST_MAXIT 500

/* y = K x by central differences of the residual r(q) = M(q) qdd + F(q, qd, lam, t). */
static void stiffness_times(const fmb_sim_t *s, const double *x, double *y, double *qp, double *r1,
                            double *r2, double *tmp)
{
    const int n = s->n;
    double xn = 0.0, qn = 0.0;
    for (int i = 0; i < n; i++) {
        xn = fmax(xn, fabs(x[i]));
        qn = fmax(qn, fabs(s->st.q[i]));
    }
    const double eps = xn > 0 ? 1e-6 * (1.0 + qn) / xn : 0.0;
    for (int i = 0; i < n; i++)
        qp[i] = s->st.q[i] + eps * x[i];
    fmb_sim_eval_forces(s, qp, s->st.qd, s->st.qdd, s->st.lam, s->st.t, r1, tmp);
    for (int i = 0; i < n; i++)
        r1[i] += tmp[i], qp[i] = s->st.q[i] - eps * x[i];
    fmb_sim_eval_forces(s, qp, s->st.qd, s->st.qdd, s->st.lam, s->st.t, r2, tmp);
    for (int i = 0; i < n; i++)
        y[i] = eps > 0 ? (r1[i] - r2[i] - tmp[i]) / (2.0 * eps) : 0.0;
}

int fmb_sim_fastest_mode_estimate(fmb_sim_t *s, double *omega_max, int *coord, int *iters)
{
    const int n = s->n, m = s->m, N = n + m;
    *omega_max = 0.0;
    if (coord) *coord = -1;
    if (iters) *iters = 0;
    if (n == 0) return 0;
    double *buf = malloc((size_t)(3 * N + 6 * n) * sizeof *buf);
    if (!buf) return fmb_sim_error(s, FMB_ERR_NOMEM, "out of memory");
    double *rhs = buf, *z = rhs + N, *x = z + N, *y = x + N, *Mx = y + n, *qp = Mx + n,
           *r1 = qp + n, *r2 = r1 + n, *tmp = r2 + n;
    const fmb_coeffs_t c = {.cM = 1, .cA = 1};
    fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &c);
    s->ctl.newton_stale = 1;
    s->ctl.kkt_iter = 0; /* the factorization below is not an iteration matrix */
    int rc = fmb_kkt_factor(&s->as.kkt);
    /* [M Phi_q^T; Phi_q 0] alone spans the beams' rotary masses (1e-7 kg m^2 for short
     * elements) and the constraints' Schur complements (1e7): its pivot ratio can fall
     * below the singular threshold (1e-14) with finite, nonzero pivots. The estimate is
     * advice (the message of a failed step): it goes on with such factors and its solves
     * are checked for finite values. */
    if (rc == FMB_ERR_SINGULAR && s->as.kkt.rcond > 0) rc = 0;
    s->diag.stats.factorizations = s->as.kkt.nnumeric;
    if (rc) {
        free(buf);
        return rc == FMB_ERR_SINGULAR
                   ? fmb_sim_singular_error(s, s->st.q, s->st.t, "for the fastest mode")
                   : fmb_sim_error(s, rc, "linear solver failure for the fastest mode");
    }
    /* start: alternating signs of uneven size (rich in the high modes, not an eigenvector) */
    for (int i = 0; i < n; i++)
        x[i] = (i % 2 ? -1.0 : 1.0) * (1.0 + 0.1 * (i % 7));
    double lam = 0.0, lam_prev = 0.0;
    int k;
    for (k = 0; k < FAST_MAXIT; k++) {
        stiffness_times(s, x, y, qp, r1, r2, tmp);
        if (k > 0) { /* x on the manifold from here on: Rayleigh quotient */
            fmb_sim_eval_forces(s, s->st.q, s->st.qd, x, s->st.lam, s->st.t, Mx, NULL); /* M x */
            double xy = 0.0, xm = 0.0;
            for (int i = 0; i < n; i++)
                xy += x[i] * y[i], xm += x[i] * Mx[i];
            lam_prev = lam;
            lam = xm > 0 ? xy / xm : 0.0;
            if (k > 2 && fabs(lam - lam_prev) <= FAST_RTOL * fabs(lam)) break;
        }
        memcpy(rhs, y, (size_t)n * sizeof *rhs);
        memset(rhs + n, 0, (size_t)m * sizeof *rhs);
        if ((rc = fmb_kkt_solve(&s->as.kkt, rhs, z))) {
            free(buf);
            return fmb_sim_error(s, rc, "linear solve failed for the fastest mode");
        }
        fmb_sim_eval_forces(s, s->st.q, s->st.qd, z, s->st.lam, s->st.t, Mx, NULL); /* M z */
        double zm = 0.0;
        for (int i = 0; i < n; i++)
            zm += z[i] * Mx[i];
        if (!(zm > 0) || !isfinite(zm)) break; /* K vanishes on the manifold */
        const double sc = 1.0 / sqrt(zm);
        for (int i = 0; i < n; i++)
            x[i] = z[i] * sc;
    }
    if (iters) *iters = k;
    /* the coordinate with the largest share of the mode's kinetic energy x_i (M x)_i */
    if (coord && lam != 0.0) {
        fmb_sim_eval_forces(s, s->st.q, s->st.qd, x, s->st.lam, s->st.t, Mx, NULL);
        double best = -1.0;
        for (int i = 0; i < n; i++)
            if (x[i] * Mx[i] > best) best = x[i] * Mx[i], *coord = i;
    }
    *omega_max = lam >= 0 ? sqrt(lam) : -sqrt(-lam);
    free(buf);
    return 0;
}

int fmb_sim_fastest_mode(fmb_sim_t *sim, double *omega_max, int *coordinate, int *iterations)
{
    if (!sim || !omega_max) return FMB_ERR_ARG;
    int rc;
    if (!sim->initialized && (rc = fmb_sim_initialize(sim))) return rc;
    return fmb_sim_fastest_mode_estimate(sim, omega_max, coordinate, iterations);
}
