/* Consistent start: initial coordinates from the case poses, assembly of the
 * configuration, projection of the velocities, accelerations and multipliers. */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_options(fmb_sim_t *s)
{
    const fmb_sim_options_t *o = &s->opts;
    if (!(o->h > 0) || !isfinite(o->h))
        return fmb_sim_error(s, FMB_ERR_ARG, "time step h must be positive (got %g)", o->h);
    if (!(o->t_end >= 0) || !isfinite(o->t_end))
        return fmb_sim_error(s, FMB_ERR_ARG, "t_end must be >= 0 (got %g)", o->t_end);
    if (o->integrator == FMB_HHT && !(o->alpha >= -1.0 / 3.0 - 1e-15 && o->alpha <= 0))
        return fmb_sim_error(s, FMB_ERR_ARG, "HHT alpha must be in [-1/3, 0] (got %g)", o->alpha);
    if (o->integrator == FMB_NEWMARK && !(o->beta > 0 && o->gamma >= 0.5))
        return fmb_sim_error(s, FMB_ERR_ARG, "Newmark needs beta > 0 and gamma >= 1/2 (got %g, %g)",
                             o->beta, o->gamma);
    if (o->integrator == FMB_GENERALIZED_ALPHA && !(o->rho_inf >= 0 && o->rho_inf <= 1))
        return fmb_sim_error(s, FMB_ERR_ARG, "generalized-alpha rho_inf must be in [0, 1] (got %g)",
                             o->rho_inf);
    if ((int)o->integrator < 0 || o->integrator > FMB_GENERALIZED_ALPHA)
        return fmb_sim_error(s, FMB_ERR_ARG, "unknown integrator %d", (int)o->integrator);
    if (o->max_newton < 1 || o->output_every < 1 || o->halving < 0)
        return fmb_sim_error(s, FMB_ERR_ARG,
                             "max_newton and output_every must be >= 1, halving >= 0");
    if ((int)o->ordering < 0 || o->ordering > FMB_ORDERING_BEST)
        return fmb_sim_error(s, FMB_ERR_ARG, "unknown ordering %d", (int)o->ordering);
    if (!(o->rtol >= 0 && o->atol > 0 && o->phi_tol > 0))
        return fmb_sim_error(s, FMB_ERR_ARG, "tolerances must be positive");
    return 0;
}

static void initial_coordinates(fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        double *q = s->q + bd->offset, *qd = s->qd + bd->offset, A[4];
        const double *R = bd->pose0, *V = bd->vel0;
        fmb_rot(R[2], A);
        /* rbar = A^T R;  rbard = A^T Rdot - thetad Itil rbar */
        q[0] = A[0] * R[0] + A[1] * R[1];
        q[1] = A[2] * R[0] + A[3] * R[1];
        q[2] = R[2];
        qd[0] = A[0] * V[0] + A[1] * V[1] + V[2] * q[1];
        qd[1] = A[2] * V[0] + A[3] * V[1] - V[2] * q[0];
        qd[2] = V[2];
    }
}

/* Newton on Phi(q, t) = 0 with the mass-weighted minimum-norm correction. With c22 < 0
 * (check mode) the system is regularized so redundant but consistent constraints pass. */
