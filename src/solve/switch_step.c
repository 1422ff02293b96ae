/*
 * Switching elements inside a Newton iteration (seed 004; docs/switching.md): the
 * set-valued forces of dry friction, ratchets and screws as a linear complementarity
 * problem (LCP) built from the factorized iteration matrix, like the slider contacts of
 * contact_step.c.
 *
 * Element e has unknowns z_e >= 0 (total forces, not increments) with generalized forces
 * G_e z_e and complementarity rows on its relative velocity v_e = D_e . qd_new:
 *   w_e = av_e v_e + Az_e z_e + b_e,   z_e >= 0, w_e >= 0, z_e . w_e = 0.
 * The Newton increment without these forces is x0 (the residual never contains them);
 * with them x = x0 + sum_j X_j z_j, X_j = K^{-1} (bh2 G_j) (K: the factorized iteration
 * matrix), so qd_new = qd + gfac x and
 *   v_e = D_e . (qd + gfac x0) + sum_j gfac D_e . X_j z_j
 * is affine in z: M = av V + Az, q = av v0 + b, solved by Siconos' Lemke (contact/lcp.c).
 * At a converged iterate (x = 0) the dynamics hold with the forces G z and the
 * complementarity holds at the step's end velocity, so a mode change anywhere inside the
 * step is resolved by that step: a stick, an engagement or a release is never missed.
 * With slider contacts in the same model the two LCPs are solved one after the other in
 * each iteration (their coupling converges with the Newton iteration).
 *
 * At the start the same LCP is solved with x = [qdd; lambda] from the factorized
 * [M Phi_q^T; Phi_q 0] and the rows on v / tau + D . qdd (tau = 1e-3 h): an element that
 * moves gets its sliding force, one at rest decides on its acceleration (a ratchet under
 * load starts engaged, a brake under a torque below its static level starts stuck).
 */
#include "solve/sim_internal.h"

#include "contact/lcp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SW_MAXZ 4

int fmb_sim_switch_create(fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    for (int i = 0; i < md->nforces; i++)
        if (md->forces[i].klass->mode) s->ct.nsw++;
    if (!s->ct.nsw) return 0;
    s->ct.swe = calloc((size_t)s->ct.nsw, sizeof *s->ct.swe);
    if (!s->ct.swe) return FMB_ERR_NOMEM;
    int k = 0, nz = 0;
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_class_t *c = md->forces[i].klass;
        if (!c->mode) continue;
        if (c->nz > SW_MAXZ) return FMB_ERR_ARG;
        s->ct.swe[k].force = i;
        s->ct.swe[k].zoff = nz;
        nz += c->nz;
        k++;
    }
    s->ct.nswz = nz;
    if (!nz) return 0;
    const size_t N = (size_t)(s->n + s->m), mn = FMB_ELEM_COLS, ns = (size_t)s->ct.nsw;
    const size_t Z = (size_t)nz;
    /* X (N x nz), M (nz^2), q, z, w, V (nz each), D (FMB_ELEM_COLS per element: the
     * element's columns), G (FMB_ELEM_COLS x 4), a zero velocity (n) */
    s->ct.swX =
        calloc(N * Z + Z * Z + 4 * Z + ns * mn + SW_MAXZ * mn + (size_t)s->n + 1, sizeof(double));
    s->ct.swQ = calloc((size_t)s->n + 3 * N + 1, sizeof(double)); /* + coupled-LCP workspace */
    return s->ct.swX && s->ct.swQ ? 0 : FMB_ERR_NOMEM;
}

void fmb_sim_switch_free(fmb_sim_t *s)
{
    free(s->ct.swe), free(s->ct.swX), free(s->ct.swQ);
    s->ct.swe = NULL, s->ct.swX = NULL, s->ct.swQ = NULL;
}

static void views(const fmb_sim_t *s, const fmb_force_t *f, fmb_bodyview_t v[2])
{
    fmb_force_views(s->model, f, s->st.q, s->st.qd, v);
}

static void switch_forces(const fmb_sim_t *s, double *Q);

