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
        if (md->forces[i].klass->mode) s->nsw++;
    if (!s->nsw) return 0;
    s->swe = calloc((size_t)s->nsw, sizeof *s->swe);
    if (!s->swe) return FMB_ERR_NOMEM;
    int k = 0, nz = 0;
    for (int i = 0; i < md->nforces; i++) {
        const fmb_force_class_t *c = md->forces[i].klass;
        if (!c->mode) continue;
        if (c->nz > SW_MAXZ) return FMB_ERR_ARG;
        s->swe[k].force = i;
        s->swe[k].zoff = nz;
        nz += c->nz;
        k++;
    }
    s->nswz = nz;
    if (!nz) return 0;
    const size_t N = (size_t)(s->n + s->m), mn = (size_t)s->maxn, ns = (size_t)s->nsw;
    const size_t Z = (size_t)nz;
    /* X (N x nz), M (nz^2), q, z, w, V (nz each), D (maxn per element), G (maxn x 4),
     * a zero velocity (n) */
    s->swX =
        calloc(N * Z + Z * Z + 4 * Z + ns * mn + SW_MAXZ * mn + (size_t)s->n + 1, sizeof(double));
    return s->swX ? 0 : FMB_ERR_NOMEM;
}

void fmb_sim_switch_free(fmb_sim_t *s)
{
    free(s->swe), free(s->swX);
    s->swe = NULL, s->swX = NULL;
}

static void views(const fmb_sim_t *s, const fmb_force_t *f, fmb_bodyview_t v[2])
{
    v[0] = fmb_model_view(s->model, f->body[0], s->q, s->qd);
    v[1] = fmb_model_view(s->model, f->body[1], s->q, s->qd);
}

/* The n-vector after the workspace (the start's base velocity). */
static double *start_base(const fmb_sim_t *s)
{
    const size_t N = (size_t)(s->n + s->m), Z = (size_t)s->nswz;
    return s->swX + N * Z + Z * Z + 4 * Z + (size_t)s->nsw * s->maxn + SW_MAXZ * (size_t)s->maxn;
}

