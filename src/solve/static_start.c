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
 * 4. Velocities re-projected at the new shape; repeat from 1. The constraints are closed
 *    by the steps' -Phi rows, i.e. in the step's metric, not by the mass-weighted assembly
 *    of the start (that put the correction into the lightest coordinates: on a 400-element
 *    quick-return rocker it kinked the element under the slider and the iteration
 *    diverged). Converged when |Phi| <= phi_tol and max |r_e| <= 1e-12 of the largest
 *    generalized force (|M qdd|, |Q|, |Phi_q^T lam|), or the shape step is below 1e-12 of
 *    the shape, or below 1e-9 from the 3rd iteration on, or max |r_e| <= 1e-9 from the
 *    10th (round-off floors that grow with the element count); at most 60 iterations,
 *    else an error that names the imbalance.
 * 5. Elastic velocities: the rate of the quasi-static shape, by central differences of
 *    the shapes at t = +-delta (delta = min(h, 1 ms)), for which the carrier coordinates
 *    and velocities are moved by their Taylor series (q + d qd + d^2/2 qdd, qd + d qdd);
 *    the shape Newton closes Phi(q, t +- delta) = 0 (velocities kept: their error is
 *    O(delta^2)); truncation O(delta^2). A start
 *    at rest relative to the carrier would leave the elastic coordinates behind the
 *    quasi-static motion and excite a free vibration of amplitude ~ |qd_e| / omega.
 * 6. Carrier velocities projected again for those elastic rates, then the accelerations
 *    with the true mass matrix (qdd_e = O(r_e / M), essentially zero) for the integrator.
 * Friction at sliders (models without switching elements): each locked solve of step 1 is
 * followed by the start's contact LCP on the same locked matrix (fmb_sim_start_lcps), and
 * the imbalance of step 2 includes the friction's generalized forces Q_f (add_friction),
 * a fixed point like the reactions. Switching elements stay out of the equilibrium.
 */
#include "solve/sim_internal.h"

#include "contact/friction.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { STATIC_MAX_IT = 60 };
static const double KAPPA = 1e8;       /* elastic mass factor of the locked solve */
static const double RES_TOL = 1e-12;   /* elastic imbalance / largest generalized force */
static const double STEP_TOL = 1e-12;  /* shape step / largest elastic coordinate */
static const double RES_FLOOR = 1e-9;  /* accepted after 10 iterations (round-off floor) */
static const double STEP_FLOOR = 1e-9; /* accepted from the 3rd iteration: the round-off
                                          floor of the imbalance grows like |K| |q_e|, i.e.
                                          with the cube of the element count (400 elements
                                          on the quick-return: 1.4e-8 of the forces) */

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

/* g += the generalized friction forces of the slider contacts at their current state (the
 * corner forces F and, Coulomb, the face forces beta of the last contact LCP): the columns
 * the step's contact problem applies them with (fmb_contact_columns with the contact's mu
 * per unit corner force, the model's extra columns per unit beta), so that the elastic
 * rows' imbalance below sees the friction the accelerations were solved with. */
static void add_friction(fmb_sim_t *s, double *g)
{
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        const fmb_contact_t *c = &s->ct.contacts[ic];
        const fmb_joint_t *j = &s->model->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_contact_views(s, c, s->st.q, s->st.qd, v);
        const int nn = v[0].nc + v[1].nc, nx = c->fk->extra_columns ? c->fk->ncols_extra : 0;
        double cols[FMB_ELEM_COLS * 2 * FMB_CORNERS];
        memset(cols, 0, sizeof cols);
        fmb_contact_columns(c, j, v, cols);
        if (nx) c->fk->extra_columns(c, j, v, cols + (size_t)nn * FMB_CORNERS);
        int gi[FMB_ELEM_COLS];
        fmb_elem_gidx_map(v, gi);
        for (int r = 0; r < nn; r++) {
            if (gi[r] < 0) continue;
            double f = 0.0;
            for (int k = 0; k < FMB_CORNERS; k++)
                f += cols[r + (size_t)nn * k] * c->F[k];
            for (int k = 0; k < nx && k < 4; k++)
                f += cols[r + (size_t)nn * (FMB_CORNERS + k)] * c->beta[k];
            g[gi[r]] += f;
        }
    }
}