/* The n-vector after the workspace (the start's base velocity). */
static double *start_base(const fmb_sim_t *s)
{
    const size_t N = (size_t)(s->n + s->m), Z = (size_t)s->ct.nswz;
    return s->ct.swX + N * Z + Z * Z + 4 * Z + ((size_t)s->ct.nsw + SW_MAXZ) * FMB_ELEM_COLS;
}

int fmb_sim_switch_lcp(fmb_sim_t *s, double bh2, double gfac, const double *base, double bscale,
                       double t, double *x)
{
    const fmb_model_t *md = s->model;
    const int n = s->n, N = n + s->m, nz = s->ct.nswz;
    if (!nz) return 0;
    double *X = s->ct.swX, *M = X + (size_t)N * nz, *qv = M + (size_t)nz * nz, *zz = qv + nz;
    double *ww = zz + nz, *V = ww + nz, *Dall = V + nz,
           *G = Dall + (size_t)s->ct.nsw * FMB_ELEM_COLS;
    double *col = s->ctl.work + 3 * (size_t)N;
    memset(M, 0, (size_t)nz * nz * sizeof *M);
    /* responses to unit z and the element rows */
    for (int e = 0; e < s->ct.nsw; e++) {
        fmb_switch_t *sw = &s->ct.swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        const int ne = f->klass->nz;
        if (!ne) continue;
        fmb_bodyview_t v[2];
        views(s, f, v);
        const int nn = v[0].nc + v[1].nc;
        double *D = Dall + (size_t)e * FMB_ELEM_COLS;
        memset(G, 0, (size_t)nn * SW_MAXZ * sizeof *G);
        f->klass->lcp(f, v, t, sw->v_n, G, D, sw->av, sw->Az, sw->b);
        int g[FMB_ELEM_COLS];
        fmb_elem_gidx_map(v, g);
        for (int k = 0; k < ne; k++) {
            memset(col, 0, (size_t)N * sizeof *col);
            for (int r = 0; r < nn; r++)
                if (g[r] >= 0) col[g[r]] += bh2 * G[r + (size_t)nn * k];
            int rc = fmb_kkt_solve(&s->as.kkt, col, X + (size_t)N * (sw->zoff + k));
            if (rc)
                return fmb_sim_error(s, rc, "linear solve failed for the switching element '%s'",
                                     f->name);
        }
    }
    for (int e = 0; e < s->ct.nsw; e++) {
        const fmb_switch_t *sw = &s->ct.swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        const int ne = f->klass->nz;
        if (!ne) continue;
        fmb_bodyview_t v[2];
        views(s, f, v); /* the same columns as above (same state) */
        const int nn = v[0].nc + v[1].nc;
        const double *D = Dall + (size_t)e * FMB_ELEM_COLS;
        double v0 = 0.0;
        for (int j = 0; j < nz; j++)
            V[j] = 0.0;
        int g[FMB_ELEM_COLS];
        fmb_elem_gidx_map(v, g);
        for (int r = 0; r < nn; r++) {
            if (g[r] < 0) continue;
            v0 += D[r] * (base[g[r]] + gfac * x[g[r]]);
            for (int j = 0; j < nz; j++)
                V[j] += gfac * D[r] * X[g[r] + (size_t)N * j];
        }
        for (int k = 0; k < ne; k++) {
            const int row = sw->zoff + k;
            for (int j = 0; j < nz; j++)
                M[row + (size_t)nz * j] = sw->av[k] * V[j];
            for (int j = 0; j < ne; j++)
                M[row + (size_t)nz * (sw->zoff + j)] += sw->Az[k + ne * j];
            qv[row] = sw->av[k] * v0 + bscale * sw->b[k];
        }
    }
    char msg[256];
    int rc = fmb_lcp_solve(nz, M, qv, zz, ww, msg, sizeof msg);
    if (rc) {
        const fmb_force_t *f = &md->forces[s->ct.swe[0].force];
        rc = fmb_sim_error(s, rc,
                           "switching-element LCP failed at t = %.9g (force '%s', line %d): %s", t,
                           f->name, f->line, msg);
        s->errline = f->line;
        return rc;
    }
    for (int e = 0; e < s->ct.nsw; e++) {
        fmb_switch_t *sw = &s->ct.swe[e];
        const int ne = md->forces[sw->force].klass->nz;
        for (int k = 0; k < ne; k++)
            sw->z[k] = zz[sw->zoff + k];
    }
    for (int j = 0; j < nz; j++)
        if (zz[j] != 0.0)
            for (int i = 0; i < N; i++)
                x[i] += X[i + (size_t)N * j] * zz[j];
    return 0;
}