int fmb_sim_assemble_positions(fmb_sim_t *s, double c22)
{
    const int n = s->n, m = s->m, N = n + m;
    double *rhs = s->work, *x = s->work + N, *phi = s->work + 2 * N;
    const fmb_coeffs_t c = {1, 0, 0, 0, 1, c22};
    int row = -1;
    for (int it = 0; it < 100; it++) {
        double viol = fmb_sim_eval_phi(s, s->q, s->t, phi, &row);
        if (viol <= s->opts.phi_tol) return 0;
        if (!isfinite(viol)) break;
        fmb_sim_assemble(s, s->q, s->qd, s->qdd, s->lam, s->t, &c);
        memset(rhs, 0, (size_t)n * sizeof *rhs);
        for (int r = 0; r < m; r++)
            rhs[n + r] = -phi[r];
        int rc =
            fmb_sim_solve_kkt(s, rhs, x, s->q, s->t, "while assembling the initial configuration");
        if (rc == FMB_ERR_SINGULAR) {
            /* Dependent rows at a configuration that is still far from closing the
             * joints: the joints most likely cannot all be closed (lengths, points). */
            char dep[sizeof s->errmsg];
            const char *lst = strstr(s->errmsg, "row(s): ");
            snprintf(dep, sizeof dep, "%s", lst ? lst + 8 : "");
            char *end = strstr(dep, "; remove");
            if (end) *end = '\0';
            const int dline = s->errline;
            int vline = 0;
            const char *vname = row < 0 ? "?" : fmb_sim_row_name(s, row, &vline);
            fmb_sim_error(s, FMB_ERR_ASSEMBLY,
                          "cannot assemble the initial configuration: constraint violation %.3g "
                          "remains in joint '%s' (line %d) where the constraints became "
                          "dependent (%s); the joints cannot all be closed with these lengths "
                          "and points, or they are redundant",
                          viol, vname, vline, dep);
            s->errline = vline ? vline : dline;
            return FMB_ERR_ASSEMBLY;
        }
        if (rc) return rc;
        /* Limit angle changes per iteration to keep Newton inside its basin. */
        double scale = 1.0;
        for (int i = 0; i < n; i++)
            if (fabs(x[i]) * scale > 0.5) scale = 0.5 / fabs(x[i]);
        for (int i = 0; i < n; i++)
            s->q[i] += scale * x[i];
    }
    int line;
    const char *nm = row < 0 ? "?" : fmb_sim_row_name(s, row, &line);
    double viol = fmb_sim_eval_phi(s, s->q, s->t, phi, &row);
    nm = row < 0 ? "?" : fmb_sim_row_name(s, row, &line);
    int rc = fmb_sim_error(s, FMB_ERR_ASSEMBLY,
                           "cannot assemble the initial configuration: constraint violation "
                           "%.3g remains in joint '%s' (line %d) after 100 Newton iterations; "
                           "check the joint points and the initial poses",
                           viol, nm, row < 0 ? 0 : line);
    s->errline = row < 0 ? 0 : line;
    return rc;
}

/* Power of non-conservative forces and drivers: sum P_f + lambda . Phi_t. */
double fmb_sim_power(const fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    double P = 0.0;
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_t *f = &md->forces[i];
        fmb_bodyview_t v[2] = {fmb_model_view(md, f->body[0], s->q, s->qd),
                               fmb_model_view(md, f->body[1], s->q, s->qd)};
        if (f->klass->power) P += f->klass->power(f, v, s->t);
    }
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->klass->time) continue;
        double *pt = s->sphi, *ptt = s->sphi2;
        j->klass->time(j, s->t, pt, ptt);
        for (int r = 0; r < j->klass->nrows; r++)
            P += s->lam[j->row + r] * pt[r];
    }
    /* friction: -mu v sum F (both bodies together) */
    for (int ic = 0; ic < s->ncontacts; ic++) {
        const fmb_contact_t *c = &s->contacts[ic];
        P += fmb_contact_friction(c, NULL) * c->v;
    }
    return P;
}

/* Accelerations and multipliers consistent with (q, qd, t):
 *   [M Phi_q^T; Phi_q 0] [qdd; lam] = [Q; gamma],
 *   gamma_k = -qd^T (d2 Phi_k/dq2) qd - Phi_tt,k.
 * With factor = 0 the current factorization of that matrix is reused. */
