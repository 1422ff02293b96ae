/*
 * Quasi-static start (solver: start: static; docs/theory.md, "Consistent start", and
 * docs/case-format.md). The elastic coordinates q_e start in the deformed shape that is in
 * equilibrium with the loads and with the inertia (d'Alembert forces) of the initial
 * rigid motion, with the elastic velocities as given (default: at rest relative to the
 * carrier frames) and the elastic accelerations zero. With q = (q_r, q_e) split into the
 * carrier (body-local index < 3) and elastic coordinates, the start solves
 *
 *   M_rr qdd_r + Phi_r^T lam = Q_r             rigid rows: the rigid motion's dynamics
 *   M_er qdd_r + Phi_e^T lam = Q_e(q)          elastic rows: static equilibrium
 *   Phi_r qdd_r = gamma(q, qd)                 accelerations with qdd_e = 0
 *   Phi(q, 0) = 0,  qd from the start's velocity projection at q
 *
 * for q_e (the carrier coordinates follow through Phi = 0 from the case's poses).
 *
 * 1. Locked accelerations. For fixed q the first and third lines with qdd_e = 0 are the
 *    accelerations solve with the elastic mass block M_ee multiplied by kappa -> infinity.
 *    A finite kappa (1e8) is used in the ordinary solve [M_k Phi_q^T; Phi_q 0]: the
 *    elastic accelerations it leaves are O(1/kappa), and they vanish exactly at the
 *    solution (there the locked accelerations satisfy every row whatever kappa). Redundant
 *    rigid rows (a beam on two ground pins: Phi_r has more rows than carrier coordinates)
 *    stay solvable: the elastic columns keep Phi_q of full rank.
 * 2. Residual of the elastic rows at the locked (qdd_r, lam):
 *      r_e = M_er qdd_r + Phi_e^T lam - Q_e      (= -kappa M_ee qdd_e of the solve)
 * 3. Newton-like step on the shape with the static tangent in the elastic rows and only a
 *    small mass term in the carrier rows (their balance is the rigid accelerations' job;
 *    eps = 1e-8 / h^2 keeps free rigid directions regular and moves them as little as the
 *    constraints allow, in the mass metric):
 *      [E (Kmq + Kc(lam) - Kq) + eps R M   Phi_q^T] [dq ]   [-r_e (elastic rows), 0]
 *      [Phi_q                              0      ] [dmu] = [-Phi                  ]
 *    (E keeps the elastic rows, R the carrier rows). The change of lam and qdd_r with the
 *    shape is left to the next locked solve: a fixed point on the reactions, Newton on the
 *    shape (one step for a linear beam whose loads do not depend on its shape).
 * 4. Re-assemble (Phi = 0), re-project the velocities, repeat from 1 until
 *    max |r_e| <= 1e-12 of the largest generalized force (|M qdd|, |Q|, |Phi_q^T lam|) or
 *    the shape step is below 1e-12 of the shape, or, from the 10th iteration on (round-off
 *    floor of large models), max |r_e| <= 1e-9; at most 60 iterations, else an error that
 *    names the imbalance.
 * 5. Final accelerations with the true mass matrix (qdd_e = O(r_e / M) ~ 0) for the
 *    integrator.
 */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { STATIC_MAX_IT = 60 };
static const double KAPPA = 1e8;      /* elastic mass factor of the locked solve */
static const double RES_TOL = 1e-12;  /* elastic imbalance / largest generalized force */
static const double STEP_TOL = 1e-12; /* shape step / largest elastic coordinate */
static const double RES_FLOOR = 1e-9; /* accepted after 10 iterations (round-off floor) */

/* Largest |x_i| over the elastic (flag 1) or all (flag 0) coordinates. */
static double max_abs(const fmb_model_t *md, const double *x, int elastic)
{
    double mx = 0.0;
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        for (int k = elastic ? 3 : 0; k < bd->ndof; k++)
            mx = fmax(mx, fabs(x[bd->offset + k]));
    }
    return mx;
}

