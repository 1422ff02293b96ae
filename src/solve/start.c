/* Consistent start: initial coordinates from the case poses, assembly of the
 * configuration, projection of the velocities, accelerations and multipliers; friction
 * and switching elements at the start: start_lcp.c. */
#include "solve/sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void dgelsd_(const int *m, const int *n, const int *nrhs, double *a, const int *lda,
                    double *b, const int *ldb, double *s, const double *rcond, int *rank,
                    double *work, const int *lwork, int *iwork, int *info);

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
    if (o->viz_every < 0 || o->viz_frames < 0 || o->viz_frames == 1)
        return fmb_sim_error(s, FMB_ERR_ARG,
                             "viz_every must be >= 0, viz_frames 0 or >= 2 (got %d, %d)",
                             o->viz_every, o->viz_frames);
    if ((int)o->start < 0 || o->start > FMB_START_STATIC)
        return fmb_sim_error(s, FMB_ERR_ARG, "unknown start %d", (int)o->start);
    if ((int)o->ordering < 0 || o->ordering > FMB_ORDERING_BEST)
        return fmb_sim_error(s, FMB_ERR_ARG, "unknown ordering %d", (int)o->ordering);
    if (!(o->rtol >= 0 && o->atol > 0 && o->phi_tol > 0))
        return fmb_sim_error(s, FMB_ERR_ARG, "tolerances must be positive");
    if (o->t_end / o->h > 1e12)
        return fmb_sim_error(s, FMB_ERR_ARG,
                             "t_end / h = %.3g steps (t_end = %g s, h = %g s): more than 1e12 "
                             "steps would take years; choose a larger h or a shorter t_end",
                             o->t_end / o->h, o->t_end, o->h);
    return 0;
}

static void initial_coordinates(fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        double *q = s->st.q + bd->offset, *qd = s->st.qd + bd->offset, A[4];
        const double *R = bd->pose0, *V = bd->vel0;
        fmb_rot(R[2], A);
        /* rbar = A^T R;  rbard = A^T Rdot - thetad Itil rbar */
        q[0] = A[0] * R[0] + A[1] * R[1];
        q[1] = A[2] * R[0] + A[3] * R[1];
        q[2] = R[2];
        qd[0] = A[0] * V[0] + A[1] * V[1] + V[2] * q[1];
        qd[1] = A[2] * V[0] + A[3] * V[1] - V[2] * q[0];
        qd[2] = V[2];
        for (int k = 3; k < bd->ndof; k++) /* undeformed, at rest, unless the body says */
            q[k] = qd[k] = 0.0;
        if (bd->klass->initial_state) bd->klass->initial_state(bd, q, qd);
    }
}

/* Inertial velocity (xdot, ydot of the origin, omega) of a body from its carrier q, qd:
 * R = A rbar, Rdot = A (rbard + thetad Itil rbar). */
static void inertial_velocity(const double *q, const double *qd, double v[3])
{
    double A[4];
    fmb_rot(q[2], A);
    const double px = qd[0] - qd[2] * q[1], py = qd[1] + qd[2] * q[0];
    v[0] = A[0] * px + A[2] * py;
    v[1] = A[1] * px + A[3] * py;
    v[2] = qd[2];
}

/* Initial velocities (docs/theory.md, "Consistent start"). The elastic coordinates keep
 * their given velocities (zero: each beam moves rigidly with its carrier frame). The
 * carrier velocities x (3 per body) are the closest to the case's x0, in the bodies'
 * rigid-coordinate mass metric W (a body whose velocity the case states weighs 1e6 times
 * more than one it leaves out), that satisfy the velocity constraints:
 *   min 1/2 (x - x0)^T W (x - x0)   s.t.   Phi_r x = b = -Phi_t - Phi_e qd_e,
 *   x = x0 + W^-1 Phi_r^T y,   (Phi_r W^-1 Phi_r^T) y = b - Phi_r x0
 * (dense, least squares by LAPACK dgelsd, so consistent redundant rows pass). When the
 * constraints cannot be met by carrier velocities alone (a driver that moves an elastic
 * point), the mass-weighted projection of all velocities is used instead, as before. */