void fmb_sim_switch_accept(fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    for (int e = 0; e < s->ct.nsw; e++) {
        fmb_switch_t *sw = &s->ct.swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        fmb_bodyview_t v[2];
        views(s, f, v);
        sw->mode =
            f->klass->mode(f, v, s->st.t, f->klass->nz ? sw->z : NULL, &sw->force_out, &sw->v_n);
    }
}

/* The rows' constants b of every element at the current state (their capacities). */
static void switch_capacities(const fmb_sim_t *s, double *b)
{
    const fmb_model_t *md = s->model;
    for (int e = 0; e < s->ct.nsw; e++) {
        const fmb_switch_t *sw = &s->ct.swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        const int ne = f->klass->nz;
        if (!ne) continue;
        fmb_bodyview_t v[2];
        views(s, f, v);
        double G[FMB_ELEM_COLS * SW_MAXZ], D[FMB_ELEM_COLS], av[SW_MAXZ], Az[SW_MAXZ * SW_MAXZ];
        memset(G, 0, sizeof G);
        f->klass->lcp(f, v, s->st.t, sw->v_n, G, D, av, Az, b + sw->zoff);
    }
}

/* The start's (and a restart's) LCP on v / tau + D . qdd. An element that the solution
 * puts at its static level breaks away there (mode(): dry_friction's sliding flag), and
 * from that instant its force is the kinetic level: the accelerations are solved again
 * with the capacities that follow from the solution until they stop changing (once, for a
 * breakaway; a start under a torque above the static level accelerates at the kinetic
 * level, as a located breakaway inside the run does). */
#define SW_START_PASSES 4
int fmb_sim_switch_start(fmb_sim_t *s)
{
    if (s->ct.nswz) {
        const int n = s->n, m = s->m, nz = s->ct.nswz;
        double *x = s->ctl.work + (size_t)(n + m);
        double *x0 = malloc(((size_t)(n + m) + 2 * (size_t)nz) * sizeof *x0);
        if (!x0) return FMB_ERR_NOMEM;
        double *b0 = x0 + n + m, *b1 = b0 + nz;
        memcpy(x0, s->st.qdd, (size_t)n * sizeof *x);
        memcpy(x0 + n, s->st.lam, (size_t)m * sizeof *x);
        double *base = start_base(s);
        const double tau = 1e-3 * s->opts.h;
        for (int i = 0; i < n; i++)
            base[i] = s->st.qd[i] / tau;
        fmb_sim_switch_accept(s); /* v_n: static or kinetic levels */
        int rc = 0;
        for (int pass = 0; pass < SW_START_PASSES; pass++) {
            memcpy(x, x0, (size_t)(n + m) * sizeof *x);
            switch_capacities(s, b0);
            if ((rc = fmb_sim_switch_lcp(s, 1.0, 1.0, base, 1.0, s->st.t, x))) break;
            fmb_sim_switch_accept(s); /* the solution's modes and levels */
            switch_capacities(s, b1);
            if (!memcmp(b0, b1, (size_t)nz * sizeof *b0)) break;
        }
        free(x0);
        if (rc) return rc;
        memcpy(s->st.qdd, x, (size_t)n * sizeof *x);
        memcpy(s->st.lam, x + n, (size_t)m * sizeof *x);
    }
    fmb_sim_switch_accept(s);
    if (s->ct.nswz) switch_forces(s, s->ct.swQ);
    return 0;
}