int fmb_sim_static_start(fmb_sim_t *s)
{
    const int n = s->n, m = s->m, N = n + m;
    const fmb_model_t *md = s->model;
    double *r = malloc(((size_t)4 * n + 1) * sizeof *r), *qs = r + n, *F = qs + n, *Fq = F + n;
    if (!r) return fmb_sim_error(s, FMB_ERR_NOMEM, "out of memory");
    double *rhs = s->work, *x = s->work + N;
    const double eps = 1e-8 / (s->opts.h * s->opts.h);
    int rc = 0, it, done = 0;
    double res = INFINITY, step = INFINITY;
    for (it = 0; it <= STATIC_MAX_IT; it++) {
        /* 1. locked accelerations at (q, qd) */
        if ((rc = fmb_sim_accel_solve(s, 1, KAPPA, s->qdd, s->lam))) break;
        memcpy(qs, s->qdd, (size_t)n * sizeof *qs);
        for (int b = 1; b < md->nbodies; b++) {
            const fmb_body_t *bd = &md->bodies[b];
            for (int k = 3; k < bd->ndof; k++)
                qs[bd->offset + k] = 0.0;
        }
        /* 2. r = M qs + Phi_q^T lam - Q; its elastic rows are the imbalance */
        fmb_sim_eval_forces(s, s->q, s->qd, qs, s->lam, s->t, r, F);
        /* the forces' size: largest of |M qs|, |Q|, |Phi_q^T lam| */
        double fscale = fmax(max_abs(md, r, 0), 1e-300);
        for (int i = 0; i < n; i++)
            r[i] += F[i];
        fmb_sim_eval_forces(s, s->q, s->qd, qs, s->zero, s->t, NULL, Fq); /* -Q */
        fscale = fmax(fscale, max_abs(md, Fq, 0));
        for (int i = 0; i < n; i++)
            Fq[i] = F[i] - Fq[i]; /* Phi_q^T lam */
        fscale = fmax(fscale, max_abs(md, Fq, 0));
        res = max_abs(md, r, 1) / fscale;
        if (getenv("FMB_DEBUG_STATIC"))
            fprintf(stderr, "static start: iteration %d, imbalance %.3e, step %.3e\n", it, res,
                    step);
        if (res <= RES_TOL || step <= STEP_TOL || (it >= 10 && res <= RES_FLOOR)) {
            done = 1;
            break;
        }
        if (it == STATIC_MAX_IT) break;
        /* 3. shape step */
        const fmb_coeffs_t c = {eps, 1, 1, 0, 1, 0, 0, 1};
        fmb_sim_assemble(s, s->q, s->qd, qs, s->lam, s->t, &c);
        memset(rhs, 0, (size_t)n * sizeof *rhs);
        for (int b = 1; b < md->nbodies; b++) {
            const fmb_body_t *bd = &md->bodies[b];
            for (int k = 3; k < bd->ndof; k++)
                rhs[bd->offset + k] = -r[bd->offset + k];
        }
        fmb_sim_eval_phi(s, s->q, s->t, rhs + n, NULL);
        for (int k = 0; k < m; k++)
            rhs[n + k] = -rhs[n + k];
        if ((rc = fmb_sim_solve_kkt(s, rhs, x, s->q, s->t, "in the quasi-static start"))) break;
        double scale = 1.0; /* at most 0.5 per coordinate, as the assembly */
        for (int i = 0; i < n; i++)
            if (fabs(x[i]) * scale > 0.5) scale = 0.5 / fabs(x[i]);
        for (int i = 0; i < n; i++)
            s->q[i] += scale * x[i];
        const double qe = max_abs(md, s->q, 1);
        for (int i = 0; i < n; i++)
            x[i] *= scale;
        step = max_abs(md, x, 1) / (qe > 0 ? qe : 1.0);
        /* 4. the start again at the new shape: positions, velocities */
        if ((rc = fmb_sim_assemble_positions(s, 0.0))) break;
        if ((rc = fmb_sim_start_velocities(s))) break;
    }
    free(r);
    if (rc) return rc;
    if (!done)
        return fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                             "quasi-static start did not converge in %d iterations (elastic "
                             "force imbalance %.3g of the largest generalized force, last shape "
                             "step %.3g of the shape); the loads may exceed the buckling or "
                             "spinning limit of a beam; start without it (solver: start: rigid)",
                             STATIC_MAX_IT, res, step);
    s->static_iterations = it;
    /* 5. accelerations and multipliers of the true equations for the integrator */
    return fmb_sim_accel_solve(s, 1, 0.0, s->qdd, s->lam);
}