static int project_velocities(fmb_sim_t *s, int *rigid_only)
{
    const fmb_model_t *md = s->model;
    const int n = s->n, m = s->m, nb = md->nbodies - 1, nr = 3 * nb;
    *rigid_only = 0;
    /* dense in m x n: for very large models (thousands of bodies) the sparse mass-metric
     * projection of all velocities is used instead (docs/theory.md, "Consistent start") */
    if ((double)m * (double)n > 2e7 || (double)m * (double)m * (double)nr > 1e11) return 0;
    double *J = malloc(((size_t)m * n + (size_t)m * nr + 2 * (size_t)nr * 3 + 4 * (size_t)n +
                        (size_t)m * m + 3 * (size_t)m + 1) *
                       sizeof *J);
    if (!J) return fmb_sim_error(s, FMB_ERR_NOMEM, "out of memory");
    double *Ar = J + (size_t)m * n, *Wi = Ar + (size_t)m * nr, *x0 = Wi + (size_t)nr * 3,
           *e = x0 + nr, *Me = e + n, *b = Me + n, *S = b + n, *sv = S + (size_t)m * m;
    int rc = 0;
    /* targets at the assembled configuration: the case's inertial velocities */
    for (int k = 0; k < nb; k++) {
        const fmb_body_t *bd = &md->bodies[k + 1];
        const double *q = s->st.q + bd->offset, *V = bd->vel0;
        double A[4];
        fmb_rot(q[2], A);
        x0[3 * k + 0] = A[0] * V[0] + A[1] * V[1] + V[2] * q[1];
        x0[3 * k + 1] = A[2] * V[0] + A[3] * V[1] - V[2] * q[0];
        x0[3 * k + 2] = V[2];
    }
    /* W^-1 per body: inverse of the 3 x 3 rigid block of M (columns by M e_j) */
    for (int k = 0; k < nb && !rc; k++) {
        const fmb_body_t *bd = &md->bodies[k + 1];
        double B[9];
        for (int c = 0; c < 3; c++) {
            memset(e, 0, (size_t)n * sizeof *e);
            e[bd->offset + c] = 1.0;
            fmb_sim_eval_forces(s, s->st.q, s->st.qd, e, s->st.lam, s->st.t, Me, NULL);
            for (int r = 0; r < 3; r++)
                B[r + 3 * c] = Me[bd->offset + r] * (bd->vel_given ? 1e6 : 1.0);
        }
        const double det = B[0] * (B[4] * B[8] - B[7] * B[5]) - B[3] * (B[1] * B[8] - B[7] * B[2]) +
                           B[6] * (B[1] * B[5] - B[4] * B[2]);
        if (!(fabs(det) > 0)) {
            rc = fmb_sim_error(s, FMB_ERR_MODEL, "body '%s' has a singular rigid mass block",
                               bd->name);
            break;
        }
        double *Wk = Wi + 9 * (size_t)k; /* adjugate / det */
        Wk[0] = (B[4] * B[8] - B[7] * B[5]) / det, Wk[3] = -(B[3] * B[8] - B[6] * B[5]) / det;
        Wk[6] = (B[3] * B[7] - B[6] * B[4]) / det, Wk[1] = -(B[1] * B[8] - B[7] * B[2]) / det;
        Wk[4] = (B[0] * B[8] - B[6] * B[2]) / det, Wk[7] = -(B[0] * B[7] - B[6] * B[1]) / det;
        Wk[2] = (B[1] * B[5] - B[4] * B[2]) / det, Wk[5] = -(B[0] * B[5] - B[3] * B[2]) / det;
        Wk[8] = (B[0] * B[4] - B[3] * B[1]) / det;
    }
    if (rc || m == 0) goto done;
    fmb_sim_dense_jacobian(s, s->st.q, s->st.t, J);
    /* b = -Phi_t - Phi_e qd_e (elastic velocities as given), Ar = Phi_r */
    for (int r = 0; r < m; r++)
        b[r] = 0.0;
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->klass->time) continue;
        j->klass->time(j, s->st.t, s->as.sphi, s->as.sphi2);
        for (int r = 0; r < j->klass->nrows; r++)
            b[j->row + r] = -s->as.sphi[r];
    }
    for (int k = 0; k < nb; k++) {
        const fmb_body_t *bd = &md->bodies[k + 1];
        for (int c = 0; c < bd->ndof; c++) {
            const double *Jc = J + (size_t)m * (bd->offset + c);
            if (c < 3)
                memcpy(Ar + (size_t)m * (3 * k + c), Jc, (size_t)m * sizeof *Jc);
            else
                for (int r = 0; r < m; r++)
                    b[r] -= Jc[r] * s->st.qd[bd->offset + c];
        }
    }
    /* S = Ar W^-1 Ar^T, rhs = b - Ar x0 */
    double *T = J; /* reuse: T = W^-1 Ar^T (nr x m) */
    for (int r = 0; r < m; r++)
        for (int k = 0; k < nb; k++)
            for (int a = 0; a < 3; a++) {
                double acc = 0.0;
                for (int c = 0; c < 3; c++)
                    acc += Wi[9 * (size_t)k + a + 3 * c] * Ar[r + (size_t)m * (3 * k + c)];
                T[(3 * k + a) + (size_t)nr * r] = acc;
            }
    for (int r = 0; r < m; r++) {
        double acc = b[r];
        for (int c = 0; c < nr; c++)
            acc -= Ar[r + (size_t)m * c] * x0[c];
        e[r] = acc; /* rhs */
        for (int r2 = 0; r2 < m; r2++) {
            double sum = 0.0;
            for (int c = 0; c < nr; c++)
                sum += Ar[r2 + (size_t)m * c] * T[c + (size_t)nr * r];
            S[r2 + (size_t)m * r] = sum;
        }
    }
    /* S y = rhs by least squares (dgelsd overwrites S: solve on copies), x = x0 + T y,
     * then iterative refinement on the constraint residual b - Ar x (the weights span six
     * orders of magnitude, so one solve can leave 1e-9 of it) */
    {
        int one = 1, rank = 0, info = 0, lwork = -1, liw = 1, iwq = 0;
        const double rcond = 1e-14;
        double wq;
        double *Sc = malloc(((size_t)m * m + m + 1) * sizeof *Sc),
               *y = Sc ? Sc + (size_t)m * m : NULL;
        dgelsd_(&m, &m, &one, S, &m, e, &m, sv, &rcond, &rank, &wq, &lwork, &iwq, &info);
        lwork = (int)wq, liw = iwq > 1 ? iwq : 1;
        double *work = malloc(((size_t)lwork + 1) * sizeof *work);
        int *iwork = malloc((size_t)liw * sizeof *iwork);
        if (!work || !iwork || !Sc) {
            free(work), free(iwork), free(Sc);
            rc = fmb_sim_error(s, FMB_ERR_NOMEM, "out of memory");
            goto done;
        }
        memcpy(Me, x0, (size_t)nr * sizeof *x0); /* x */
        double res = INFINITY, scale = 0.0, vmax = 0.0;
        for (int r = 0; r < m; r++)
            scale = fmax(scale, fabs(b[r]));
        for (int it = 0; it < 4 && !info; it++) {
            /* residual of the constraints at x: y = b - Ar x */
            res = 0.0;
            for (int r = 0; r < m; r++) {
                double acc = b[r];
                for (int c = 0; c < nr; c++)
                    acc -= Ar[r + (size_t)m * c] * Me[c];
                y[r] = acc;
                res = fmax(res, fabs(acc));
            }
            vmax = 0.0;
            for (int c = 0; c < nr; c++)
                vmax = fmax(vmax, fabs(Me[c]));
            if (res <= 1e-16 * (1.0 + scale + vmax)) break;
            memcpy(Sc, S, (size_t)m * m * sizeof *S);
            dgelsd_(&m, &m, &one, Sc, &m, y, &m, sv, &rcond, &rank, work, &lwork, iwork, &info);
            for (int c = 0; c < nr; c++) {
                double acc = 0.0;
                for (int r = 0; r < m; r++)
                    acc += T[c + (size_t)nr * r] * y[r];
                Me[c] += acc;
            }
        }
        free(work), free(iwork), free(Sc);
        /* accept only if the carrier velocities satisfy the constraints */
        if (!info && res <= 1e-12 * (1.0 + scale + vmax)) {
            for (int k = 0; k < nb; k++)
                memcpy(s->st.qd + md->bodies[k + 1].offset, Me + 3 * k, 3 * sizeof *Me);
            *rigid_only = 1;
        }
    }