static int accel_solve(fmb_sim_t *s, int factor, double *qdd, double *lam)
{
    const int n = s->n, m = s->m, N = n + m;
    const fmb_model_t *md = s->model;
    double *rhs = s->work, *x = s->work + N;
    int rc;
    if (factor) {
        const fmb_coeffs_t c = {1, 0, 0, 0, 1, 0};
        fmb_sim_assemble(s, s->q, s->qd, s->qdd, s->lam, s->t, &c);
        rc = fmb_kkt_factor(&s->kkt);
        s->stats.factorizations = s->kkt.nnumeric;
        s->stats.symbolic = s->kkt.nsymbolic;
        if (rc == FMB_ERR_SINGULAR)
            return fmb_sim_singular_error(s, s->q, s->t, "for the accelerations");
        if (rc) return fmb_sim_error(s, rc, "linear solver failure at t = %.9g", s->t);
    }
    fmb_sim_eval_forces(s, s->q, s->qd, s->qdd, s->zero, s->t, NULL, rhs); /* -Q */
    for (int i = 0; i < n; i++)
        rhs[i] = -rhs[i];
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, s->q, s->qd, v);
        const int nr = j->klass->nrows, n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double *vloc = s->sv;
        for (int k = 0; k < nn; k++) {
            int g = fmb_sim_gidx(md, j->body, n0, k);
            vloc[k] = g >= 0 ? s->qd[g] : 0.0;
        }
        double *pt = fmb_zeroed(s->sphi, (size_t)nr), *ptt = fmb_zeroed(s->sphi2, (size_t)nr);
        if (j->klass->time) j->klass->time(j, s->t, pt, ptt);
        for (int r = 0; r < nr; r++) {
            double *w = fmb_zeroed(s->sw, (size_t)nr), *H = fmb_zeroed(s->sH, (size_t)nn * nn);
            double quad = 0.0;
            w[r] = 1.0;
            j->klass->hess(j, v, s->t, w, H);
            for (int a = 0; a < nn; a++)
                for (int b = 0; b < nn; b++)
                    quad += vloc[a] * H[a + nn * b] * vloc[b];
            rhs[n + j->row + r] = -quad - ptt[r];
        }
    }
    if ((rc = fmb_kkt_solve(&s->kkt, rhs, x)))
        return fmb_sim_error(s, rc, "linear solve failed for the accelerations at t = %.9g", s->t);
    memcpy(qdd, x, (size_t)n * sizeof *x);
    memcpy(lam, x + n, (size_t)m * sizeof *x);
    return 0;
}

int fmb_sim_initialize(fmb_sim_t *s)
{
    int rc = check_options(s);
    if (rc) return rc;
    const int n = s->n, m = s->m, N = n + m;
    const fmb_model_t *md = s->model;
    s->t = 0.0;
    s->W = 0.0;
    memset(&s->stats, 0, sizeof s->stats);
    memset(s->qdd, 0, (size_t)n * sizeof *s->qdd);
    memset(s->lam, 0, (size_t)m * sizeof *s->lam);
    initial_coordinates(s);
    if ((rc = fmb_sim_assemble_positions(s, 0.0))) return rc;

    double *rhs = s->work, *x = s->work + N;
    const fmb_coeffs_t c = {1, 0, 0, 0, 1, 0};
    /* Velocities: [M Phi_q^T; Phi_q 0] [qd; mu] = [M qd0; -Phi_t] */
    fmb_sim_assemble(s, s->q, s->qd, s->qdd, s->lam, s->t, &c);
    fmb_sim_eval_forces(s, s->q, s->qd, s->qd, s->lam, s->t, rhs, NULL); /* M qd0 */
    memset(rhs + n, 0, (size_t)m * sizeof *rhs);
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->klass->time) continue;
        double *pt = s->sphi, *ptt = s->sphi2;
        j->klass->time(j, s->t, pt, ptt);
        for (int r = 0; r < j->klass->nrows; r++)
            rhs[n + j->row + r] = -pt[r];
    }
    if ((rc = fmb_sim_solve_kkt(s, rhs, x, s->q, s->t, "while projecting the initial velocities")))
        return rc;
    memcpy(s->qd, x, (size_t)n * sizeof *x);

    /* Accelerations and multipliers from the same matrix. */
    if ((rc = accel_solve(s, 0, s->qdd, s->lam))) return rc;
    memcpy(s->acc, s->qdd, (size_t)n * sizeof *s->qdd);
    /* Bristles at rest, or in their steady state z = g(v) sgn(v) / sigma0 when the slider
     * starts sliding (no start-up spike of the sigma1 zdot term). */
    for (int ic = 0; ic < s->ncontacts; ic++) {
        fmb_contact_t *c = &s->contacts[ic];
        const fmb_joint_t *j = &md->joints[c->joint];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, s->q, s->qd, v);
        double e[2], vt, ug[2];
        fmb_contact_kinematics(j, v, e, &vt, ug);
        c->v = c->v_n = vt;
        c->z = c->z_n = 0.0;
        if (c->d.model == FMB_FRICTION_LUGRE && vt != 0.0)
            c->z = c->z_n = (vt > 0 ? 1.0 : -1.0) * fmb_lugre_g(&c->d, vt) / c->d.sigma0;
    }
    fmb_sim_contact_decompose(s);
    s->P = fmb_sim_power(s);
    double viol = fmb_sim_eval_phi(s, s->q, s->t, s->work + 2 * N, NULL);
    s->stats.max_violation = viol;
    s->initialized = 1;
    return 0;
}

/* ------------------------------------------------------------ stepping */