/* Q = sum_e G_e z_e (n) at the current state. */
static void switch_forces(const fmb_sim_t *s, double *Q)
{
    const fmb_model_t *md = s->model;
    memset(Q, 0, (size_t)s->n * sizeof *Q);
    for (int e = 0; e < s->ct.nsw; e++) {
        const fmb_switch_t *sw = &s->ct.swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        const int ne = f->klass->nz;
        if (!ne) continue;
        fmb_bodyview_t v[2];
        views(s, f, v);
        const int nn = v[0].nc + v[1].nc;
        double G[FMB_ELEM_COLS * SW_MAXZ], D[FMB_ELEM_COLS], av[SW_MAXZ], Az[SW_MAXZ * SW_MAXZ],
            b[SW_MAXZ];
        memset(G, 0, sizeof G);
        f->klass->lcp(f, v, s->st.t, sw->v_n, G, D, av, Az, b);
        int g[FMB_ELEM_COLS];
        fmb_elem_gidx_map(v, g);
        for (int k = 0; k < ne; k++)
            for (int r = 0; r < nn; r++)
                if (g[r] >= 0) Q[g[r]] += sw->z[k] * G[r + (size_t)nn * k];
    }
}

/* The work of the LCP forces over a step, h (Q_n + Q_{n+1})/2 . (qd_n + qd_{n+1})/2, is
 * the one the trapezoidal velocity update makes them do: for a constant mass matrix
 * M (qd_{n+1} - qd_n) = h (F_n + F_{n+1})/2 and q_{n+1} - q_n = h (qd_n + qd_{n+1})/2
 * (Newmark beta = 1/4, gamma = 1/2), so the kinetic energy changes by exactly the work of
 * the forces counted so. The power lambda v of an engaging ratchet or a sticking brake is
 * 0 at both ends of its step (v_{n+1} = 0), but the step that engages it dissipates: a
 * trapezoid of the powers would miss that, this does not. */
double fmb_sim_switch_work(fmb_sim_t *s, double h)
{
    if (!s->ct.nswz) return 0.0;
    const int n = s->n;
    const double *qd0 = s->st.save + n;
    double *Q1 = s->ctl.work; /* free after the step */
    switch_forces(s, Q1);
    double W = 0.0;
    for (int i = 0; i < n; i++)
        W += 0.25 * h * (s->ct.swQ[i] + Q1[i]) * (qd0[i] + s->st.qd[i]);
    memcpy(s->ct.swQ, Q1, (size_t)n * sizeof *Q1);
    return W;
}

/* Kinetic energy 1/2 qd^T M qd. */
static double kinetic(fmb_sim_t *s)
{
    double e[FMB_ENERGY_COLUMNS];
    fmb_sim_energy(s, e);
    return e[0];
}

int fmb_sim_switch_impulse(fmb_sim_t *s)
{
    if (!s->ct.nswz) return 0;
    const int n = s->n, m = s->m;
    double *x = s->ctl.work + (size_t)(n + m); /* [dqd; impulses of the joints] */
    memset(x, 0, (size_t)(n + m) * sizeof *x);
    fmb_sim_switch_accept(s); /* v_n of the elements */
    /* finite forces carry no impulse: the rows' capacities b are 0 */
    int rc = fmb_sim_switch_lcp(s, 1.0, 1.0, s->st.qd, 0.0, s->st.t, x);
    if (rc) return rc;
    int any = 0;
    for (int e = 0; e < s->ct.nsw; e++)
        for (int k = 0; k < s->model->forces[s->ct.swe[e].force].klass->nz; k++)
            any |= s->ct.swe[e].z[k] != 0.0;
    if (!any) return 0;
    const double T0 = kinetic(s);
    for (int i = 0; i < n; i++)
        s->st.qd[i] += x[i];
    s->st.W += kinetic(s) - T0; /* the impact's loss (<= 0) */
    return 1;
}

/* Slider contacts and switching elements in one model (docs/switching.md, "Both LCPs"):
 * the contact LCP (contact_step.c) and the switching LCP are the two blocks of one
 * coupled LCP: each element's force moves the other's rows through the factorized
 * matrix (a switching force that presses a slider onto its guide raises its normal and
 * friction forces). Solved by block Gauss-Seidel on x = x0 + c + w (x0: without either,
 * c: contact part, w: switching part): contact LCP on x0 + w, switching LCP on x0 + c,
 * until w stops changing (p's rule); the fixed point satisfies both LCPs at the same x:
 * the coupled solution. Each LCP alone, once after the other, leaves the first one solved
 * without the second's forces: at Newton convergence (the totals z never enter the
 * residual) that offset stays (test switching_events_coupled: the slider friction misses
 * mu F sin(phi)). Used by the step (fmb_sim_lcp_coupled, on the Newton increment) and by
 * the start (start_lcp.c, on the accelerations and multipliers). */