done:
    free(J);
    return rc;
}

/* Newton on Phi(q, t) = 0 with the mass-weighted minimum-norm correction. With c22 < 0
 * (check mode) the system is regularized so redundant but consistent constraints pass. */
int fmb_sim_assemble_positions(fmb_sim_t *s, double c22)
{
    const int n = s->n, m = s->m, N = n + m;
    double *rhs = s->ctl.work, *x = s->ctl.work + N, *phi = s->ctl.work + 2 * N;
    const fmb_coeffs_t c = {1, 0, 0, 0, 1, c22, 0, 0};
    int row = -1;
    for (int it = 0; it < 100; it++) {
        double viol = fmb_sim_eval_phi(s, s->st.q, s->st.t, phi, &row);
        if (viol <= s->opts.phi_tol) return 0;
        if (!isfinite(viol)) break;
        fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &c);
        memset(rhs, 0, (size_t)n * sizeof *rhs);
        for (int r = 0; r < m; r++)
            rhs[n + r] = -phi[r];
        int rc = fmb_sim_solve_kkt(s, rhs, x, s->st.q, s->st.t,
                                   "while assembling the initial configuration");
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
            s->st.q[i] += scale * x[i];
    }
    int line;
    const char *nm = row < 0 ? "?" : fmb_sim_row_name(s, row, &line);
    double viol = fmb_sim_eval_phi(s, s->st.q, s->st.t, phi, &row);
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
    /* the bodies, forces and joints with a power or time member alone (sim.h hk: listed at
     * creation, in model order, so the sum is the same as over all of them) */
    const fmb_model_t *md = s->model;
    double P = 0.0;
    for (int k = 0; k < s->el.nbpow; k++) { /* internal damping (beams' Rayleigh damping) */
        const fmb_body_t *bd = &md->bodies[s->el.bpow[k]];
        P += bd->klass->power(bd, s->st.q + bd->offset, s->st.qd + bd->offset);
    }
    for (int k = 0; k < s->el.nfpow; k++) {
        const fmb_force_t *f = &md->forces[s->el.fpow[k]];
        fmb_bodyview_t v[2] = {fmb_model_view(md, f->body[0], s->st.q, s->st.qd),
                               fmb_model_view(md, f->body[1], s->st.q, s->st.qd)};
        P += f->klass->power(f, v, s->st.t);
    }
    for (int k = 0; k < s->el.njtime; k++) {
        const fmb_joint_t *j = &md->joints[s->el.jtime[k]];
        double *pt = s->as.sphi, *ptt = s->as.sphi2;
        j->klass->time(j, s->st.t, pt, ptt);
        for (int r = 0; r < j->klass->nrows; r++)
            P += s->st.lam[j->row + r] * pt[r];
    }
    /* friction: the corner forces at the faces' relative velocities (both bodies) */
    for (int ic = 0; ic < s->ct.ncontacts; ic++) {
        const fmb_contact_t *c = &s->ct.contacts[ic];
        fmb_bodyview_t v[2];
        fmb_sim_contact_views(s, c, s->st.q, s->st.qd, v);
        P += fmb_contact_friction_power(c, &md->joints[c->joint], v);
    }
    return P; /* the LCP forces' work: fmb_sim_switch_work (switch_step.c) */
}