/* Steps 1-4 at the current (q, qd, t): the quasi-static shape. w: 4 n scratch. With
 * reproject = 0 the velocities are kept as they are (the rate's neighbouring solves). */
static int shape(fmb_sim_t *s, double *w, int reproject, int *iterations)
{
    const int n = s->n, m = s->m, N = n + m;
    const fmb_model_t *md = s->model;
    double *r = w, *qs = r + n, *F = qs + n, *Fq = F + n;
    double *rhs = s->ctl.work, *x = s->ctl.work + N;
    const double eps = 1e-8 / (s->opts.h * s->opts.h);
    int rc = 0, it;
    double res = INFINITY, step = INFINITY;
    const int friction = s->ct.ncontacts > 0 && s->ct.nsw == 0;
    for (it = 0; it <= STATIC_MAX_IT; it++) {
        /* 1. locked accelerations at (q, qd); with slider contacts (and no switching
         * elements) the friction of the start state through the start's contact LCP on
         * the same locked matrix */
        if ((rc = fmb_sim_accel_solve(s, 1, KAPPA, s->st.qdd, s->st.lam))) return rc;
        if (friction && (rc = fmb_sim_start_lcps(s, 0))) return rc;
        memcpy(qs, s->st.qdd, (size_t)n * sizeof *qs);
        for (int b = 1; b < md->nbodies; b++) {
            const fmb_body_t *bd = &md->bodies[b];
            for (int k = 3; k < bd->ndof; k++)
                qs[bd->offset + k] = 0.0;
        }
        /* 2. r = M qs + Phi_q^T lam - Q - Q_f; its elastic rows are the imbalance */
        fmb_sim_eval_forces(s, s->st.q, s->st.qd, qs, s->st.lam, s->st.t, r, F);
        /* the forces' size: largest of |M qs|, |Q|, |Phi_q^T lam| */
        double fscale = fmax(max_abs(md, r, 0), 1e-300);
        for (int i = 0; i < n; i++)
            r[i] += F[i];
        fmb_sim_eval_forces(s, s->st.q, s->st.qd, qs, s->ctl.zero, s->st.t, NULL, Fq); /* -Q */
        fscale = fmax(fscale, max_abs(md, Fq, 0));
        for (int i = 0; i < n; i++)
            Fq[i] = F[i] - Fq[i]; /* Phi_q^T lam */
        fscale = fmax(fscale, max_abs(md, Fq, 0));
        if (friction) { /* r -= Q_f */
            memset(Fq, 0, (size_t)n * sizeof *Fq);
            add_friction(s, Fq);
            fscale = fmax(fscale, max_abs(md, Fq, 0));
            for (int i = 0; i < n; i++)
                r[i] -= Fq[i];
        }
        res = max_abs(md, r, 1) / fscale;
        const double viol = fmb_sim_eval_phi(s, s->st.q, s->st.t, x, NULL);
        if (viol <= s->opts.phi_tol &&
            (res <= RES_TOL || step <= STEP_TOL || (it >= 3 && step <= STEP_FLOOR) ||
             (it >= 10 && res <= RES_FLOOR))) {
            *iterations += it;
            return 0;
        }
        if (it == STATIC_MAX_IT) break;
        /* 3. shape step */
        const fmb_coeffs_t c = {eps, 1, 1, 0, 1, 0, 0, 1};
        fmb_sim_assemble(s, s->st.q, s->st.qd, qs, s->st.lam, s->st.t, &c);
        memset(rhs, 0, (size_t)n * sizeof *rhs);
        for (int b = 1; b < md->nbodies; b++) {
            const fmb_body_t *bd = &md->bodies[b];
            for (int k = 3; k < bd->ndof; k++)
                rhs[bd->offset + k] = -r[bd->offset + k];
        }
        fmb_sim_eval_phi(s, s->st.q, s->st.t, rhs + n, NULL);
        for (int k = 0; k < m; k++)
            rhs[n + k] = -rhs[n + k];
        if ((rc = fmb_sim_solve_kkt(s, rhs, x, s->st.q, s->st.t, "in the quasi-static start")))
            return rc;
        double scale = 1.0; /* at most 0.5 per coordinate, as the assembly */
        for (int i = 0; i < n; i++)
            if (fabs(x[i]) * scale > 0.5) scale = 0.5 / fabs(x[i]);
        for (int i = 0; i < n; i++)
            s->st.q[i] += scale * x[i];
        const double qe = max_abs(md, s->st.q, 1);
        for (int i = 0; i < n; i++)
            x[i] *= scale;
        step = max_abs(md, x, 1) / (qe > 0 ? qe : 1.0);
        /* 4. the start again at the new shape: velocities (the constraints are closed by
         * the next step's -Phi rows, in this step's metric: a mass-weighted assembly would
         * put the correction into the lightest coordinates, i.e. kink the element under a
         * slider of a fine mesh) */
        if (reproject && (rc = fmb_sim_start_velocities(s))) return rc;
    }
    return fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                         "quasi-static start did not converge in %d iterations at t = %g s "
                         "(elastic force imbalance %.3g of the largest generalized force, last "
                         "shape step %.3g of the shape); the loads may exceed the buckling or "
                         "spinning limit of a beam; start without it (solver: start: rigid)",
                         STATIC_MAX_IT, s->st.t, res, step);
}