#define FMB_COUPLED_MAX 200
int fmb_sim_lcp_blocks(fmb_sim_t *s, const fmb_lcp_blocks_t *p, double *x, double *work)
{
    const int N = s->n + s->m;
    double *x0 = work, *xs = x0 + N, *y = xs + N;
    memcpy(x0, x, (size_t)N * sizeof *x);
    memset(xs, 0, (size_t)N * sizeof *xs);
    for (int it = 0; it < FMB_COUPLED_MAX; it++) {
        for (int i = 0; i < N; i++)
            y[i] = x0[i] + xs[i];
        int rc = p->contact(s, p, y); /* y = x0 + w + c */
        if (rc) return rc;
        for (int i = 0; i < N; i++)
            x[i] = y[i] - xs[i]; /* x0 + c */
        if (!s->ct.nswz) return 0;
        if ((rc = p->switching(s, p, x))) return rc; /* x0 + c + w' */
        double d = 0.0, mw = 0.0, mx = 0.0;
        for (int i = 0; i < N; i++) {
            const double xn = x[i] - (y[i] - xs[i]);
            d = fmax(d, fabs(xn - xs[i]));
            mw = fmax(mw, fabs(xn));
            mx = fmax(mx, fabs(x[i]));
            xs[i] = xn;
        }
        double tol = p->atol; /* a zero rtol adds nothing (not even 0 * inf) */
        if (p->rtol_part != 0.0) tol = p->rtol_part * mw + tol;
        if (p->rtol_total != 0.0) tol = p->rtol_total * mx + tol;
        if (d <= tol) return 0;
    }
    if (p->when)
        return fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                             "the slider contacts' and the switching elements' LCPs %s did not "
                             "reach a common solution in %d rounds",
                             p->when, FMB_COUPLED_MAX);
    return fmb_sim_error(s, FMB_ERR_CONVERGENCE,
                         "the slider contacts' and the switching elements' LCPs did not reach a "
                         "common solution in %d rounds at t = %.9g",
                         FMB_COUPLED_MAX, p->t);
}

static int step_contact(fmb_sim_t *s, const fmb_lcp_blocks_t *p, double *y)
{
    return fmb_sim_contact_lcp(s, p->bh2, p->gfac, p->t, y);
}

static int step_switching(fmb_sim_t *s, const fmb_lcp_blocks_t *p, double *x)
{
    return fmb_sim_switch_lcp(s, p->bh2, p->gfac, s->st.qd, 1.0, p->t, x);
}

/* The step: x the Newton increment; w until it changes by 1e-10 of its size + 1e-3 atol. */
int fmb_sim_lcp_coupled(fmb_sim_t *s, double bh2, double gfac, double t, double *x)
{
    const fmb_lcp_blocks_t p = {.contact = step_contact,
                                .switching = step_switching,
                                .bh2 = bh2,
                                .gfac = gfac,
                                .t = t,
                                .rtol_part = 1e-10,
                                .atol = 1e-3 * s->opts.atol};
    return fmb_sim_lcp_blocks(s, &p, x, s->ct.swQ + s->n);
}

int fmb_sim_switch_state(const fmb_sim_t *s, int force, int *mode, double *fout, double *vrel)
{
    if (!s) return FMB_ERR_ARG;
    for (int e = 0; e < s->ct.nsw; e++) {
        const fmb_switch_t *sw = &s->ct.swe[e];
        if (sw->force != force) continue;
        if (mode) *mode = sw->mode;
        if (fout) *fout = sw->force_out;
        if (vrel) *vrel = sw->v_n;
        return 0;
    }
    return FMB_ERR_NOTFOUND;
}