/* Accelerations and multipliers consistent with (q, qd, t):
 *   [M Phi_q^T; Phi_q 0] [qdd; lam] = [Q; gamma],
 *   gamma_k = -qd^T (d2 Phi_k/dq2) qd - Phi_tt,k.
 * With factor = 0 the current factorization of that matrix is reused; ee != 0 multiplies
 * the elastic-elastic mass block by ee (quasi-static start, static_start.c). */
int fmb_sim_accel_solve(fmb_sim_t *s, int factor, double ee, double *qdd, double *lam)
{
    const int n = s->n, m = s->m, N = n + m;
    const fmb_model_t *md = s->model;
    double *rhs = s->ctl.work, *x = s->ctl.work + N;
    int rc;
    if (factor) {
        const fmb_coeffs_t c = {1, 0, 0, 0, 1, 0, ee, 0};
        fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &c);
        rc = fmb_kkt_factor(&s->as.kkt);
        s->diag.stats.factorizations = s->as.kkt.nnumeric;
        s->diag.stats.symbolic = s->as.kkt.nsymbolic;
        if (rc == FMB_ERR_SINGULAR)
            return fmb_sim_singular_error(s, s->st.q, s->st.t, "for the accelerations");
        if (rc) return fmb_sim_error(s, rc, "linear solver failure at t = %.9g", s->st.t);
    }
    fmb_sim_eval_forces(s, s->st.q, s->st.qd, s->st.qdd, s->ctl.zero, s->st.t, NULL, rhs); /* -Q */
    double rsum = 0.0;
    for (int i = 0; i < n; i++)
        rsum += rhs[i] = -rhs[i];
    if (!isfinite(rsum)) return fmb_sim_nonfinite_error(s, s->st.q, s->st.qd, s->st.qdd, s->st.t);
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        fmb_bodyview_t v[2];
        fmb_sim_joint_views(s, j, s->st.q, s->st.qd, v);
        const int nr = j->klass->nrows, nn = v[0].nc + v[1].nc;
        double *vloc = s->as.sv;
        for (int k = 0; k < nn; k++) {
            int g = fmb_elem_gidx(v, k);
            vloc[k] = g >= 0 ? s->st.qd[g] : 0.0;
        }
        double *pt = fmb_zeroed(s->as.sphi, (size_t)nr), *ptt = fmb_zeroed(s->as.sphi2, (size_t)nr);
        if (j->klass->time) j->klass->time(j, s->st.t, pt, ptt);
        for (int r = 0; r < nr; r++) {
            /* the Hessian is nn x nn on the joint's element columns (model.h): small */
            double *w = fmb_zeroed(s->as.sw, (size_t)nr),
                   *H = fmb_zeroed(s->as.sH, (size_t)nn * nn);
            double quad = 0.0;
            w[r] = 1.0;
            j->klass->hess(j, v, s->st.t, w, H);
            for (int a = 0; a < nn; a++)
                for (int b = 0; b < nn; b++)
                    quad += vloc[a] * H[a + nn * b] * vloc[b];
            rhs[n + j->row + r] = -quad - ptt[r];
        }
    }
    if ((rc = fmb_kkt_solve(&s->as.kkt, rhs, x)))
        return fmb_sim_error(s, rc, "linear solve failed for the accelerations at t = %.9g",
                             s->st.t);
    memcpy(qdd, x, (size_t)n * sizeof *x);
    memcpy(lam, x + n, (size_t)m * sizeof *x);
    return 0;
}