int fmb_sim_static_start(fmb_sim_t *s)
{
    const int n = s->n;
    const fmb_model_t *md = s->model;
    double *w = malloc(((size_t)8 * n + 1) * sizeof *w);
    if (!w) return fmb_sim_error(s, FMB_ERR_NOMEM, "out of memory");
    double *q0 = w + 4 * (size_t)n, *qd0 = q0 + n, *qdd0 = qd0 + n, *qp = qdd0 + n;
    int rc, its = 0;
    if ((rc = shape(s, w, 1, &its))) goto out;
    /* 5. rate of the quasi-static shape: the shapes at t = +-delta, the carrier coordinates
     * moved there by their Taylor series (then assembled on Phi(q, +-delta) = 0) */
    const double t0 = s->st.t, delta = fmin(s->opts.h, 1e-3);
    memcpy(q0, s->st.q, (size_t)n * sizeof *q0);
    memcpy(qd0, s->st.qd, (size_t)n * sizeof *qd0);
    memcpy(qdd0, s->st.qdd, (size_t)n * sizeof *qdd0);
    for (int sg = 1; sg >= -1; sg -= 2) {
        const double d = sg * delta;
        memcpy(s->st.q, q0, (size_t)n * sizeof *q0);
        memcpy(s->st.qd, qd0, (size_t)n * sizeof *qd0);
        for (int b = 1; b < md->nbodies; b++) {
            const int o = md->bodies[b].offset;
            for (int k = 0; k < 3; k++) {
                s->st.q[o + k] += d * qd0[o + k] + 0.5 * d * d * qdd0[o + k];
                s->st.qd[o + k] += d * qdd0[o + k];
            }
        }
        s->st.t = t0 + d;
        if ((rc = shape(s, w, 0, &its))) break;
        if (sg > 0) memcpy(qp, s->st.q, (size_t)n * sizeof *qp);
    }
    s->st.t = t0;
    if (rc) goto out;
    for (int i = 0; i < n; i++)
        qp[i] = (qp[i] - s->st.q[i]) / (2 * delta); /* the rate (elastic entries used) */
    memcpy(s->st.q, q0, (size_t)n * sizeof *q0);
    memcpy(s->st.qd, qd0, (size_t)n * sizeof *qd0);
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        for (int k = 3; k < bd->ndof; k++)
            s->st.qd[bd->offset + k] = qp[bd->offset + k];
    }
    s->diag.static_iterations = its;
    /* 6. carrier velocities for these elastic rates; accelerations and multipliers of the
     * true equations for the integrator */
    if ((rc = fmb_sim_start_velocities(s))) goto out;
    rc = fmb_sim_accel_solve(s, 1, 0.0, s->st.qdd, s->st.lam);
out:
    free(w);
    return rc;
}