int fmb_sim_switch_lcp(fmb_sim_t *s, double bh2, double gfac, const double *base, double t,
                       double *x)
{
    const fmb_model_t *md = s->model;
    const int n = s->n, N = n + s->m, nz = s->nswz;
    if (!nz) return 0;
    double *X = s->swX, *M = X + (size_t)N * nz, *qv = M + (size_t)nz * nz, *zz = qv + nz;
    double *ww = zz + nz, *V = ww + nz, *Dall = V + nz, *G = Dall + (size_t)s->nsw * s->maxn;
    double *col = s->work + 3 * (size_t)N;
    memset(M, 0, (size_t)nz * nz * sizeof *M);
    /* responses to unit z and the element rows */
    for (int e = 0; e < s->nsw; e++) {
        fmb_switch_t *sw = &s->swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        const int ne = f->klass->nz;
        if (!ne) continue;
        fmb_bodyview_t v[2];
        views(s, f, v);
        const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double *D = Dall + (size_t)e * s->maxn;
        memset(G, 0, (size_t)nn * SW_MAXZ * sizeof *G);
        f->klass->lcp(f, v, t, sw->v_n, G, D, sw->av, sw->Az, sw->b);
        for (int k = 0; k < ne; k++) {
            memset(col, 0, (size_t)N * sizeof *col);
            for (int r = 0; r < nn; r++) {
                const int g = fmb_sim_gidx(md, f->body, n0, r);
                if (g >= 0) col[g] += bh2 * G[r + (size_t)nn * k];
            }
            int rc = fmb_kkt_solve(&s->kkt, col, X + (size_t)N * (sw->zoff + k));
            if (rc)
                return fmb_sim_error(s, rc, "linear solve failed for the switching element '%s'",
                                     f->name);
        }
    }
    for (int e = 0; e < s->nsw; e++) {
        const fmb_switch_t *sw = &s->swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        const int ne = f->klass->nz;
        if (!ne) continue;
        const int n0 = md->bodies[f->body[0]].ndof, nn = n0 + md->bodies[f->body[1]].ndof;
        const double *D = Dall + (size_t)e * s->maxn;
        double v0 = 0.0;
        for (int j = 0; j < nz; j++)
            V[j] = 0.0;
        for (int r = 0; r < nn; r++) {
            const int g = fmb_sim_gidx(md, f->body, n0, r);
            if (g < 0) continue;
            v0 += D[r] * (base[g] + gfac * x[g]);
            for (int j = 0; j < nz; j++)
                V[j] += gfac * D[r] * X[g + (size_t)N * j];
        }
        for (int k = 0; k < ne; k++) {
            const int row = sw->zoff + k;
            for (int j = 0; j < nz; j++)
                M[row + (size_t)nz * j] = sw->av[k] * V[j];
            for (int j = 0; j < ne; j++)
                M[row + (size_t)nz * (sw->zoff + j)] += sw->Az[k + ne * j];
            qv[row] = sw->av[k] * v0 + sw->b[k];
        }
    }
    char msg[256];
    int rc = fmb_lcp_solve(nz, M, qv, zz, ww, msg, sizeof msg);
    if (rc) {
        const fmb_force_t *f = &md->forces[s->swe[0].force];
        rc = fmb_sim_error(s, rc,
                           "switching-element LCP failed at t = %.9g (force '%s', line %d): %s", t,
                           f->name, f->line, msg);
        s->errline = f->line;
        return rc;
    }
    for (int e = 0; e < s->nsw; e++) {
        fmb_switch_t *sw = &s->swe[e];
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
    for (int e = 0; e < s->nsw; e++) {
        fmb_switch_t *sw = &s->swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        fmb_bodyview_t v[2];
        views(s, f, v);
        sw->mode =
            f->klass->mode(f, v, s->t, f->klass->nz ? sw->z : NULL, &sw->force_out, &sw->v_n);
    }
}

int fmb_sim_switch_start(fmb_sim_t *s)
{
    if (s->nswz) {
        const int n = s->n, m = s->m;
        double *x = s->work + (size_t)(n + m);
        memcpy(x, s->qdd, (size_t)n * sizeof *x);
        memcpy(x + n, s->lam, (size_t)m * sizeof *x);
        double *base = start_base(s);
        const double tau = 1e-3 * s->opts.h;
        for (int i = 0; i < n; i++)
            base[i] = s->qd[i] / tau;
        fmb_sim_switch_accept(s); /* v_n: static or kinetic levels */
        int rc = fmb_sim_switch_lcp(s, 1.0, 1.0, base, s->t, x);
        if (rc) return rc;
        memcpy(s->qdd, x, (size_t)n * sizeof *x);
        memcpy(s->lam, x + n, (size_t)m * sizeof *x);
    }
    fmb_sim_switch_accept(s);
    return 0;
}

double fmb_sim_switch_power(const fmb_sim_t *s)
{
    const fmb_model_t *md = s->model;
    double P = 0.0;
    for (int e = 0; e < s->nsw; e++) {
        const fmb_switch_t *sw = &s->swe[e];
        const fmb_force_t *f = &md->forces[sw->force];
        const int ne = f->klass->nz;
        if (!ne) continue;
        fmb_bodyview_t v[2];
        views(s, f, v);
        const int n0 = v[0].ndof, nn = n0 + v[1].ndof;
        double G[nn * SW_MAXZ + 1], D[nn + 1], av[SW_MAXZ], Az[SW_MAXZ * SW_MAXZ], b[SW_MAXZ];
        memset(G, 0, sizeof G);
        f->klass->lcp(f, v, s->t, sw->v_n, G, D, av, Az, b);
        for (int k = 0; k < ne; k++)
            for (int r = 0; r < nn; r++) {
                const int g = fmb_sim_gidx(md, f->body, n0, r);
                if (g >= 0) P += sw->z[k] * G[r + (size_t)nn * k] * s->qd[g];
            }
    }
    return P;
}

int fmb_sim_switch_state(const fmb_sim_t *s, int force, int *mode, double *fout, double *vrel)
{
    if (!s) return FMB_ERR_ARG;
    for (int e = 0; e < s->nsw; e++) {
        const fmb_switch_t *sw = &s->swe[e];
        if (sw->force != force) continue;
        if (mode) *mode = sw->mode;
        if (fout) *fout = sw->force_out;
        if (vrel) *vrel = sw->v_n;
        return 0;
    }
    return FMB_ERR_NOTFOUND;
}