/* The velocities closest to s->st.qd in the mass metric that satisfy the velocity
 * constraints: [M Phi_q^T; Phi_q 0] [qd+; mu] = [M qd; -Phi_t] at (q, t), qd+ into x
 * (n values; x needs n + m). Leaves that matrix factored. when: for messages. */
int fmb_sim_mass_projection(fmb_sim_t *s, double *x, const char *when)
{
    const int n = s->n, m = s->m;
    const fmb_model_t *md = s->model;
    double *rhs = s->ctl.work;
    const fmb_coeffs_t c = {.cM = 1, .cA = 1};
    fmb_sim_assemble(s, s->st.q, s->st.qd, s->st.qdd, s->st.lam, s->st.t, &c);
    fmb_sim_eval_forces(s, s->st.q, s->st.qd, s->st.qd, s->st.lam, s->st.t, rhs, NULL); /* M qd */
    memset(rhs + n, 0, (size_t)m * sizeof *rhs);
    for (int i = 0; i < md->njoints; i++) {
        const fmb_joint_t *j = &md->joints[i];
        if (!j->klass->time) continue;
        double *pt = s->as.sphi, *ptt = s->as.sphi2;
        j->klass->time(j, s->st.t, pt, ptt);
        for (int r = 0; r < j->klass->nrows; r++)
            rhs[n + j->row + r] = -pt[r];
    }
    return fmb_sim_solve_kkt(s, rhs, x, s->st.q, s->st.t, when);
}

/* Velocities: elastic ones as given, carrier ones projected (project_velocities); when
 * that cannot satisfy the constraints, [M Phi_q^T; Phi_q 0] [qd; mu] = [M qd0; -Phi_t]
 * for all of them. Leaves [M Phi_q^T; Phi_q 0] factored at (q, t). */
int fmb_sim_start_velocities(fmb_sim_t *s)
{
    const int n = s->n, m = s->m, N = n + m;
    double *rhs = s->ctl.work, *x = s->ctl.work + N;
    int rc, rigid_only = 0;
    if ((rc = project_velocities(s, &rigid_only))) return rc;
    { /* the forces at the start must be finite before any matrix is built from them */
        fmb_sim_eval_forces(s, s->st.q, s->st.qd, s->st.qdd, s->ctl.zero, s->st.t, NULL, rhs);
        double rsum = 0.0;
        for (int i = 0; i < n; i++)
            rsum += rhs[i];
        if (!isfinite(rsum))
            return fmb_sim_nonfinite_error(s, s->st.q, s->st.qd, s->st.qdd, s->st.t);
    }
    /* factored even when rigid_only: the accelerations reuse this matrix */
    if ((rc = fmb_sim_mass_projection(s, x, "while projecting the initial velocities"))) return rc;
    if (!rigid_only) memcpy(s->st.qd, x, (size_t)n * sizeof *x);
    return 0;
}

/* Fixed steps: the coordinates a driver prescribes alone (an angle driver against ground;
 * an x / y driver at a rigid body's frame origin) are left out of the error estimate.
 * Their error is the constraint tolerance, not a truncation error: the estimate there
 * measures the change of the prescribed acceleration over a step (a profile's kinks), which
 * no step size removes from the results. Done through their scale (an error relative to
 * 1e300 is nil), so the estimate's loop is unchanged. Adaptive runs keep them: their step
 * control is documented on every coordinate. */
static void leave_out_driven(fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    for (int k = 0; k < md->njoints; k++) {
        const fmb_joint_t *j = &md->joints[k];
        const fmb_body_t *b0 = &md->bodies[j->body[0]], *b1 = &md->bodies[j->body[1]];
        const int col = j->klass->drive_name && j->klass->time ? j->klass->drive_column : -1;
        int i = -1;
        if (col == 2) { /* an angle driver */
            if (b1->offset < 0 && b0->offset >= 0)
                i = b0->offset + 2;
            else if (b0->offset < 0 && b1->offset >= 0)
                i = b1->offset + 2;
        } else if ((col == 0 || col == 1) && b0->offset >= 0 && b0->ndof == 3 &&
                   j->point[0][0] == 0.0 && j->point[0][1] == 0.0) {
            i = b0->offset + col; /* an x / y driver at the frame origin */
        }
        if (i >= 0 && i < s->n) s->ctl.qscale[i] = FMB_DRIVEN_SCALE;
    }
}

int fmb_sim_initialize(fmb_sim_t *s)
{
    int rc = check_options(s);
    if (rc) return rc;
    if (s->n == 0)
        return fmb_sim_error(s, FMB_ERR_MODEL,
                             "the model has no moving body (no coordinates): nothing to simulate");
    const int n = s->n, m = s->m, N = n + m;
    const fmb_model_t *md = s->model;
    s->st.t = 0.0;
    s->st.W = 0.0;
    memset(&s->diag.stats, 0, sizeof s->diag.stats);
    s->diag.stats.max_error_coord = -1;
    s->diag.stats.jump_coord = -1;
    s->diag.err_hist_max = 0.0, s->diag.err_hist_h = 0.0, s->ctl.h_next = 0.0,
    s->ctl.h_last_try = 0.0;
    s->ctl.newton_stale = 1;
    s->st.h_prev = 0.0;
    s->diag.n_over = 0;
    s->diag.n_err_lim = 0;
    if (s->diag.err_lim) memset(s->diag.err_lim, 0, (size_t)n * sizeof *s->diag.err_lim);
    s->diag.static_iterations = 0;
    s->diag.restart_t = -1.0;
    s->st.nhist = 0;
    s->diag.rej_h = s->diag.rej_t = s->diag.rej_ratio = 0.0;
    memset(s->ctl.qscale, 0, (size_t)s->n * sizeof *s->ctl.qscale);
    memset(s->st.qdd, 0, (size_t)n * sizeof *s->st.qdd);
    memset(s->st.lam, 0, (size_t)m * sizeof *s->st.lam);
    initial_coordinates(s);
    if ((rc = fmb_sim_assemble_positions(s, 0.0))) return rc;

    if ((rc = fmb_sim_start_velocities(s))) return rc;
    /* Impacts of switching elements (a freewheel started with its input faster than its
     * output): velocity jump by the impulse LCP on the same matrix, loss into W. */
    if ((rc = fmb_sim_switch_impulse(s)) < 0) return rc;
    /* Accelerations and multipliers from the same matrix. */
    if ((rc = fmb_sim_accel_solve(s, 0, 0.0, s->st.qdd, s->st.lam))) return rc;
    if (s->opts.start == FMB_START_STATIC && (rc = fmb_sim_static_start(s))) return rc;
    /* what the projection changed of the case's velocities, per body */
    if (!s->st.vel_change && !(s->st.vel_change = calloc(3 * (size_t)md->nbodies, sizeof(double))))
        return fmb_sim_error(s, FMB_ERR_NOMEM, "out of memory");
    for (int b = 1; b < md->nbodies; b++) {
        const fmb_body_t *bd = &md->bodies[b];
        double v[3];
        inertial_velocity(s->st.q + bd->offset, s->st.qd + bd->offset, v);
        for (int k = 0; k < 3; k++)
            s->st.vel_change[3 * b + k] = v[k] - bd->vel0[k];
    }

    fmb_sim_force_history(s, 1);
    if ((rc = fmb_sim_start_lcps(s, 0))) return rc; /* friction, switching elements */
    memcpy(s->st.acc, s->st.qdd, (size_t)n * sizeof *s->st.qdd);
    s->st.P = fmb_sim_power(s);
    double viol = fmb_sim_eval_phi(s, s->st.q, s->st.t, s->ctl.work + 2 * N, NULL);
    s->diag.stats.max_violation = viol;
    for (int i = 0; i < n; i++)
        s->ctl.qscale[i] = fabs(s->st.q[i]);
    if (!s->opts.adaptive) leave_out_driven(s);
    s->initialized = 1;
    return 0;
}
